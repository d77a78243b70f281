// Command quire reads its flags and hands off: no command opens the window
// (app.go, host/window), `serve` the HTTP host (host/httpapi), every other command the
// terminal host (host/cli). The parts come from the composition root
// (assembly); this package picks none itself.
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
	"syscall"

	"quire/assembly"
	"quire/config"
	"quire/host"
	"quire/host/cli"
	"quire/host/httpapi"
	"quire/internal/datadir"
)

//go:embed all:frontend/dist
var assets embed.FS

// scenarios is the eval set shipped in the binary, so `quire eval` works
// from any folder; -dir reads another folder instead.
//
//go:embed evals/*.yaml
var scenarios embed.FS

const usage = `Quire — a local-first assistant for your notes.

Usage:
  quire [flags]            open the window
  quire doctor [flags]     check Ollama, the model, the data directory and SQLite
  quire serve [flags]      serve the same UI on http://127.0.0.1 (for a browser)
  quire sessions [flags]   list conversations
  quire index PATH...      index documents (Markdown, text, HTML, PDF) for search_docs
  quire search [-n N] [-json] [-mode lexical|vector|hybrid] QUERY
                           search the indexed documents; "-json -" reads one
                           query a line from standard input
  quire replay SESSION [-from SEQ] [-json] [-internal] [-sensitive]
                           print a conversation's event log
  quire replay SESSION -request N
                           print the request of the model's Nth call, rebuilt from the log:
                           the JSON Ollama got, keys sorted (canonical), not its bytes
  quire export SESSION [-format md|jsonl] [-o FILE]
                           a conversation as Markdown (citations as footnotes) or its
                           public events as JSON lines (as replay -json prints them)
  quire eval [-filter X] [-json] [-real] [-dir DIR]
                           run the eval set (scripted; -real: against -model on Ollama)
  quire models [-json]     list the installed models: what each can do, which is loaded
  quire run [-json] [-approve never|reads|all] [-ask CMD] [-session ID] "TASK"
                           one headless run; exits with its close reason: 0 completed,
                           1 error, 2 usage, 3 denied, 4 a limit, 5 interrupted,
                           6 empty reply, 130 cancelled (Ctrl-C)
  quire chat [-session ID] a conversation in the terminal (/new, /sessions, /switch ID, /undo;
                           Ctrl-C stops a reply, a second quits); plain lines when not a terminal
  quire skills list [-json] the installed skills: where each comes from, on or off, why unavailable
  quire skills add DIR     copy a skill folder (with a SKILL.md) into the skills folder
  quire pull NAME          download a model with a progress bar (Ctrl-C stops; pulling again resumes)
                           exit status: 0 installed, 1 failed (the reason is printed), 2 usage, 130 interrupted
  quire organise [-approve ask|none|all] FOLDER
                           organise the notes of a folder (like inbox) as one batch: workers propose,
                           then the whole list and one question (y/n); -undo BATCH puts a batch back
  quire tasks list [-json] | add -folder F [-instruction TEXT] NAME daily HH:MM|weekly DAY HH:MM|over N|lands
              | pause ID | resume ID | remove ID | run-now ID | help COMMAND
                           standing tasks: organise batches Quire starts on a schedule while it runs;
                           each only proposes and waits for your one review (quire organise)
  quire evolve list | show ID | add FILE | eval ID | approve ID [-scope folder|all] [-accept S,...]
               [-replaces ID] | refuse ID | rollback [ID] | task ID [-set NAME=VALUE,...]
                           the improvements Quire proposes (or you write) from what you refused,
                           undid or corrected: evaluated, approved by you, rolled back in one step
  quire mcp list [-json]   the MCP servers: each one's state (and why it failed), its tools with
                           their effects and what their declarations cost in the model's context
  quire mcp add NAME [-env K=V]... -- COMMAND [ARG...] | quire mcp add NAME -url URL
  quire mcp remove NAME    add (or replace) and remove an MCP server; through the window or
                           serve when one runs

doctor, sessions, replay, export, search, models, mcp list and skills list only read the database: they never write to it.
One Quire owns a data folder: while the window or serve runs, index, run and chat go
through it (and the questions of their runs are asked in the terminal, not the window).

Flags (every command, before or after its name):
  -data-dir DIR      data directory (env QUIRE_DATA_DIR)
  -ollama-host URL   Ollama's address (env OLLAMA_HOST)
  -model NAME        chat model (env QUIRE_MODEL)
  -num-ctx N         context length (env QUIRE_NUM_CTX)
  -notes-dir DIR     the notes folder (env QUIRE_NOTES_DIR)
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	cmd, args := commandWord(args)
	fset := flag.NewFlagSet("quire "+cmd, flag.ContinueOnError)
	fset.SetOutput(stderr)
	fset.Usage = func() { fmt.Fprint(stderr, usage) }
	flags := config.Register(fset)
	addr := ""
	var command *cli.Command
	switch cmd {
	case "", "window":
	case "help":
		fmt.Fprint(stdout, usage)
		return 0
	case "serve":
		fset.StringVar(&addr, "addr", "127.0.0.1:8765", "address to listen on (loopback only)")
	default:
		if command = cli.Lookup(cmd, fset); command == nil {
			fmt.Fprintf(stderr, "quire: unknown command %q\n\n%s", cmd, usage)
			return 2
		}
	}
	positional, err := parseAnywhere(fset, args)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err == nil && command == nil && len(positional) > 0 {
		err = fmt.Errorf("%q takes no arguments; see `quire help`", positional[0])
	}
	var cfg config.Config
	if err == nil {
		cfg, err = flags.Resolve(os.LookupEnv)
	}
	if err != nil {
		fmt.Fprintln(stderr, "quire:", err)
		return 2
	}
	settings := config.NewStore(cfg)
	level := slog.LevelInfo
	if cmd == "chat" {
		// The chat draws on the terminal stderr shares: a warning would be
		// drawn over the conversation. Errors still show; doctor says the rest.
		level = slog.LevelError
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	dist, err := fs.Sub(assets, "frontend/dist")
	if err != nil {
		fmt.Fprintln(stderr, "quire:", err)
		return 1
	}
	switch cmd {
	case "", "window":
		return runWindow(ctx, settings, dist, log, stderr, desktopNotice(log))
	case "serve":
		return runServe(ctx, settings, dist, addr, log, stdout, stderr)
	}
	evals := evalSet()
	return command.Run(ctx, positional, cli.Env{
		Stdin: os.Stdin, Stdout: stdout, Stderr: stderr, Log: log, Settings: cfg,
		Read:    opener(settings, log, assembly.Reader, ""),
		Own:     opener(settings, log, assembly.Owner, datadir.Index),
		Running: running(cfg.DataDir),
		RunningBatches: func(context.Context) (host.Batches, error) {
			return httpapi.DialLocal(datadir.SocketPath(cfg.DataDir)).Batches(), nil
		},
		RunningMCP: func(context.Context) (host.MCP, error) {
			return httpapi.DialLocal(datadir.SocketPath(cfg.DataDir)).MCP(), nil
		},
		RunningSkills: func(context.Context) (host.Skills, error) {
			return httpapi.DialLocal(datadir.SocketPath(cfg.DataDir)).Skills(), nil
		},
		Drive:     driver(settings, log),
		Eval:      assembly.EvalBuilder,
		Scenarios: evals,
	})
}

// evalSet is the built-in eval set: what `quire eval` plays and what a
// candidate improvement is evaluated over.
func evalSet() fs.FS {
	// The embedded folder always exists: Sub fails only on a bad name.
	sub, _ := fs.Sub(scenarios, "evals")
	return sub
}

// running reaches the document index of the process that owns dir, over
// its local channel.
func running(dir string) func(context.Context) (cli.Indexer, error) {
	return func(ctx context.Context) (cli.Indexer, error) {
		return httpapi.DialLocal(datadir.SocketPath(dir)).Index(ctx)
	}
}

// driver opens the data folder's kernel for a terminal conversation: the
// running window's or `quire serve`'s through its local channel, else this
// process's own, as the folder's owner for the command's life.
func driver(settings *config.Store, log *slog.Logger) func(context.Context) (host.Driver, error) {
	return func(ctx context.Context) (host.Driver, error) {
		p, err := assembly.OpenWith(ctx, settings, log, assembly.Owner, assembly.Extras{Kind: datadir.Terminal})
		var inUse *datadir.InUseError
		if errors.As(err, &inUse) && (inUse.Holder.Kind == datadir.Window || inUse.Holder.Kind == datadir.Serve) {
			return httpapi.DialLocal(datadir.SocketPath(inUse.Dir)), nil
		}
		if err != nil {
			return nil, err
		}
		if err := p.DatabaseError(); err != nil {
			p.Close()
			return nil, err
		}
		return p, nil
	}
}

// commandWord finds the command word, the first argument that is not a
// flag or a flag's value, and returns it and the other arguments in their
// order, so flags may come before the command word as well as after it.
func commandWord(args []string) (string, []string) {
	probe := flag.NewFlagSet("", flag.ContinueOnError)
	probe.SetOutput(io.Discard)
	config.Register(probe)
	if probe.Parse(args) != nil || probe.NArg() == 0 {
		return "", args // the real parse reports a bad flag
	}
	rest := probe.Args()
	before := args[:len(args)-len(rest)]
	// A "--" that ended the flags before the command word belongs to it,
	// not to the command's own arguments.
	if n := len(before); n > 0 && before[n-1] == "--" {
		before = before[:n-1]
	}
	return rest[0], append(append([]string(nil), before...), rest[1:]...)
}

// parseAnywhere parses flags wherever they stand among the positional
// arguments (`replay S -from 3`), and returns the positional ones; after
// "--" everything is positional.
func parseAnywhere(fset *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fset.Parse(args); err != nil {
			return nil, err
		}
		rest := fset.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			return append(positional, rest...), nil
		}
		positional, args = append(positional, rest[0]), rest[1:]
	}
}

// opener opens the parts in mode for a terminal command; an owner holds
// the data folder as kind.
func opener(settings *config.Store, log *slog.Logger, mode assembly.Mode, kind datadir.Kind) func(context.Context) (cli.Parts, error) {
	return func(ctx context.Context) (cli.Parts, error) {
		p, err := assembly.OpenWith(ctx, settings, log, mode, assembly.Extras{Kind: kind, Scenarios: evalSet()})
		if err != nil {
			return nil, err
		}
		return p, nil
	}
}

// runServe serves the UI until ctx ends, as the data folder's owner; the
// same routes are served on the folder's local channel. A second
// `quire serve` of a folder is refused, naming the process that holds it.
func runServe(ctx context.Context, settings *config.Store, dist fs.FS, addr string, log *slog.Logger, stdout, stderr io.Writer) int {
	p, err := assembly.OpenWith(ctx, settings, log, assembly.Owner, assembly.Extras{Kind: datadir.Serve, Scenarios: evalSet()})
	var inUse *datadir.InUseError
	if errors.As(err, &inUse) {
		fmt.Fprintln(stderr, "quire:", serveRefusal(inUse))
		return 1
	}
	if err != nil {
		fmt.Fprintln(stderr, "quire:", err)
		return 1
	}
	defer p.Close()
	if err := p.DatabaseError(); err != nil {
		// It serves anyway, so the page can say the same and show the doctor.
		fmt.Fprintln(stderr, "quire:", err)
	}
	b := p.ServeBackend(ctx, os.Getenv("QUIRE_TEST_PROBE"))
	p.ServeLocal(ctx, b)
	srv := p.Serve(b, dist, log)
	// The one URL that opens the API: it carries this start's secret
	// (Announce keeps only the bare address, for a second window).
	if err := srv.ListenAndServe(ctx, addr, func(link string) {
		p.Announce(link)
		fmt.Fprintln(stdout, "Quire is serving on", link)
		fmt.Fprintln(stdout, "Open that link in your browser: it carries a secret made for this start, so no other page can use Quire. Keep it to yourself.")
	}); err != nil {
		fmt.Fprintln(stderr, "quire:", err)
		return 1
	}
	return 0
}

// serveRefusal is the sentence of a `quire serve` refused because another
// process owns the data folder.
func serveRefusal(e *datadir.InUseError) string {
	use := "use that one"
	if e.Holder.URL != "" {
		use = "use that one at " + e.Holder.URL
	}
	stop := "stop it"
	if e.Holder.Known() {
		stop = fmt.Sprintf("stop it (kill %d)", e.Holder.PID)
	}
	return fmt.Sprintf("the data folder %s is owned by %s, so this `quire serve` did not start. Either %s, or %s and start this one again; "+
		"a second, separate Quire needs its own -data-dir.", e.Dir, e.Holder, use, stop)
}
