package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"quire/export"
)

// exportOptions are the flags of `quire export SESSION`.
type exportOptions struct {
	format string
	out    string
}

func (o *exportOptions) register(fset *flag.FlagSet) {
	fset.StringVar(&o.format, "format", export.FormatMarkdown, "md (Markdown: messages, tool lines, citations as footnotes) or jsonl (the public events, one JSON line each)")
	fset.StringVar(&o.out, "o", "", "write to this file instead of standard output")
}

// run exports one conversation. It only reads (a Reader), so it works
// while a window or `quire serve` owns the folder, as replay does.
func (o *exportOptions) run(ctx context.Context, args []string, env Env) int {
	if len(args) != 1 {
		fmt.Fprintln(env.Stderr, "quire export: which session? (`quire sessions` lists them)")
		return 2
	}
	if o.format != export.FormatMarkdown && o.format != export.FormatJSONL {
		fmt.Fprintf(env.Stderr, "quire export: -format is md or jsonl, not %q\n", o.format)
		return 2
	}
	id := args[0]
	p, err := env.Read(ctx)
	if err != nil {
		fmt.Fprintln(env.Stderr, "quire:", err)
		return 1
	}
	defer p.Close()
	doc, err := export.Conversation(ctx, p.Kernel(), id, o.format)
	if errors.Is(err, export.ErrNoSession) {
		fmt.Fprintf(env.Stderr, "quire: %v (`quire sessions` lists them)\n", err)
		return 1
	}
	if err != nil {
		fmt.Fprintln(env.Stderr, "quire:", err)
		return 1
	}
	if o.out == "" {
		env.Stdout.Write(doc.Body)
		return 0
	}
	if err := export.WriteFile(o.out, doc.Body); err != nil {
		fmt.Fprintf(env.Stderr, "quire: could not write %s: %v\n", o.out, err)
		return 1
	}
	fmt.Fprintf(env.Stderr, "wrote %s (%d bytes)\n", o.out, len(doc.Body))
	return 0
}
