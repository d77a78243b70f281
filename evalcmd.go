package main

import (
	"context"
	"embed"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"

	"quire/config"
	"quire/eval"
	"quire/kernel/runtime"
)

// scenarios is the eval set shipped in the binary, so `quire eval` works
// from any folder; -dir reads another folder instead.
//
//go:embed evals/*.yaml
var scenarios embed.FS

// evalOptions are the flags of `quire eval`.
type evalOptions struct {
	eval.Options
	dir  string
	json bool
}

func (o *evalOptions) register(fset *flag.FlagSet) {
	fset.StringVar(&o.Filter, "filter", "", "run only scenarios whose name, class or file contains this")
	fset.BoolVar(&o.json, "json", false, "print the report as JSON")
	fset.BoolVar(&o.Real, "real", false, "replace the scripted model by the real one (-model, -ollama-host)")
	fset.StringVar(&o.dir, "dir", "", "read scenarios from this folder instead of the built-in set")
	fset.IntVar(&o.Parallel, "parallel", 0, "scenarios at once (default 4; 1 with -real)")
}

// runEval is `quire eval`: it plays the scenarios, prints the table and the
// summary line (or JSON), and exits 1 when a scenario failed.
func runEval(ctx context.Context, cfg config.Config, o evalOptions, log *slog.Logger, stdout, stderr io.Writer) int {
	var all []eval.Scenario
	var err error
	if o.dir != "" {
		all, err = eval.LoadDir(o.dir)
	} else {
		sub, _ := fs.Sub(scenarios, "evals")
		all, err = eval.LoadFS(sub, "evals")
	}
	if err != nil {
		fmt.Fprintln(stderr, "quire eval:", err)
		return 2
	}
	list, err := eval.Select(all, o.Options)
	if err != nil {
		fmt.Fprintln(stderr, "quire eval:", err)
		return 2
	}
	if o.Real {
		o.Host, o.Model, o.EmbedModel = cfg.OllamaHost, cfg.Model, cfg.EmbedModel
		fmt.Fprintf(stderr, "Running %d scenarios against %s at %s; this takes a while.\n", len(list), o.Model, o.Host)
	}
	report := eval.Run(ctx, list, evalBuilder(log), o.Options)
	if o.json {
		if err := report.JSON(stdout); err != nil {
			fmt.Fprintln(stderr, "quire eval:", err)
			return 1
		}
	} else {
		report.Table(stdout)
		fmt.Fprintln(stdout, report.Summary())
	}
	if !report.Passed() {
		return 1
	}
	return 0
}

// evalBuilder assembles a scenario's kernel with main's own wiring (the
// same store, tools, prompt and checkpoint hook as the window), pointed at
// the scenario's folders and model, with the scenario's user answering.
func evalBuilder(log *slog.Logger) eval.Builder {
	return func(ctx context.Context, env eval.Env) (eval.Instance, error) {
		cfg := config.Config{DataDir: env.DataDir, OllamaHost: env.OllamaHost, Model: env.Model, NumCtx: env.NumCtx,
			NotesDir: env.NotesDir, EmbedModel: env.EmbedModel}
		s, err := openServices(ctx, cfg, log, runtime.WithAsker(env.Ask), runtime.WithTools(env.Tools...))
		if err != nil {
			return eval.Instance{}, err
		}
		if s.DBErr != nil {
			s.Close()
			return eval.Instance{}, s.DBErr
		}
		if env.DocsDir != "" {
			if s.rag == nil {
				s.Close()
				return eval.Instance{}, fmt.Errorf("the document index is not available")
			}
			if err := s.rag.Index(ctx, []string{env.DocsDir}, nil); err != nil {
				s.Close()
				return eval.Instance{}, fmt.Errorf("indexing the scenario's documents: %w", err)
			}
		}
		return eval.Instance{Kernel: s.kernel(), Close: s.Close}, nil
	}
}

// quietLog is the log of a scenario's kernel: warnings only, so the table
// stays readable; QUIRE_EVAL_LOG=debug shows everything.
func quietLog(w io.Writer) *slog.Logger {
	level := slog.LevelWarn
	if os.Getenv("QUIRE_EVAL_LOG") == "debug" {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))
}
