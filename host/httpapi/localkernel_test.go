package httpapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"quire/doctor"
	"quire/host"
	"quire/host/httpapi"
	"quire/kernel/event"
	"quire/kernel/protocol"
	"quire/kernel/runtime"
	"quire/test/ollamatest"
	"quire/test/testkit"
)

// terminalOwner is a real kernel served on a Unix socket as an owner serves
// its local channel, asking as the composition root does: a claimed
// session's questions go to its claim, the rest to "the window" (which
// here only counts them and leaves them to the deadline).
type terminalOwner struct {
	k       *testkit.Kernel
	local   *httpapi.Local
	claims  *host.Claims
	windows *atomic.Int32
	create  *createNote
}

func serveTerminalOwner(t *testing.T) terminalOwner {
	t.Helper()
	o := terminalOwner{claims: &host.Claims{}, windows: &atomic.Int32{}, create: &createNote{}}
	var kernel atomic.Pointer[runtime.Runtime]
	o.k = testkit.New(t, runtime.WithTools(tools{o.create}), runtime.WithAsker(func(ctx context.Context, q runtime.Question) (runtime.Answer, error) {
		pq := protocol.Question{Session: q.Session, RunID: q.RunID, Descriptions: q.Descriptions}
		for _, c := range q.Calls {
			pq.Calls = append(pq.Calls, protocol.QuestionCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments})
		}
		if cl := o.claims.Holder(q.Session); cl != nil {
			a, err := cl.Ask(ctx, kernel.Load(), pq)
			return runtime.Answer{Allowed: a.Allowed, Feedback: a.Feedback}, err
		}
		o.windows.Add(1)
		<-ctx.Done()
		return runtime.Answer{}, context.Cause(ctx)
	}))
	kernel.Store(o.k.Runtime)
	sock := filepath.Join(t.TempDir(), "quire.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	b := httpapi.Backend{Kernel: o.k.Runtime, Claims: o.claims, Doctor: func(context.Context) doctor.Report { return doctor.Report{OK: true} }}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- httpapi.ServeSocket(ctx, ln, b, slog.New(slog.DiscardHandler)) }()
	o.local = httpapi.DialLocal(sock)
	t.Cleanup(func() {
		o.local.Close()
		cancel()
		if err := <-done; err != nil {
			t.Errorf("ServeSocket: %v", err)
		}
	})
	return o
}

// untilFinished follows the session over the local channel until its run
// ends and returns what it read.
func untilFinished(t *testing.T, k protocol.Kernel, session string) []protocol.Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), testkit.Patience)
	defer cancel()
	evs, errp := k.Follow(ctx, session, 0)
	var got []protocol.Event
	for e := range evs {
		got = append(got, e)
		if e.Type == "run.finished" {
			return got
		}
	}
	t.Fatalf("the run did not finish: %v; read %d events", errp(), len(got))
	return nil
}

// A terminal drives a conversation through the owner's local channel: its
// kernel there is the owner's (commands, events, Follow with no gap and no
// duplicate), and the questions of a session it claimed come to it whole —
// never to the window — and its answer decides; a client that goes away
// leaves a No with the reason, never a question hanging; a second claim
// of the session is refused.
func TestATerminalDrivesTheOwnerThroughTheLocalChannel(t *testing.T) {
	text := strings.Repeat("a line of the plan\n", 20) + "the last line"
	args, _ := json.Marshal(map[string]string{"path": "plan.md", "text": text})
	cases := []struct {
		name    string
		answer  func(t *testing.T, k protocol.Kernel, session string, q protocol.Question, leave context.CancelFunc)
		runs    int32
		allowed bool
		reason  string
	}{
		{"answered yes in the terminal", func(t *testing.T, k protocol.Kernel, session string, q protocol.Question, _ context.CancelFunc) {
			if _, err := protocol.Run[struct{}](t.Context(), k, "", protocol.AnswerAsk, protocol.AnswerPayload{Session: session, CallIDs: []string{q.Calls[0].ID}, Allowed: true}); err != nil {
				t.Fatal(err)
			}
		}, 1, true, ""},
		{"answered no in the terminal", func(t *testing.T, k protocol.Kernel, session string, q protocol.Question, _ context.CancelFunc) {
			if _, err := protocol.Run[struct{}](t.Context(), k, "", protocol.AnswerAsk, protocol.AnswerPayload{Session: session, CallIDs: []string{q.Calls[0].ID}, Feedback: "not now"}); err != nil {
				t.Fatal(err)
			}
		}, 0, false, "not now"},
		{"the terminal went away", func(_ *testing.T, _ protocol.Kernel, _ string, _ protocol.Question, leave context.CancelFunc) {
			leave()
		}, 0, false, host.ClientGone},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := serveTerminalOwner(t)
			o.k.Ollama.Script(ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{ID: "c1", Name: "create_note", Arguments: args}}},
				ollamatest.Turn{Content: []string{"done"}})
			k := o.local.Kernel()
			s, err := protocol.Run[protocol.Session](t.Context(), k, "", protocol.CreateSession, protocol.CreateSessionPayload{Title: "plan"})
			if err != nil {
				t.Fatal(err)
			}
			cctx, leave := context.WithCancel(t.Context())
			defer leave()
			questions, err := o.local.Claim(cctx, s.ID)
			if err != nil {
				t.Fatal(err)
			}
			if list := <-questions; len(list) != 0 {
				t.Fatalf("questions before any was asked: %+v", list)
			}
			var owner *httpapi.OwnerError
			if _, err := o.local.Claim(t.Context(), s.ID); !errors.As(err, &owner) || !errors.Is(err, protocol.ErrConflict) || !strings.Contains(owner.Msg, "already driving") {
				t.Fatalf("a second claim of the session: %v", err)
			}
			if _, err := protocol.Run[protocol.SendResult](t.Context(), k, "", protocol.SendMessage, protocol.SendMessagePayload{Session: s.ID, Text: "write my plan"}); err != nil {
				t.Fatal(err)
			}
			list := <-questions
			if len(list) != 1 || list[0].Session != s.ID || len(list[0].Calls) != 1 || list[0].Calls[0].ID != "c1" ||
				len(list[0].Descriptions) != 1 || list[0].Descriptions[0] != "Create plan.md:\n"+text {
				t.Fatalf("the terminal's question: %+v", list)
			}
			tc.answer(t, k, s.ID, list[0], leave)
			got := untilFinished(t, k, s.ID)
			if n := o.windows.Load(); n != 0 {
				t.Errorf("the window was asked %d times about a claimed session", n)
			}
			if n := o.create.runs.Load(); n != tc.runs {
				t.Errorf("the write ran %d times, want %d", n, tc.runs)
			}
			var answered event.PermissionAnsweredPayload
			for _, e := range got {
				if e.Type == "permission.answered" {
					json.Unmarshal(e.Payload, &answered)
				}
			}
			if answered.Allowed != tc.allowed || answered.Feedback != tc.reason || answered.ByDefault {
				t.Errorf("the answer in the log: %+v", answered)
			}
			// Follow gave what Events gives, public only, once each and in order.
			stored, err := k.Events(t.Context(), s.ID, 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(stored) < len(got) {
				t.Fatalf("Events has %d, Follow gave %d", len(stored), len(got))
			}
			for i, e := range got {
				if e.Seq != stored[i].Seq || e.Type != stored[i].Type || e.Visibility != protocol.Public {
					t.Fatalf("Follow's event %d is %d %s, Events' %d %s", i, e.Seq, e.Type, stored[i].Seq, stored[i].Type)
				}
			}
		})
	}
}
