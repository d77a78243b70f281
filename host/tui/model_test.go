package tui

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"quire/kernel/protocol"
)

func ev(session, typ string, payload any) Event {
	b, _ := json.Marshal(payload)
	return Event{Session: session, Type: typ, Visibility: protocol.Public, Payload: b}
}

func typed(s string) []Msg {
	var out []Msg
	for _, r := range s {
		out = append(out, Key{Text: string(r)})
	}
	return out
}

func TestUpdate(t *testing.T) {
	opened := Opened{ID: "s1", Title: "Plans"}
	q := protocol.Question{Session: "s1", RunID: "r1", Calls: []protocol.QuestionCall{{ID: "c1", Name: "create_note"}},
		Descriptions: []string{"Create plan.md:\n# Plan\nthe last line"}}
	asked := Print{"? Quire asks to:", "  │ Create plan.md:", "  │ # Plan", "  │ the last line"}
	other := q
	other.Session = "s2"
	change := &protocol.ChangeRecord{ID: "chg_1", Path: "plan.md", Session: "s1", Reverse: "Undo the change chg_1:\n- # Plan"}
	undoAsked := Print{"? Undo Quire's last change in this conversation:", "  │ Undo the change chg_1:", "  │ - # Plan"}
	enter := Key{Name: KeyEnter}
	ctrlC := Key{Name: KeyCtrlC}
	cat := func(parts ...[]Msg) []Msg {
		var out []Msg
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	cases := []struct {
		name  string
		msgs  []Msg // after opened
		want  []Action
		check func(t *testing.T, m Model)
	}{
		{"a message typed and sent", cat(typed("hi there"), []Msg{enter}), []Action{Send{"s1", "hi there"}}, func(t *testing.T, m Model) {
			if !m.Running || m.Input != "" {
				t.Errorf("after send: running %v, input %q", m.Running, m.Input)
			}
		}},
		{"backspace and escape edit the line", cat(typed("ab"), []Msg{Key{Name: KeyBackspace}}, typed("c")), nil, func(t *testing.T, m Model) {
			if m.Input != "ac" {
				t.Errorf("input %q", m.Input)
			}
		}},
		{"an empty line sends nothing", []Msg{Line("   ")}, nil, nil},
		// A paste longer than a message may be is refused in words, not
		// dropped without a sign; what was typed stays.
		{"a paste too long is refused in words", cat(typed("ab"), []Msg{Key{Text: strings.Repeat("y", maxInput)}}),
			[]Action{Print{fmt.Sprintf("! a message holds at most %d bytes, and this would make it %d: it was not added", maxInput, maxInput+2)}}, func(t *testing.T, m Model) {
				if m.Input != "ab" {
					t.Errorf("input %q", m.Input)
				}
			}},
		{"/new", []Msg{Line("/new")}, []Action{New{}}, nil},
		{"/sessions", []Msg{Line("/sessions")}, []Action{List{}}, nil},
		{"/switch ID", []Msg{Line("/switch abc")}, []Action{Switch{"abc"}}, nil},
		{"/switch without an id", []Msg{Line("/switch")}, []Action{Print{"! /switch needs a conversation's id: /sessions lists them"}}, nil},
		{"/undo looks up the last change, asking no model", []Msg{Line("/undo")}, []Action{FindUndo{"s1"}}, func(t *testing.T, m Model) {
			if m.Running {
				t.Error("/undo started a run")
			}
		}},
		{"/undo shows the whole reverse and asks", []Msg{Line("/undo"), UndoFound{change}}, []Action{undoAsked}, func(t *testing.T, m Model) {
			if m.Undoing == nil || View(m) != "Undo it? [y/n] " {
				t.Errorf("undoing %v, view %q", m.Undoing, View(m))
			}
		}},
		{"y undoes that change", []Msg{UndoFound{change}, Key{Text: "y"}}, []Action{UndoChange{"chg_1"}, Print{"  undoing…"}}, func(t *testing.T, m Model) {
			if m.Undoing != nil {
				t.Error("still asking")
			}
		}},
		{"n keeps it", []Msg{UndoFound{change}, Line("n")}, []Action{Print{"  kept: nothing was undone"}}, nil},
		{"another answer asks again", []Msg{UndoFound{change}, Line("maybe")}, []Action{Print{"(answer y or n)"}}, func(t *testing.T, m Model) {
			if m.Undoing == nil {
				t.Error("the undo question was dropped")
			}
		}},
		{"nothing to undo says so", []Msg{UndoFound{}}, []Action{Print{"Nothing to undo: Quire has no change standing in this conversation."}}, nil},
		{"an undo done says so", []Msg{UndoDone{Undone: []string{"chg_1"}}}, []Action{Print{"Undone: 1 change reverted; the note is as it was before."}}, nil},
		{"an undo refused gives the reason", []Msg{UndoDone{Refused: &protocol.UndoRefusal{ID: "chg_1", Reason: "plan.md changed after Quire wrote it."}}},
			[]Action{Print{"! Not undone: plan.md changed after Quire wrote it."}}, nil},
		{"/sessions lists no batch worker's session", []Msg{Listed{{ID: "s1", Title: "Plans"}, {ID: "w1", Title: "Organise inbox/a.md", Kind: protocol.SessionWorker}}},
			[]Action{Print{"Conversations (/switch ID opens one):", "* s1  " + time.Time{}.Local().Format("2006-01-02 15:04") + "  Plans"}}, nil},
		{"an unknown command", []Msg{Line("/frob it")}, []Action{Print{"! /frob is not a command; /help lists them"}}, nil},
		{"/quit", []Msg{Line("/quit")}, []Action{Quit{}}, nil},
		{"Ctrl-C stops the reply", []Msg{Line("go"), ctrlC}, []Action{Cancel{"s1"}, Print{"(stopping the reply; Ctrl-C again quits)"}}, nil},
		{"a second Ctrl-C quits", []Msg{Line("go"), ctrlC, ctrlC}, []Action{Quit{}}, nil},
		{"Ctrl-C with nothing to stop warns", []Msg{ctrlC}, []Action{Print{"(Ctrl-C again quits)"}}, nil},
		{"a key between two Ctrl-C disarms", []Msg{ctrlC, Key{Text: "x"}, ctrlC}, []Action{Print{"(Ctrl-C again quits)"}}, nil},
		{"a question is shown whole", []Msg{Questions{q}}, []Action{asked}, func(t *testing.T, m Model) {
			if m.Asking == nil || View(m) != "Allow? [y/n] " {
				t.Errorf("asking %v, view %q", m.Asking, View(m))
			}
			// What the terminal shows: the printed question, then the live
			// part under it: the prompt once, not in both.
			if n := strings.Count(printed(asked)+"\n"+View(m), "Allow?"); n != 1 {
				t.Errorf("Allow? is shown %d times", n)
			}
		}},
		{"y answers yes", []Msg{Questions{q}, Key{Text: "y"}}, []Action{Answer{"s1", []string{"c1"}, true}, Print{"  answered yes"}}, nil},
		{"n answers no", []Msg{Questions{q}, Line("n")}, []Action{Answer{"s1", []string{"c1"}, false}, Print{"  answered no"}}, nil},
		{"another key asks again", []Msg{Questions{q}, Key{Text: "x"}}, []Action{Print{"(answer y or n)"}}, func(t *testing.T, m Model) {
			if m.Asking == nil {
				t.Error("the question was dropped")
			}
		}},
		{"an answered question still listed is not asked again", []Msg{Questions{q}, Key{Text: "y"}, Questions{q}}, nil, func(t *testing.T, m Model) {
			if m.Asking != nil {
				t.Error("asked twice")
			}
		}},
		{"a question closed elsewhere is let go", []Msg{Questions{q}, Questions{}}, nil, func(t *testing.T, m Model) {
			if m.Asking != nil || View(m) != "> " {
				t.Errorf("asking %v, view %q", m.Asking, View(m))
			}
		}},
		{"another session's question is not asked", []Msg{Questions{other}}, nil, nil},
		{"the reply streams into the view", []Msg{ev("s1", "run.started", nil), ev("s1", "assistant.delta", map[string]string{"content": "Hel"}), ev("s1", "assistant.delta", map[string]string{"content": "lo"})}, nil,
			func(t *testing.T, m Model) {
				if View(m) != "quire › Hello\n> " {
					t.Errorf("view %q", View(m))
				}
			}},
		{"the whole reply is printed", []Msg{ev("s1", "assistant.delta", map[string]string{"content": "Hel"}), ev("s1", "assistant.message", map[string]string{"content": "Hello\nthere"})},
			[]Action{Print{"quire › Hello\n        there"}}, func(t *testing.T, m Model) {
				if m.Reply != "" {
					t.Errorf("reply %q kept", m.Reply)
				}
			}},
		{"the user's message", []Msg{ev("s1", "user.message", map[string]string{"text": "hi"})}, []Action{Print{"you › hi"}}, nil},
		{"a tool call is a line", []Msg{ev("s1", "tool.started", map[string]string{"name": "list_notes"})}, []Action{Print{"  · Listed the notes"}}, nil},
		{"a failed tool says so", []Msg{ev("s1", "tool.result", map[string]string{"name": "read_note", "status": "failure"})}, []Action{Print{"  · Read a note: failed"}}, nil},
		{"a successful tool adds nothing", []Msg{ev("s1", "tool.result", map[string]string{"name": "read_note", "status": "success"})}, nil, nil},
		{"a refusal gives its reason", []Msg{ev("s1", "tool.refused", map[string]string{"name": "create_note", "reason": "Denied by the user.\nmore"})}, []Action{Print{"  · Created a note: refused, Denied by the user."}}, nil},
		// The window says it once per conversation; so does the terminal
		// (issue 32: it never said it at all).
		{"a model without tools is said to be one", []Msg{
			ev("s1", "input.received", map[string]any{"caps": map[string]any{"model": "gemma3:1b", "toolsOff": "model", "withheld": []string{"read_note", "remember"}, "toolModels": []string{"qwen3:4b"}}}),
		}, []Action{Print{"! gemma3:1b cannot use tools, so in this chat Quire cannot read or change your notes or remember things for later. qwen3:4b can: choose it in Settings."}}, nil},
		{"and only once in a conversation", []Msg{
			ev("s1", "input.received", map[string]any{"caps": map[string]any{"model": "gemma3:1b", "toolsOff": "model"}}),
			ev("s1", "input.received", map[string]any{"caps": map[string]any{"model": "gemma3:1b", "toolsOff": "model"}}),
		}, nil, nil},
		{"tools left out to fit a small context are named", []Msg{
			ev("s1", "input.received", map[string]any{"caps": map[string]any{"model": "small:1b", "numCtx": 4096, "tools": []map[string]string{{"name": "move_note"}}, "leftOut": []string{"remember", "search_docs"}}}),
		}, []Action{Print{"! All of Quire's tools would not fit small:1b's context of 4,096 tokens, so this request offers the 1 it needs most and leaves out remember and search_docs. Ask for what those do by name, or choose a model with a larger context in Settings."}}, nil},
		{"a run that did not complete says why", []Msg{Line("go"), ev("s1", "run.finished", map[string]string{"reason": "cancelled"})}, []Action{Print{"(the reply ended: cancelled)"}}, func(t *testing.T, m Model) {
			if m.Running {
				t.Error("still running")
			}
		}},
		{"internal events are not shown", []Msg{Event{Session: "s1", Type: "user.message", Visibility: protocol.Internal, Payload: []byte(`{"text":"x"}`)}}, nil, nil},
		{"another session's events are not shown", []Msg{ev("s2", "user.message", map[string]string{"text": "hi"})}, nil, nil},
		{"a message the kernel refused ends the wait for its reply", []Msg{Line("go"), EOF{}, Failed{Err: errors.New("the disk is full"), Sent: true}},
			[]Action{Print{"! the disk is full"}, Quit{}}, func(t *testing.T, m Model) {
				if m.Running {
					t.Error("still running")
				}
			}},
		{"another failure leaves the reply going", []Msg{Line("go"), Failed{Err: errors.New("no list")}}, []Action{Print{"! no list"}}, func(t *testing.T, m Model) {
			if !m.Running {
				t.Error("the reply was forgotten")
			}
		}},
		{"the input's end quits at once when idle", []Msg{EOF{}}, []Action{Quit{}}, nil},
		{"the input's end waits for the reply", []Msg{Line("go"), EOF{}}, nil, nil},
		{"and quits when it has ended", []Msg{Line("go"), EOF{}, ev("s1", "run.finished", map[string]string{"reason": "completed"})}, []Action{Quit{}}, nil},
		{"the input's end answers an open question no, and says so", []Msg{Line("go"), Questions{q}, EOF{}},
			[]Action{Answer{"s1", []string{"c1"}, false}, Print{"  answered no: the input ended"}}, func(t *testing.T, m Model) {
				if m.Asking != nil {
					t.Error("the question is still open")
				}
			}},
		{"then quits when the reply has ended", []Msg{Line("go"), Questions{q}, EOF{}, ev("s1", "run.finished", map[string]string{"reason": "completed"})}, []Action{Quit{}}, nil},
		{"a question asked after the input's end is answered no", []Msg{Line("go"), EOF{}, Questions{q}},
			[]Action{Print{"? Quire asks to:", "  │ Create plan.md:", "  │ # Plan", "  │ the last line"}, Answer{"s1", []string{"c1"}, false}, Print{"  answered no: the input ended"}}, nil},
		{"the input's end keeps what /undo asked about, and quits", []Msg{UndoFound{Change: change}, EOF{}},
			[]Action{Print{"  kept: nothing was undone (the input ended)"}, Quit{}}, nil},
	}
	t.Run("a message before the conversation is open", func(t *testing.T) {
		m, acts := Update(Model{}, Line("hi"))
		if want := []Action{Print{"! the conversation is still opening; send that again in a moment"}}; !reflect.DeepEqual(acts, want) || m.Running {
			t.Errorf("actions %#v, running %v", acts, m.Running)
		}
	})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, acts := Update(Model{}, opened)
			if len(acts) != 1 || m.Session.ID != "s1" {
				t.Fatalf("opening: %v %+v", acts, m)
			}
			for _, msg := range tc.msgs {
				m, acts = Update(m, msg)
			}
			if !reflect.DeepEqual(acts, tc.want) && (len(acts) != 0 || len(tc.want) != 0) {
				t.Errorf("actions %#v, want %#v", acts, tc.want)
			}
			if tc.check != nil {
				tc.check(t, m)
			}
		})
	}
}
