// Command fakeollama serves the ollamatest fake Ollama server, for
// end-to-end tests of the window and the browser UI that need a model
// without running one.
//
//	fakeollama --addr 127.0.0.1:0 --model qwen3:4b --script turns.json --delay 30ms [--offline]
//
// The first line on stdout is "listening on http://HOST:PORT". Unscripted
// chat requests are answered "You said: <last user message>", a word per
// chunk. It stops on SIGINT or SIGTERM.
//
// It is a thin shell over ollamatest and must never import other Quire
// packages.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"quire/test/ollamatest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "fakeollama:", err)
		os.Exit(2)
	}
}

// run serves until ctx ends.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	flags := flag.NewFlagSet("fakeollama", flag.ContinueOnError)
	flags.SetOutput(stderr)
	addr := flags.String("addr", "127.0.0.1:0", "address to listen on; port 0 picks a free one")
	var models modelList
	flags.Var(&models, "model", "model to install, repeatable or comma-separated (default qwen3:4b);\n"+
		"NAME gets completion+tools+thinking, NAME=cap+cap names the capabilities (nomic-embed-text=embedding)")
	script := flags.String("script", "", "JSON file with a list of turns to reply to chat requests with, in order")
	delay := flags.Duration("delay", 30*time.Millisecond, "pause before each streamed chunk")
	verbose := flags.Bool("v", false, "log each request to stderr")
	offline := flags.Bool("offline", false, "fail every pull as Ollama does when the registry cannot be reached")
	if err := flags.Parse(args); err != nil {
		return err
	}
	if flags.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", flags.Args())
	}

	var turns []ollamatest.Turn
	if *script != "" {
		b, err := os.ReadFile(*script)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(b, &turns); err != nil {
			return fmt.Errorf("script %s: %w", *script, err)
		}
	}
	if len(models) == 0 {
		models = modelList{ollamatest.DefaultModel()}
	}

	opts := []ollamatest.Option{ollamatest.WithDelay(*delay)}
	if *offline {
		opts = append(opts, ollamatest.WithRegistryUnreachable())
	}
	if *verbose {
		opts = append(opts, ollamatest.WithLogger(slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	}
	srv, err := ollamatest.Listen(*addr, opts...)
	if err != nil {
		return err
	}
	defer srv.Close()
	for _, m := range models {
		srv.AddModel(m)
	}
	srv.Script(turns...)

	// Tests wait for this line before they connect, so it comes last.
	fmt.Fprintf(stdout, "listening on %s\n", srv.URL())
	<-ctx.Done()
	return nil
}

// modelList is the --model flag.
type modelList []ollamatest.Model

func (l *modelList) String() string {
	names := make([]string, len(*l))
	for i, m := range *l {
		names[i] = m.Name
	}
	return strings.Join(names, ",")
}

func (l *modelList) Set(v string) error {
	for spec := range strings.SplitSeq(v, ",") {
		spec = strings.TrimSpace(spec)
		if spec == "" {
			continue
		}
		name, caps, explicit := strings.Cut(spec, "=")
		m := ollamatest.DefaultModel()
		m.Name, m.Family = name, ""
		if explicit {
			m.Capabilities = strings.Split(caps, "+")
		}
		*l = append(*l, m)
	}
	return nil
}
