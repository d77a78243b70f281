package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"quire/config"
	"quire/kernel/protocol"
	"quire/kernel/provider/ollama"
)

type replayOptions struct {
	session  string
	from     int64
	json     bool
	audience protocol.Audience
	request  int
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
	if o.request > 0 {
		return printRequest(ctx, s, o, stdout, stderr)
	}
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

// printRequest prints the request of the session's nth model call, rebuilt
// from the log alone, as the JSON body sent to Ollama (canonical: keys
// sorted), so it can be compared with what the server received.
func printRequest(ctx context.Context, s *services, o replayOptions, stdout, stderr io.Writer) int {
	if s.runtime == nil {
		fmt.Fprintln(stderr, "quire: Quire's database could not be opened:", s.DBErr)
		return 1
	}
	req, err := s.runtime.Request(ctx, o.session, o.request)
	if err != nil {
		fmt.Fprintln(stderr, "quire:", err)
		return 1
	}
	body, err := ollama.RequestJSON(req)
	if err == nil {
		body, err = canonicalJSON(body)
	}
	if err != nil {
		fmt.Fprintln(stderr, "quire:", err)
		return 1
	}
	stdout.Write(append(body, '\n'))
	return 0
}

// canonicalJSON re-encodes JSON with object keys sorted.
func canonicalJSON(b []byte) ([]byte, error) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return json.Marshal(v)
}
