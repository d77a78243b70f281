package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"strings"

	"quire/export"
	"quire/kernel/protocol"
)

// replayOptions are the flags of `quire replay SESSION`.
type replayOptions struct {
	from     int64
	json     bool
	audience protocol.Audience
	request  int
}

func (o *replayOptions) register(fset *flag.FlagSet) {
	fset.Int64Var(&o.from, "from", 0, "first seq to print")
	fset.BoolVar(&o.json, "json", false, "print one JSON event per line")
	fset.BoolVar(&o.audience.Internal, "internal", true, "include internal events")
	fset.BoolVar(&o.audience.Sensitive, "sensitive", false, "include sensitive events")
	fset.IntVar(&o.request, "request", 0, "print the request of this model call (1 = the first), rebuilt from the log, instead of the log: the JSON Ollama got, keys sorted, not its bytes")
}

// run prints a session's log, as stored, from a seq on; or, with
// -request N, the request of its Nth model call rebuilt from the log.
func (o *replayOptions) run(ctx context.Context, args []string, env Env) int {
	if len(args) == 0 {
		fmt.Fprintln(env.Stderr, "quire replay: which session? (`quire sessions` lists them)")
		return 2
	}
	session := args[0]
	p, err := env.Read(ctx)
	if err != nil {
		fmt.Fprintln(env.Stderr, "quire:", err)
		return 1
	}
	defer p.Close()
	if o.request > 0 {
		body, err := p.Calls().Request(ctx, session, o.request)
		if err != nil {
			fmt.Fprintln(env.Stderr, "quire:", err)
			return 1
		}
		env.Stdout.Write(body)
		return 0
	}
	evs, err := p.Kernel().Events(ctx, session, o.from)
	if errors.Is(err, protocol.ErrNotFound) {
		fmt.Fprintf(env.Stderr, "quire: %v (`quire sessions` lists them)\n", err)
		return 1
	}
	if err != nil {
		fmt.Fprintln(env.Stderr, "quire:", err)
		return 1
	}
	if o.json {
		// The same lines `quire export -format jsonl` writes (of the
		// public events only).
		if err := export.JSONLines(env.Stdout, protocol.Filter(evs, o.audience)); err != nil {
			fmt.Fprintln(env.Stderr, "quire:", err)
			return 1
		}
		return 0
	}
	for _, e := range protocol.Filter(evs, o.audience) {
		run := ""
		if e.RunID != "" {
			run = " run=" + e.RunID
		}
		fmt.Fprintf(env.Stdout, "%5d  %s  %-18s%s  %s\n", e.Seq, e.Time.Local().Format("2006-01-02 15:04:05.000"), e.Type, run, oneLine(e.Payload))
	}
	return 0
}

// oneLine shortens a payload to one readable line for the terminal.
func oneLine(payload json.RawMessage) string {
	s := strings.Join(strings.Fields(string(payload)), " ")
	if r := []rune(s); len(r) > 160 {
		s = string(r[:159]) + "…"
	}
	return s
}
