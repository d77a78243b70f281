package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"quire/host"
	"quire/kernel/protocol"
)

// jobEvolution is a host.Evolution whose evaluation job sends the states
// it is given and records a cancel.
type jobEvolution struct {
	host.Evolution
	states    []protocol.EvaluationJob
	cancelled chan string
	w         chan protocol.EvaluationJob
}

func (j *jobEvolution) WatchEvaluations(context.Context) <-chan protocol.EvaluationJob { return j.w }

func (j *jobEvolution) StartEvaluation(_ context.Context, id string) (protocol.EvaluationJob, error) {
	go func() {
		for _, s := range j.states {
			j.w <- s
		}
	}()
	return protocol.EvaluationJob{Candidate: id, State: protocol.EvaluationRunning}, nil
}

func (j *jobEvolution) CancelEvaluation(_ context.Context, id string) (protocol.EvaluationJob, error) {
	j.cancelled <- id
	return protocol.EvaluationJob{Candidate: id, State: protocol.EvaluationRunning}, nil
}

// TestEvolveEvalPrintsProgress: `quire evolve eval ID` prints a line as
// each scenario ends (not one for a job's other changes, nor another
// candidate's), then the report; Ctrl-C cancels the job and says nothing
// was recorded; a job that fails says why.
func TestEvolveEvalPrintsProgress(t *testing.T) {
	report := &protocol.EvaluationReport{Candidate: "c1", Scenarios: []protocol.ScenarioResult{
		{Name: "files-receipts", Without: protocol.ScenarioRun{Passed: true}, With: protocol.ScenarioRun{Passed: false}},
		{Name: "edge-mcp-stdio", Skipped: "it needs a stdio MCP server"}}}
	run := func(id string) protocol.EvaluationJob {
		return protocol.EvaluationJob{Candidate: id, State: protocol.EvaluationRunning}
	}
	at := func(j protocol.EvaluationJob, done, total int, sc string) protocol.EvaluationJob {
		j.Done, j.Total, j.Scenario = done, total, sc
		return j
	}
	done := at(run("c1"), 2, 2, "files-receipts")
	done.State, done.Report = protocol.EvaluationDone, report
	failed := at(run("c1"), 1, 2, "a")
	failed.State, failed.Error = protocol.EvaluationFailed, "the evaluation did not run every scenario"
	for _, tc := range []struct {
		name    string
		states  []protocol.EvaluationJob
		hold    bool
		wantErr string
		want    []string
		not     []string
	}{
		{"to its end", []protocol.EvaluationJob{at(run("c1"), 0, 2, ""), at(run("other"), 1, 9, "theirs"), at(run("c1"), 1, 2, "normal-file-a-note"), done}, false, "",
			[]string{"  1 of 2: normal-file-a-note\n", "  2 of 2: files-receipts\n", "! files-receipts", "- edge-mcp-stdio: skipped, it needs a stdio MCP server\n"}, []string{"theirs", "0 of 2"}},
		{"failed", []protocol.EvaluationJob{failed}, false, "did not run every scenario", []string{"  1 of 2: a\n"}, nil},
		{"cancelled with ctrl-c", nil, true, context.Canceled.Error(), []string{"  1 of 2: a\n", "Cancelled: nothing was recorded."}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := &jobEvolution{states: tc.states, cancelled: make(chan string, 1), w: make(chan protocol.EvaluationJob)}
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			var out bytes.Buffer
			errc := make(chan error, 1)
			go func() { errc <- evaluate(ctx, e, "c1", &out) }()
			if tc.hold {
				// The last state sent is the progress line; then Ctrl-C.
				e.w <- at(run("c1"), 1, 2, "a")
				cancel()
			}
			err := <-errc
			if tc.hold {
				if id := <-e.cancelled; id != "c1" {
					t.Errorf("cancelled %q", id)
				}
			}
			if (tc.wantErr == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want %q", err, tc.wantErr)
			}
			for _, w := range tc.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, out.String())
				}
			}
			for _, n := range tc.not {
				if strings.Contains(out.String(), n) {
					t.Errorf("output has %q:\n%s", n, out.String())
				}
			}
		})
	}
}
