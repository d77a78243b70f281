package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"

	"quire/eval"
)

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
	fset.StringVar(&o.Runner, "provider", "", `the adapter the model is reached by: "ollama" (default) or "openai" (the OpenAI-compatible API; with -real, the settings' runnerUrl)`)
}

// run is `quire eval`: it plays the scenarios, prints the table and the
// summary line (or JSON), and exits 1 when a scenario failed.
func (o *evalOptions) run(ctx context.Context, _ []string, env Env) int {
	var all []eval.Scenario
	var err error
	if o.dir != "" {
		all, err = eval.LoadDir(o.dir)
	} else {
		all, err = eval.LoadFS(env.Scenarios, "evals")
	}
	if err != nil {
		fmt.Fprintln(env.Stderr, "quire eval:", err)
		return 2
	}
	list, err := eval.Select(all, o.Options)
	if err != nil {
		fmt.Fprintln(env.Stderr, "quire eval:", err)
		return 2
	}
	opts := o.Options
	switch opts.Runner {
	case "", "ollama":
		opts.Runner = ""
	case "openai":
	default:
		fmt.Fprintf(env.Stderr, "quire eval: -provider %q: want ollama or openai\n", opts.Runner)
		return 2
	}
	if opts.Real && opts.Runner != "" {
		opts.Host, opts.Model, opts.EmbedModel = env.Settings.RunnerURL, env.Settings.Model, env.Settings.EmbedModel
		fmt.Fprintf(env.Stderr, "Running %d scenarios against %s at %s; this takes a while.\n", len(list), opts.Model, opts.Host)
	} else if opts.Real {
		opts.Host, opts.Model, opts.EmbedModel = env.Settings.OllamaHost, env.Settings.Model, env.Settings.EmbedModel
		fmt.Fprintf(env.Stderr, "Running %d scenarios against %s at %s; this takes a while.\n", len(list), opts.Model, opts.Host)
	}
	report := eval.Run(ctx, list, env.Eval(QuietLog(env.Stderr)), opts)
	if o.json {
		if err := report.JSON(env.Stdout); err != nil {
			fmt.Fprintln(env.Stderr, "quire eval:", err)
			return 1
		}
	} else {
		report.Table(env.Stdout)
		fmt.Fprintln(env.Stdout, report.Summary())
	}
	if !report.Passed() {
		return 1
	}
	return 0
}

// QuietLog is the log of a scenario's kernel: warnings only, so the table
// stays readable; QUIRE_EVAL_LOG=debug shows everything.
func QuietLog(w io.Writer) *slog.Logger {
	level := slog.LevelWarn
	if os.Getenv("QUIRE_EVAL_LOG") == "debug" {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))
}
