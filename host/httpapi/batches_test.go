package httpapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"quire/doctor"
	"quire/host/httpapi"
	"quire/kernel/protocol"
	"quire/test/testkit"
)

// stubBatches is a host.Batches that records what the routes ask of it;
// the queue itself is tested in package queue against the real kernel.
type stubBatches struct {
	mu    sync.Mutex
	calls []string
}

func (s *stubBatches) record(c string) protocol.Batch {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, c)
	return protocol.Batch{ID: "batch_1", Folder: "inbox", State: protocol.BatchRunning}
}

var errStub = errors.New("the batch is done")

func (s *stubBatches) Start(_ context.Context, folder string) (protocol.Batch, error) {
	b := s.record("start " + folder)
	if folder == "missing" {
		return b, protocol.Classify(protocol.ErrBadPayload, errors.New(`"missing" does not exist`))
	}
	return b, nil
}
func (s *stubBatches) List(context.Context) ([]protocol.Batch, error) {
	return []protocol.Batch{s.record("list")}, nil
}
func (s *stubBatches) Get(_ context.Context, id string) (protocol.BatchReview, error) {
	b := s.record("get " + id)
	if id != "batch_1" {
		return protocol.BatchReview{}, protocol.Classify(protocol.ErrNotFound, errors.New("no batch has that id"))
	}
	return protocol.BatchReview{Batch: b, Items: []protocol.ReviewItem{{Task: "t1", From: "inbox/a.md", To: "p/a.md", Selected: true}}}, nil
}
func (s *stubBatches) act(name, id string) (protocol.Batch, error) {
	b := s.record(name + " " + id)
	if id == "done" {
		return b, protocol.Classify(protocol.ErrConflict, errStub)
	}
	return b, nil
}
func (s *stubBatches) Pause(_ context.Context, id string) (protocol.Batch, error) {
	return s.act("pause", id)
}
func (s *stubBatches) Resume(_ context.Context, id string) (protocol.Batch, error) {
	return s.act("resume", id)
}
func (s *stubBatches) Cancel(_ context.Context, id string) (protocol.Batch, error) {
	return s.act("cancel", id)
}
func (s *stubBatches) Undo(_ context.Context, id string) (protocol.Batch, error) {
	return s.act("undo", id)
}
func (s *stubBatches) Apply(_ context.Context, id string, d protocol.BatchDecision) (protocol.Batch, error) {
	var picked []string
	for _, it := range d.Items {
		if it.Selected {
			picked = append(picked, it.From+">"+it.To)
		}
	}
	return s.act("apply "+strings.Join(picked, ","), id)
}
func (s *stubBatches) Watch(ctx context.Context) <-chan protocol.BatchProgress {
	ch := make(chan protocol.BatchProgress, 1)
	ch <- protocol.BatchProgress{Batch: s.record("watch")}
	close(ch)
	return ch
}

func TestBatchRoutes(t *testing.T) {
	b := &stubBatches{}
	k := testkit.New(t)
	srv := start(t, httpapi.New(httpapi.Backend{Kernel: k.Runtime, Batches: b,
		Doctor: func(context.Context) doctor.Report { return doctor.Report{OK: true} }},
		fstest.MapFS{"index.html": {Data: []byte("Quire")}}, slog.New(slog.DiscardHandler)))
	for _, tc := range []struct {
		op, body string
		status   int
		says     string
	}{
		{"Batches.Start", `["inbox"]`, http.StatusOK, `"id":"batch_1"`},
		{"Batches.Start", `["missing"]`, http.StatusBadRequest, "does not exist"},
		{"Batches.Start", `{not json`, http.StatusBadRequest, ""},
		{"Batches.List", "", http.StatusOK, `[{"id":"batch_1"`},
		{"Batches.Get", `["batch_1"]`, http.StatusOK, `"from":"inbox/a.md"`},
		{"Batches.Get", `["nope"]`, http.StatusNotFound, "no batch"},
		{"Batches.Pause", `["batch_1"]`, http.StatusOK, `"state":"running"`},
		{"Batches.Resume", `["batch_1"]`, http.StatusOK, ""},
		{"Batches.Cancel", `["done"]`, http.StatusConflict, "the batch is done"},
		{"Batches.Apply", `["batch_1",{"items":[{"task":"t1","from":"inbox/a.md","to":"x/a.md","selected":true},{"task":"t2","from":"inbox/b.md","selected":false}]}]`, http.StatusOK, ""},
		{"Batches.Undo", `["batch_1"]`, http.StatusOK, ""},
	} {
		status, body := srv.do(t, "POST", httpapi.OpPath+tc.op, tc.body)
		if status != tc.status || !strings.Contains(body, tc.says) {
			t.Errorf("%s %s: %d %s; want %d saying %q", tc.op, tc.body, status, body, tc.status, tc.says)
		}
	}
	want := "start inbox,start missing,list,get batch_1,get nope,pause batch_1,resume batch_1,cancel done,apply inbox/a.md>x/a.md batch_1,undo batch_1"
	if got := strings.Join(b.calls, ","); got != want {
		t.Errorf("the routes asked %s, want %s", got, want)
	}
	status, body := srv.do(t, "GET", "/api/batches/stream", "")
	var p protocol.BatchProgress
	_, data, _ := strings.Cut(body, "data: ")
	data, _, _ = strings.Cut(data, "\n")
	if status != http.StatusOK || !strings.Contains(body, "event: batch") || json.Unmarshal([]byte(data), &p) != nil || p.Batch.ID != "batch_1" {
		t.Errorf("GET /api/batches/stream: %d %q", status, body)
	}
}
