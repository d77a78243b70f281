package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"testing"
	"testing/fstest"

	"quire/doctor"
	"quire/host/httpapi"
	"quire/kernel/protocol"
	"quire/test/testkit"
)

// calls is an inspector's back end with one session of two calls; it
// records the run a list was asked for.
type calls struct{ run string }

var requestBytes = []byte("{\"model\":\"qwen3:4b\",  \"messages\":[]}\n")

func (c *calls) Calls(_ context.Context, session, run string) (protocol.CallList, error) {
	if session != "s1" {
		return protocol.CallList{}, protocol.Classify(protocol.ErrNotFound, fmt.Errorf("no such session %q", session))
	}
	c.run = run
	return protocol.CallList{Calls: []protocol.CallSummary{{N: 1, RunID: "r1"}, {N: 2, RunID: "r1"}}, Total: 2}, nil
}

func (c *calls) Call(_ context.Context, session string, n int) (protocol.Call, error) {
	if session != "s1" || n > 2 {
		return protocol.Call{}, protocol.Classify(protocol.ErrNotFound, fmt.Errorf("the conversation has no such step: %d", n))
	}
	return protocol.Call{Summary: protocol.CallSummary{N: n}, RequestBytes: len(requestBytes)}, nil
}

func (c *calls) Request(_ context.Context, session string, n int) ([]byte, error) {
	if _, err := c.Call(context.Background(), session, n); err != nil {
		return nil, err
	}
	return requestBytes, nil
}

// TestCallRoutes: the inspector's routes answer with the port's list and
// call, hand the exact request's bytes on untouched (not re-encoded: the
// page's copy must equal `quire replay -request N`), and refuse a bad
// number, an unknown call and a Quire without the port in words.
func TestCallRoutes(t *testing.T) {
	k := testkit.New(t)
	back := &calls{}
	assets := fstest.MapFS{"index.html": {Data: []byte("<title>Quire</title>")}}
	doc := func(context.Context) doctor.Report { return doctor.Report{OK: true} }
	with := start(t, httpapi.New(httpapi.Backend{Kernel: k.Runtime, Doctor: doc, Calls: back}, assets, slog.New(slog.DiscardHandler)))
	without := start(t, httpapi.New(httpapi.Backend{Kernel: k.Runtime, Doctor: doc}, assets, slog.New(slog.DiscardHandler)))

	status, body := with.do(t, "POST", httpapi.OpPath+"Calls.Calls", `["s1","r1"]`)
	var list protocol.CallList
	if status != 200 || json.Unmarshal([]byte(body), &list) != nil || len(list.Calls) != 2 || back.run != "r1" {
		t.Fatalf("list: %d %s (run %q)", status, body, back.run)
	}
	status, body = with.do(t, "POST", httpapi.OpPath+"Calls.Call", `["s1",2]`)
	var call protocol.Call
	if status != 200 || json.Unmarshal([]byte(body), &call) != nil || call.Summary.N != 2 || call.RequestBytes != len(requestBytes) {
		t.Fatalf("call 2: %d %s", status, body)
	}
	// The request's bytes come as one JSON string, so they read as text.
	var req string
	if status, body = with.do(t, "POST", httpapi.OpPath+"Calls.Request", `["s1",2]`); status != 200 || json.Unmarshal([]byte(body), &req) != nil || req != string(requestBytes) {
		t.Fatalf("request 2: %d %q, want the port's bytes %q", status, body, requestBytes)
	}
	tests := []struct {
		name     string
		c        client
		op, args string
		status   int
	}{
		{"no such session", with, "Calls.Calls", `["nope",""]`, 404},
		{"no such call", with, "Calls.Call", `["s1",3]`, 404},
		{"no such request", with, "Calls.Request", `["s1",3]`, 404},
		{"not a number", with, "Calls.Request", `["s1","two"]`, 400},
		{"no inspector", without, "Calls.Calls", `["s1",""]`, 503},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, body := tc.c.do(t, "POST", httpapi.OpPath+tc.op, tc.args)
			var e struct{ Error string }
			if status != tc.status || json.Unmarshal([]byte(body), &e) != nil || e.Error == "" {
				t.Fatalf("%s %s: %d %s, want %d with a sentence", tc.op, tc.args, status, body, tc.status)
			}
		})
	}
}
