// Command quire is the composition root: it reads the configuration, picks
// the concrete parts (SQLite store, Ollama adapter, runtime) and starts a
// host — the desktop window by default, or a subcommand.
package main

import (
	"context"
	"embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"quire/config"
	"quire/host/httpapi"
)

//go:embed all:frontend/dist
var assets embed.FS

const usage = `Quire — a local-first assistant for your notes.

Usage:
  quire [flags]            open the window
  quire doctor [flags]     check Ollama, the model, the data directory and SQLite
  quire serve [flags]      serve the same UI on http://127.0.0.1 (for a browser)
  quire sessions [flags]   list conversations
  quire index PATH...      index documents (Markdown, text, HTML, PDF) for search_docs
  quire search [-n N] [-json] QUERY
                           search the indexed documents
  quire replay SESSION [-from SEQ] [-json] [-internal] [-sensitive]
                           print a conversation's event log
  quire replay SESSION -request N
                           print the exact request (JSON) sent to the model at its Nth call
  quire eval [-filter X] [-json] [-real] [-dir DIR]
                           run the eval set (scripted; -real: against -model on Ollama)

Flags (every command):
  -data-dir DIR      data directory (env QUIRE_DATA_DIR)
  -ollama-host URL   Ollama's address (env OLLAMA_HOST)
  -model NAME        chat model (env QUIRE_MODEL)
  -num-ctx N         context length (env QUIRE_NUM_CTX)
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	cmd := ""
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	fset := flag.NewFlagSet("quire "+cmd, flag.ContinueOnError)
	fset.SetOutput(stderr)
	fset.Usage = func() { fmt.Fprint(stderr, usage) }
	addr := ""
	var replay replayOptions
	searchN, searchJSON := 8, false
	var evalOpts evalOptions
	switch cmd {
	case "eval":
		evalOpts.register(fset)
	case "serve":
		fset.StringVar(&addr, "addr", "127.0.0.1:8765", "address to listen on (loopback only)")
	case "search":
		fset.IntVar(&searchN, "n", 8, "how many hits")
		fset.BoolVar(&searchJSON, "json", false, "print JSON")
	case "replay":
		if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
			replay.session, args = args[0], args[1:]
		}
		fset.Int64Var(&replay.from, "from", 0, "first seq to print")
		fset.BoolVar(&replay.json, "json", false, "print one JSON event per line")
		fset.BoolVar(&replay.audience.Internal, "internal", true, "include internal events")
		fset.BoolVar(&replay.audience.Sensitive, "sensitive", false, "include sensitive events")
		fset.IntVar(&replay.request, "request", 0, "print the exact request sent to the model at this model call (1 = the first) instead of the log")
	}
	cfg, err := config.Load(fset, args, os.LookupEnv)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "quire:", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	switch cmd {
	case "", "window":
		return runWindow(ctx, cfg, log, stderr)
	case "doctor":
		return runDoctor(ctx, cfg, log, stdout)
	case "serve":
		return runServe(ctx, cfg, addr, log, stdout, stderr)
	case "sessions":
		return runSessions(ctx, cfg, log, stdout, stderr)
	case "replay":
		return runReplay(ctx, cfg, replay, log, stdout, stderr)
	case "index", "search":
		s, err := openServices(ctx, cfg, log)
		if err != nil {
			fmt.Fprintln(stderr, "quire:", err)
			return 1
		}
		defer s.Close()
		if s.rag == nil {
			fmt.Fprintln(stderr, "quire: the document index is not available (see `quire doctor`)")
			return 1
		}
		if cmd == "index" {
			return runIndex(ctx, s.rag, fset.Args(), stdout, stderr)
		}
		return runSearch(ctx, s.rag, strings.Join(fset.Args(), " "), searchN, searchJSON, stdout, stderr)
	case "eval":
		return runEval(ctx, cfg, evalOpts, quietLog(stderr), stdout, stderr)
	case "help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "quire: unknown command %q\n\n%s", cmd, usage)
		return 2
	}
}

func runDoctor(ctx context.Context, cfg config.Config, log *slog.Logger, stdout io.Writer) int {
	s, err := openServices(ctx, cfg, log)
	if err != nil {
		fmt.Fprintln(stdout, "FAIL", err)
		return 1
	}
	defer s.Close()
	report := s.doctor(ctx)
	for _, line := range report.Lines() {
		fmt.Fprintln(stdout, line)
	}
	if !report.OK {
		return 1
	}
	return 0
}

func runSessions(ctx context.Context, cfg config.Config, log *slog.Logger, stdout, stderr io.Writer) int {
	s, err := openServices(ctx, cfg, log)
	if err != nil {
		fmt.Fprintln(stderr, "quire:", err)
		return 1
	}
	defer s.Close()
	list, err := s.kernel().Sessions(ctx)
	if err != nil {
		fmt.Fprintln(stderr, "quire:", err)
		return 1
	}
	for _, x := range list {
		fmt.Fprintf(stdout, "%s\t%s\t%d events\t%s\n", x.ID, x.UpdatedAt.Local().Format("2006-01-02 15:04"), x.LastSeq+1, x.Title)
	}
	return 0
}

func runServe(ctx context.Context, cfg config.Config, addr string, log *slog.Logger, stdout, stderr io.Writer) int {
	s, err := openServices(ctx, cfg, log)
	if err != nil {
		fmt.Fprintln(stderr, "quire:", err)
		return 1
	}
	defer s.Close()
	dist, err := fs.Sub(assets, "frontend/dist")
	if err != nil {
		fmt.Fprintln(stderr, "quire:", err)
		return 1
	}
	backend := httpapi.Backend{Kernel: s.kernel(), Doctor: s.doctor, Settings: s, Memory: s.memoryPanel(), ProbePath: os.Getenv("QUIRE_TEST_PROBE")}
	if lib := s.startLibrary(ctx, log); lib != nil {
		backend.Documents = lib
	}
	srv := httpapi.New(backend, dist, log)
	if err := srv.ListenAndServe(ctx, addr, func(url string) { fmt.Fprintln(stdout, "Quire is serving on", url) }); err != nil {
		fmt.Fprintln(stderr, "quire:", err)
		return 1
	}
	return 0
}
