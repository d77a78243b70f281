package httpapi_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"quire/doctor"
	"quire/host/httpapi"
	"quire/kernel/protocol"
	"quire/test/testkit"
)

// stubEvolution is a host.Evolution that records what the routes ask of
// it; the pipeline itself is tested in package evolve against the real log.
type stubEvolution struct {
	mu    sync.Mutex
	calls []string
}

func (s *stubEvolution) record(c string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, c)
}

func (s *stubEvolution) step(name, id string) (protocol.Candidate, error) {
	s.record(name + " " + id)
	switch id {
	case "c1", "":
		return protocol.Candidate{ID: "c1", Kind: protocol.CandidatePrompt, State: protocol.CandidateEvaluated}, nil
	case "fresh":
		return protocol.Candidate{}, protocol.Classify(protocol.ErrConflict, errors.New("evaluate the candidate before approving it"))
	}
	return protocol.Candidate{}, protocol.Classify(protocol.ErrNotFound, errors.New("no candidate has that id"))
}

func (s *stubEvolution) List(context.Context) (protocol.EvolutionState, error) {
	s.record("list")
	return protocol.EvolutionState{Candidates: []protocol.Candidate{{ID: "c1"}}, Learn: true}, nil
}
func (s *stubEvolution) Show(_ context.Context, id string) (protocol.CandidateDetail, error) {
	c, err := s.step("show", id)
	return protocol.CandidateDetail{Candidate: c}, err
}
func (s *stubEvolution) Propose(_ context.Context, d protocol.CandidateDraft) (protocol.Candidate, error) {
	s.record("propose " + d.Name)
	return protocol.Candidate{ID: "c2", Name: d.Name, State: protocol.CandidateProposed}, nil
}
func (s *stubEvolution) Evaluate(_ context.Context, id string) (protocol.EvaluationReport, error) {
	_, err := s.step("evaluate", id)
	return protocol.EvaluationReport{Candidate: id, Scenarios: []protocol.ScenarioResult{{Name: "normal-file-a-note"}}}, err
}
func (s *stubEvolution) job(name, id string) (protocol.EvaluationJob, error) {
	_, err := s.step(name, id)
	return protocol.EvaluationJob{Candidate: id, State: protocol.EvaluationRunning, Done: 1, Total: 3}, err
}
func (s *stubEvolution) StartEvaluation(_ context.Context, id string) (protocol.EvaluationJob, error) {
	return s.job("evaluate", id)
}
func (s *stubEvolution) Evaluation(_ context.Context, id string) (protocol.EvaluationJob, error) {
	return s.job("evaluation", id)
}
func (s *stubEvolution) CancelEvaluation(_ context.Context, id string) (protocol.EvaluationJob, error) {
	return s.job("cancel", id)
}
func (s *stubEvolution) WatchEvaluations(context.Context) <-chan protocol.EvaluationJob {
	s.record("watch")
	ch := make(chan protocol.EvaluationJob, 1)
	ch <- protocol.EvaluationJob{Candidate: "c1", State: protocol.EvaluationDone, Done: 3, Total: 3}
	close(ch)
	return ch
}
func (s *stubEvolution) RecordEvaluation(_ context.Context, r protocol.EvaluationReport) (protocol.Candidate, error) {
	return s.step("record", r.Candidate)
}
func (s *stubEvolution) Approve(_ context.Context, id string, a protocol.Approval) (protocol.Candidate, error) {
	return s.step("approve "+strings.Join(a.Accepted, "+"), id)
}
func (s *stubEvolution) Refuse(_ context.Context, id, reason string) (protocol.Candidate, error) {
	return s.step("refuse "+reason, id)
}
func (s *stubEvolution) Activate(_ context.Context, id string, a protocol.Activation) (protocol.Candidate, error) {
	return s.step("activate "+a.Scope, id)
}
func (s *stubEvolution) Rollback(_ context.Context, id string) (protocol.Candidate, error) {
	return s.step("rollback", id)
}
func (s *stubEvolution) SetLearning(_ context.Context, on bool) error {
	s.record("learning " + strconv.FormatBool(on))
	return nil
}
func (s *stubEvolution) Signals(_ context.Context, limit int) ([]protocol.EvolutionSignal, error) {
	s.record("signals " + strconv.Itoa(limit))
	return []protocol.EvolutionSignal{{Kind: protocol.SignalDenied, Text: "not there"}}, nil
}

// TestEvolutionRoutes: each route reaches its step with what the page sent,
// a draft with a field the shapes lack (a grant) is refused before it,
// and the port's refusals keep their status and sentence.
func TestEvolutionRoutes(t *testing.T) {
	e := &stubEvolution{}
	k := testkit.New(t)
	srv := start(t, httpapi.New(httpapi.Backend{Kernel: k.Runtime, Evolution: e,
		Doctor: func(context.Context) doctor.Report { return doctor.Report{OK: true} }},
		fstest.MapFS{"index.html": {Data: []byte("Quire")}}, slog.New(slog.DiscardHandler)))
	for _, tc := range []struct {
		op, body string
		status   int
		says     string
	}{
		{"Evolution.List", "", http.StatusOK, `"learn":true`},
		{"Evolution.Signals", "[5]", http.StatusOK, `"text":"not there"`},
		{"Evolution.Propose", `[{"name":"receipts","kind":"prompt","artifact":{"prompt":{"text":"Receipts go under finance/receipts."}}}]`, http.StatusOK, `"id":"c2"`},
		{"Evolution.Propose", `[{"name":"wider","kind":"prompt","artifact":{"prompt":{"text":"x"}},"grants":["move_note"]}]`, http.StatusBadRequest, "unknown field"},
		{"Evolution.Propose", `[{"name":"wider","kind":"skill","artifact":{"skill":{"skillMd":"x","tools":["move_note"]}}}]`, http.StatusBadRequest, "unknown field"},
		{"Evolution.Show", `["c1"]`, http.StatusOK, `"id":"c1"`},
		{"Evolution.Show", `["nope"]`, http.StatusNotFound, "no candidate"},
		{"Evolution.StartEvaluation", `["c1"]`, http.StatusOK, `"state":"running"`},
		{"Evolution.StartEvaluation", `["nope"]`, http.StatusNotFound, "no candidate"},
		{"Evolution.Evaluation", `["c1"]`, http.StatusOK, `"done":1,"total":3`},
		{"Evolution.CancelEvaluation", `["fresh"]`, http.StatusConflict, ""},
		{"Evolution.Approve", `["fresh",{}]`, http.StatusConflict, "evaluate the candidate"},
		{"Evolution.Approve", `["c1",{"accepted":["edge-a","edge-b"]}]`, http.StatusOK, `"state":"evaluated"`},
		{"Evolution.Approve", `["c1",{not json]`, http.StatusBadRequest, ""},
		{"Evolution.Approve", `["c1",{"acepted":["edge-a"]}]`, http.StatusBadRequest, "unknown field"},
		{"Evolution.Activate", `["c1",{"scope":"folder","grants":["move_note"]}]`, http.StatusBadRequest, "unknown field"},
		{"Evolution.Refuse", `["c1","x",1]`, http.StatusBadRequest, "Evolution.Refuse takes 2"},
		{"Evolution.Activate", `["c1",{"scope":"folder"}]`, http.StatusOK, ""},
		{"Evolution.Refuse", `["c1","too strict"]`, http.StatusOK, ""},
		{"Evolution.Rollback", `["c1"]`, http.StatusOK, ""},
		{"Evolution.Rollback", `[""]`, http.StatusOK, ""},
		{"Evolution.SetLearning", `[true]`, http.StatusNoContent, ""},
	} {
		status, body := srv.do(t, "POST", httpapi.OpPath+tc.op, tc.body)
		if status != tc.status || !strings.Contains(body, tc.says) {
			t.Errorf("%s %s: %d %s; want %d saying %q", tc.op, tc.body, status, body, tc.status, tc.says)
		}
	}
	if status, body := srv.do(t, "GET", "/api/evolution/evaluations", ""); status != http.StatusOK || !strings.Contains(body, "event: evaluation\ndata: {\"candidate\":\"c1\",\"state\":\"done\"") {
		t.Errorf("GET /api/evolution/evaluations: %d %s", status, body)
	}
	want := "list,signals 5,propose receipts,show c1,show nope,evaluate c1,evaluate nope,evaluation c1,cancel fresh,approve  fresh,approve edge-a+edge-b c1,activate folder c1,refuse too strict c1,rollback c1,rollback ,learning true,watch"
	if got := strings.Join(e.calls, ","); got != want {
		t.Errorf("the routes asked %s, want %s", got, want)
	}
}

// TestPartsMissingFromTheBackend: a server built without the task queue
// or the evolution part answers their streams 503 with a sentence, as a
// window without them does.
func TestPartsMissingFromTheBackend(t *testing.T) {
	k := testkit.New(t)
	srv := start(t, httpapi.New(httpapi.Backend{Kernel: k.Runtime,
		Doctor: func(context.Context) doctor.Report { return doctor.Report{OK: true} }},
		fstest.MapFS{"index.html": {Data: []byte("Quire")}}, slog.New(slog.DiscardHandler)))
	for _, path := range []string{"/api/batches/stream", "/api/evolution/evaluations"} {
		if status, body := srv.do(t, "GET", path, ""); status != http.StatusServiceUnavailable || !strings.Contains(body, "not available") {
			t.Errorf("GET %s without its part: %d %s", path, status, body)
		}
	}
}
