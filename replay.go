package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"quire/config"
	"quire/kernel/protocol"
)

type replayOptions struct {
	session  string
	from     int64
	json     bool
	audience protocol.Audience
}

// runReplay prints a session's log, as stored, from a seq on.
func runReplay(ctx context.Context, cfg config.Config, o replayOptions, log *slog.Logger, stdout, stderr io.Writer) int {
	if o.session == "" {
		fmt.Fprintln(stderr, "quire replay: which session? (`quire sessions` lists them)")
		return 2
	}
	s, err := openServices(ctx, cfg, log)
	if err != nil {
		fmt.Fprintln(stderr, "quire:", err)
		return 1
	}
	defer s.Close()
	evs, err := s.kernel().Events(ctx, o.session, o.from)
	if errors.Is(err, protocol.ErrNotFound) {
		fmt.Fprintf(stderr, "quire: %v (`quire sessions` lists them)\n", err)
		return 1
	}
	if err != nil {
		fmt.Fprintln(stderr, "quire:", err)
		return 1
	}
	enc := json.NewEncoder(stdout)
	for _, e := range protocol.Filter(evs, o.audience) {
		if o.json {
			enc.Encode(e)
			continue
		}
		run := ""
		if e.RunID != "" {
			run = " run=" + e.RunID
		}
		fmt.Fprintf(stdout, "%5d  %s  %-18s%s  %s\n", e.Seq, e.Time.Local().Format("2006-01-02 15:04:05.000"), e.Type, run, oneLine(e.Payload))
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
