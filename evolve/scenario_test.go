package evolve_test

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"quire/assembly"
	"quire/eval"
	"quire/evolve"
	"quire/kernel/protocol"
)

// snapshotFolder is every file under dir with its size and modification
// time, to see that nothing touched it.
func snapshotFolder(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		out[p] = fmt.Sprintf("%d %d", info.Size(), info.ModTime().UnixNano())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestReceiptsScenario is issue 20's "done when" with the scripted model:
// in three conversations the user corrects where a receipt was filed; the
// observer records each correction with its seqs; after the third the
// model (learning allowed) proposes a fragment whose origin is those runs;
// the root's isolated evaluation runs (a scenario and the replays of the
// three runs, never the user's notes) and its report is recorded; the user
// approves and activates it for this notes folder; the next run's request carries it — as sent, and as `quire
// replay -request` rebuilds it from the log; after the rollback the next
// request does not, while the old one still replays with it.
func TestReceiptsScenario(t *testing.T) {
	files := map[string]string{"receipts/.keep": "", "finance/receipts/2026/.keep": ""}
	for i := 1; i <= 4; i++ {
		files[fmt.Sprintf("inbox/receipt-%d.md", i)] = "# Receipt\n"
	}
	r := newRig(t, files, true)
	fake := r.k.Ollama
	const rule = "Receipts are filed under finance/receipts/YYYY, never under receipts/."

	var runs []protocol.RunRef
	for i := 1; i <= 3; i++ {
		s := r.chat(t)
		note := fmt.Sprintf("receipt-%d.md", i)
		fake.Script(
			calling(fmt.Sprintf("m%d-1", i), "move_note", fmt.Sprintf(`{"from":"inbox/%s","to":"receipts/%s"}`, note, note)), saying("Filed."),
			calling(fmt.Sprintf("m%d-2", i), "move_note", fmt.Sprintf(`{"from":"receipts/%s","to":"finance/receipts/2026/%s"}`, note, note)), saying("Moved."))
		r.say(t, s, "file inbox/"+note)
		if got := r.signals(t, s); len(got) != 0 {
			t.Fatalf("conversation %d: the first run, with nothing to correct, gave signals %+v", i, got)
		}
		if i == 3 {
			fake.Script(saying(`{"name": "Where receipts go", "text": "` + rule + `", "signals": [1, 2, 3]}`))
		}
		run := r.say(t, s, "No, receipts go under finance/receipts/2026")
		got := r.signals(t, s)
		if len(got) != 1 || got[0].Kind != protocol.SignalCorrection || got[0].Tool != "move_note" || len(got[0].Seqs) != 2 ||
			!strings.Contains(got[0].Text, "finance/receipts/2026") {
			t.Fatalf("conversation %d: signals %+v, want the one correction of the move", i, got)
		}
		runs = append(runs, protocol.RunRef{Session: s, Run: run})
		if !exists(t, filepath.Join(r.notes, "finance/receipts/2026", note)) {
			t.Fatalf("conversation %d: the note was not moved where the user said", i)
		}
	}
	if fake.Pending() != 0 {
		t.Fatalf("%d scripted turns were never asked for: the model was not asked for a candidate", fake.Pending())
	}

	st, err := r.evo.List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Candidates) != 1 || len(st.Signals) != 3 {
		t.Fatalf("%d candidates and %d signals, want the model's one from the three corrections", len(st.Candidates), len(st.Signals))
	}
	c := st.Candidates[0]
	if c.Author != protocol.AuthorModel || c.Kind != protocol.CandidatePrompt || c.State != protocol.CandidateProposed || c.Version != 1 ||
		c.Artifact.Prompt == nil || c.Artifact.Prompt.Text != rule {
		t.Fatalf("candidate %+v", c)
	}
	slices.SortFunc(runs, func(a, b protocol.RunRef) int { return strings.Compare(a.Session+a.Run, b.Session+b.Run) })
	origin := slices.Clone(c.Origin.Runs)
	slices.SortFunc(origin, func(a, b protocol.RunRef) int { return strings.Compare(a.Session+a.Run, b.Session+b.Run) })
	if !slices.Equal(origin, runs) || len(c.Origin.Signals) != 3 {
		t.Fatalf("origin %+v, want the three correcting runs %+v and their signals", c.Origin, runs)
	}
	detail, err := r.evo.Show(t.Context(), c.ID)
	if err != nil || len(detail.Evidence) != 3 || detail.Active != nil {
		t.Fatalf("show: %+v, %v", detail, err)
	}

	// Not approvable before its evaluation.
	if _, err := r.evo.Approve(t.Context(), c.ID, protocol.Approval{}); !errors.Is(err, evolve.ErrState) || !errors.Is(err, protocol.ErrConflict) {
		t.Fatalf("approved with no evaluation: %v", err)
	}
	// The isolated evaluation, as the window and `quire evolve eval` run
	// it: the root's evaluator over an eval scenario and the replays of the
	// three runs the candidate came from, each in temporary folders.
	set, err := os.ReadFile(filepath.Join("..", "evals", "normal-file-a-note.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	before := snapshotFolder(t, r.notes)
	ev := assembly.NewEvaluator(slog.New(slog.DiscardHandler), fstest.MapFS{"normal-file-a-note.yaml": {Data: set}}, r.k.Runtime, eval.CompareOptions{})
	report, err := ev.Evaluate(t.Context(), c, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	replays := 0
	for _, sc := range report.Scenarios {
		if sc.Replay != nil {
			replays++
		}
	}
	if report.Candidate != c.ID || replays != 3 || len(report.Scenarios) != 4 {
		t.Fatalf("the evaluation ran %d scenarios, %d of them replays of the origin runs, want the scenario and the three: %+v", len(report.Scenarios), replays, report)
	}
	if after := snapshotFolder(t, r.notes); !maps.Equal(before, after) {
		t.Fatalf("the evaluation touched the user's notes:\nbefore %v\nafter  %v", before, after)
	}
	if _, err := r.evo.RecordEvaluation(t.Context(), report); err != nil {
		t.Fatal(err)
	}
	if c, err = r.evo.Approve(t.Context(), c.ID, protocol.Approval{Accepted: report.Regressions()}); err != nil || c.State != protocol.CandidateApproved {
		t.Fatalf("approve: %+v, %v", c, err)
	}
	// Approved is not active: a run now would not see it.
	if on, _ := r.evo.Active(t.Context()); len(on) != 0 {
		t.Fatalf("active before its activation: %+v", on)
	}
	if c, err = r.evo.Activate(t.Context(), c.ID, protocol.Activation{Scope: protocol.ScopeFolder}); err != nil || c.State != protocol.CandidateActive || c.Folder != r.notes {
		t.Fatalf("activate: %+v, %v", c, err)
	}

	with := r.chat(t)
	fake.Script(saying("I will file it under finance/receipts/2026."))
	r.say(t, with, "file inbox/receipt-4.md")
	n := len(fake.Requests())
	if s := sent(t, fake, n); !strings.Contains(s, rule) || !strings.Contains(s, c.ID) {
		t.Fatalf("the run after the activation was not sent the fragment:\n%s", s)
	}
	if s := r.replayed(t, with, 1); !strings.Contains(s, rule) || s != sent(t, fake, n) {
		t.Fatalf("the replayed request is not the one sent with the fragment:\nreplayed %q\nsent     %q", s, sent(t, fake, n))
	}
	if d, err := r.evo.Show(t.Context(), c.ID); err != nil || d.Candidate.Monitor.Runs != 1 {
		t.Fatalf("monitor after one run with it: %+v, %v", d.Candidate.Monitor, err)
	}

	if c, err = r.evo.Rollback(t.Context(), ""); err != nil || c.State != protocol.CandidateRolledBack {
		t.Fatalf("rollback: %+v, %v", c, err)
	}
	without := r.chat(t)
	fake.Script(saying("Where should it go?"))
	r.say(t, without, "file inbox/receipt-4.md")
	if s := sent(t, fake, len(fake.Requests())); strings.Contains(s, rule) {
		t.Fatalf("the run after the rollback was still sent the fragment:\n%s", s)
	}
	if s := r.replayed(t, without, 1); strings.Contains(s, rule) {
		t.Fatal("the replay of the run after the rollback has the fragment")
	}
	if s := r.replayed(t, with, 1); !strings.Contains(s, rule) {
		t.Fatal("after the rollback, the replay of the run made with the fragment lost it")
	}
	if d, err := r.evo.Show(t.Context(), c.ID); err != nil || d.Candidate.Monitor.Runs != 1 {
		t.Fatalf("monitor after the rollback: %+v, %v", d.Candidate.Monitor, err)
	}
}
