package cli

import (
	"context"
	"flag"
	"io"
	"log/slog"
	"os"
	"testing"

	"quire/assembly"
	"quire/config"
	"quire/host"
	"quire/host/httpapi"
	"quire/internal/datadir"
)

// run runs a command as main hands it over — its flags after its name,
// the parts from the composition root — with the eval set of the
// repository (main embeds the same files).
func run(args []string, stdout, stderr io.Writer) int {
	return runCtxIn(context.Background(), args, nil, stdout, stderr)
}

// runCtx is run until ctx ends, as main's ends on Ctrl-C.
func runCtx(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return runCtxIn(ctx, args, nil, stdout, stderr)
}

// runIn is run with stdin as the command's standard input.
func runIn(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runCtxIn(context.Background(), args, stdin, stdout, stderr)
}

// servingOwner opens the parts as `quire serve` does — the data folder's
// owner, serving its local channel — until the test ends.
func servingOwner(t *testing.T, settings *config.Store) *assembly.Parts {
	t.Helper()
	p, err := assembly.OpenWith(t.Context(), settings, slog.New(slog.DiscardHandler), assembly.Owner, assembly.Extras{Kind: datadir.Serve})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	p.ServeLocal(t.Context(), p.ServeBackend(t.Context(), ""))
	return p
}

// runCtxIn is run until ctx ends, with stdin as the command's standard input.
func runCtxIn(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("quire "+args[0], flag.ContinueOnError)
	fset.SetOutput(stderr)
	flags := config.Register(fset)
	cmd := Lookup(args[0], fset)
	if cmd == nil {
		return 2
	}
	if err := fset.Parse(args[1:]); err != nil {
		return 2
	}
	cfg, err := flags.Resolve(os.LookupEnv)
	if err != nil {
		return 2
	}
	settings := config.NewStore(cfg)
	log := slog.New(slog.DiscardHandler)
	open := func(mode assembly.Mode) func(context.Context) (Parts, error) {
		return func(ctx context.Context) (Parts, error) {
			p, err := assembly.OpenWith(ctx, settings, log, mode, assembly.Extras{Kind: datadir.Index})
			if err != nil {
				return nil, err
			}
			return p, nil
		}
	}
	return cmd.Run(ctx, fset.Args(), Env{Stdin: stdin, Stdout: stdout, Stderr: stderr, Log: log, Settings: cfg,
		Read: open(assembly.Reader), Own: open(assembly.Owner), Eval: assembly.EvalBuilder, Scenarios: os.DirFS(evalsDir),
		Running: func(ctx context.Context) (Indexer, error) {
			return httpapi.DialLocal(datadir.SocketPath(cfg.DataDir)).Index(ctx)
		},
		RunningBatches: func(context.Context) (host.Batches, error) {
			return httpapi.DialLocal(datadir.SocketPath(cfg.DataDir)).Batches(), nil
		},
		RunningMCP: func(context.Context) (host.MCP, error) {
			return httpapi.DialLocal(datadir.SocketPath(cfg.DataDir)).MCP(), nil
		},
		RunningSkills: func(context.Context) (host.Skills, error) {
			return httpapi.DialLocal(datadir.SocketPath(cfg.DataDir)).Skills(), nil
		}})
}
