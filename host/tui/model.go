// Package tui is `quire chat`: a conversation in the terminal on the data
// folder's kernel (the running window's or `quire serve`'s, through its
// local channel, or this process's own), with streamed replies, tool
// calls as compact lines, permission questions answered y/n with the whole
// description the window shows, Ctrl-C to stop a reply (a second quits),
// and /new, /sessions, /switch ID, /undo.
//
// The conversation is a pure Update(Model, Msg) -> (Model, []Action) over
// plain data (model.go), tested as a table; program.go runs it, under
// bubbletea in a terminal or line by line when stdout is not one, and
// carries out its Actions against a host.Driver.
//
// It speaks kernel/protocol and the ports of package host, like every
// host. It must never import kernel/store, kernel/runtime, kernel/core, a
// provider, rag, library, memory, Wails or the composition root.
package tui

import (
	"fmt"
	"slices"
	"strings"

	"quire/host"
	"quire/kernel/protocol"
)

// Msg is what Update takes: one of the types below.
type Msg any

// Inputs from the user.
type (
	// Key is one key press: printable text, or one of the named keys.
	Key struct {
		Text string
		Name KeyName
	}
	// Line is a whole line typed (line mode, or a paste ending in Enter).
	Line string
	// EOF: the input ended (line mode); quit once the reply has ended.
	EOF struct{}
)

// KeyName names the keys that are not text.
type KeyName int

const (
	KeyText KeyName = iota
	KeyEnter
	KeyBackspace
	KeyCtrlC
	KeyEscape
)

// Inputs from the kernel, through the program.
type (
	// Event is one event of the session shown.
	Event protocol.Event
	// Questions are the session's open permission questions (whole list).
	Questions []protocol.Question
	// Opened: the session shown is now this one (after /new, /switch or the start).
	Opened protocol.Session
	// Listed answers /sessions.
	Listed []protocol.Session
	// Failed: an action did not work; said to the user. Sent: it was a
	// message, so no run is going for it.
	Failed struct {
		Err  error
		Sent bool
	}
	// UndoFound answers /undo: the conversation's last change still
	// standing, or nil when there is none.
	UndoFound struct{ Change *protocol.ChangeRecord }
	// UndoDone is what the undo the user said yes to did.
	UndoDone protocol.UndoOutcome
)

// Action is what Update asks the program to do: one of the types below.
type Action any

type (
	// Print writes lines above the live part (they stay in the scrollback).
	Print []string
	// Send sends text as the user's message in the session.
	Send struct{ Session, Text string }
	// Cancel stops the session's run.
	Cancel struct{ Session string }
	// Answer answers a permission question.
	Answer struct {
		Session string
		CallIDs []string
		Allowed bool
	}
	// New starts a conversation; Switch opens one; List lists them.
	New    struct{}
	Switch struct{ ID string }
	List   struct{}
	// FindUndo looks up the session's last change still standing (/undo).
	FindUndo struct{ Session string }
	// UndoChange reverts one change directly, as the Changes list does.
	UndoChange struct{ ID string }
	// Quit ends the program.
	Quit struct{}
)

// maxInput bounds the line being typed, as the page's composer is bounded.
const maxInput = 64 << 10

// Model is the conversation as the terminal shows it.
type Model struct {
	Session protocol.Session
	Input   string
	// Reply is the streamed text of the reply under way.
	Reply string
	// Running: a run of the session is going (sent, not finished).
	Running bool
	// Asking is the question put to the user now; the rest wait.
	Asking *protocol.Question
	// Undoing is the change /undo asks about (y undoes it); nil otherwise.
	Undoing  *protocol.ChangeRecord
	answered []string // questions answered, by their calls, until the board drops them
	// armed: Ctrl-C was pressed once with nothing to stop; a second quits.
	armed bool
	// closing: the input ended; quit once the run has.
	closing bool
	// told are the notices of this conversation already shown (host.Notice).
	told []string
}

// Update is the conversation's one transition.
func Update(m Model, msg Msg) (Model, []Action) {
	switch x := msg.(type) {
	case Key:
		return key(m, x)
	case Line:
		return line(m, string(x))
	case EOF:
		// Nobody is left to answer: an open question is answered no, and
		// said so; one asked later is too (questions). Without that a piped
		// chat waited on its question until killed.
		m.closing = true
		var out []Action
		if m.Asking != nil {
			m, out = answer(m, false, "  answered no: the input ended")
		}
		if m.Undoing != nil {
			m.Undoing = nil
			out = append(out, Print{"  kept: nothing was undone (the input ended)"})
		}
		if !m.Running {
			out = append(out, Quit{})
		}
		return m, out
	case Event:
		return event(m, protocol.Event(x))
	case Questions:
		return questions(m, x)
	case Opened:
		m.Session, m.Reply, m.Running, m.Asking, m.answered, m.told = protocol.Session(x), "", false, nil, nil, nil
		return m, []Action{Print{fmt.Sprintf("— %s (%s). /help for commands.", titleOf(m.Session), m.Session.ID)}}
	case Listed:
		out := Print{"Conversations (/switch ID opens one):"}
		for _, s := range x {
			if s.Kind != "" {
				continue // a batch worker's session is no conversation of the user's
			}
			mark := " "
			if s.ID == m.Session.ID {
				mark = "*"
			}
			out = append(out, fmt.Sprintf("%s %s  %s  %s", mark, s.ID, s.UpdatedAt.Local().Format("2006-01-02 15:04"), titleOf(s)))
		}
		return m, []Action{out}
	case UndoFound:
		if x.Change == nil {
			return m, []Action{Print{"Nothing to undo: Quire has no change standing in this conversation."}}
		}
		m.Undoing = x.Change
		out := Print{"? Undo Quire's last change in this conversation:"}
		for _, l := range strings.Split(x.Change.Reverse, "\n") {
			out = append(out, "  │ "+l)
		}
		return m, []Action{out}
	case UndoDone:
		if x.Refused != nil {
			return m, []Action{Print{fmt.Sprintf("! Not undone: %s", x.Refused.Reason)}}
		}
		return m, []Action{Print{fmt.Sprintf("Undone: %d change reverted; the note is as it was before.", len(x.Undone))}}
	case Failed:
		out := []Action{Print{"! " + x.Err.Error()}}
		if x.Sent {
			m.Running = false
			if m.closing && m.Asking == nil {
				out = append(out, Quit{})
			}
		}
		return m, out
	}
	return m, nil
}

func titleOf(s protocol.Session) string {
	if s.Title == "" {
		return "untitled"
	}
	return s.Title
}

func key(m Model, k Key) (Model, []Action) {
	if k.Name != KeyCtrlC {
		m.armed = false
	}
	switch k.Name {
	case KeyCtrlC:
		if m.armed {
			return m, []Action{Quit{}}
		}
		m.armed = true
		if m.Running {
			return m, []Action{Cancel{m.Session.ID}, Print{"(stopping the reply; Ctrl-C again quits)"}}
		}
		return m, []Action{Print{"(Ctrl-C again quits)"}}
	case KeyEnter:
		text := m.Input
		m.Input = ""
		return line(m, text)
	case KeyBackspace:
		if r := []rune(m.Input); len(r) > 0 {
			m.Input = string(r[:len(r)-1])
		}
	case KeyEscape:
		m.Input = ""
	case KeyText:
		if m.Asking != nil {
			return answerKey(m, k.Text)
		}
		if m.Undoing != nil {
			return answerUndo(m, k.Text)
		}
		if len(m.Input)+len(k.Text) > maxInput {
			// Said, not dropped without a sign: a paste that does not fit.
			return m, []Action{Print{fmt.Sprintf("! a message holds at most %d bytes, and this would make it %d: it was not added", maxInput, len(m.Input)+len(k.Text))}}
		}
		m.Input += k.Text
	}
	return m, nil
}

// line is a line the user typed: an answer while a question is open, a
// command, or a message.
func line(m Model, text string) (Model, []Action) {
	text = strings.TrimSpace(text)
	if m.Asking != nil {
		return answerKey(m, text)
	}
	if m.Undoing != nil {
		return answerUndo(m, text)
	}
	if text == "" {
		return m, nil
	}
	cmd, arg, _ := strings.Cut(text, " ")
	switch cmd {
	case "/new":
		return m, []Action{New{}}
	case "/sessions":
		return m, []Action{List{}}
	case "/switch":
		if arg = strings.TrimSpace(arg); arg == "" {
			return m, []Action{Print{"! /switch needs a conversation's id: /sessions lists them"}}
		}
		return m, []Action{Switch{arg}}
	case "/undo":
		if m.Session.ID == "" {
			return m, []Action{Print{"! the conversation is still opening; try /undo again in a moment"}}
		}
		return m, []Action{FindUndo{m.Session.ID}}
	case "/quit", "/exit":
		return m, []Action{Quit{}}
	case "/help":
		return m, []Action{Print{
			"/new  a new conversation   /sessions  list them   /switch ID  open one",
			"/undo  undo Quire's last change here (after y/n)   /quit  leave (or Ctrl-C twice)",
			"Ctrl-C stops a reply; a question is answered with y or n."}}
	}
	if strings.HasPrefix(cmd, "/") {
		return m, []Action{Print{fmt.Sprintf("! %s is not a command; /help lists them", cmd)}}
	}
	return send(m, text)
}

func send(m Model, text string) (Model, []Action) {
	if m.Session.ID == "" {
		return m, []Action{Print{"! the conversation is still opening; send that again in a moment"}}
	}
	m.Running = true
	return m, []Action{Send{m.Session.ID, text}}
}

// answerKey answers the open question with y or n; anything else asks again.
func answerKey(m Model, text string) (Model, []Action) {
	switch strings.ToLower(strings.TrimSpace(text)) {
	case "y", "yes":
		return answer(m, true, "  answered yes")
	case "n", "no":
		return answer(m, false, "  answered no")
	}
	return m, []Action{Print{"(answer y or n)"}}
}

// answer answers the open question, saying said.
func answer(m Model, allowed bool, said string) (Model, []Action) {
	q := m.Asking
	ids := make([]string, len(q.Calls))
	for i, c := range q.Calls {
		ids[i] = c.ID
	}
	m.answered = append(m.answered, host.QuestionKey(*q))
	m.Asking = nil
	return m, []Action{Answer{q.Session, ids, allowed}, Print{said}}
}

// answerUndo answers /undo's question: y reverts the change, n keeps it.
func answerUndo(m Model, text string) (Model, []Action) {
	switch strings.ToLower(strings.TrimSpace(text)) {
	case "y", "yes":
		id := m.Undoing.ID
		m.Undoing = nil
		return m, []Action{UndoChange{id}, Print{"  undoing…"}}
	case "n", "no":
		m.Undoing = nil
		return m, []Action{Print{"  kept: nothing was undone"}}
	}
	return m, []Action{Print{"(answer y or n)"}}
}

// questions takes the board's list: the first not yet answered is asked,
// whole, as the window's card shows it.
func questions(m Model, list Questions) (Model, []Action) {
	// Forget answers the board no longer lists.
	m.answered = slices.DeleteFunc(m.answered, func(k string) bool {
		return !slices.ContainsFunc(list, func(q protocol.Question) bool { return host.QuestionKey(q) == k })
	})
	if m.Asking != nil {
		if slices.ContainsFunc(list, func(q protocol.Question) bool { return host.QuestionKey(q) == host.QuestionKey(*m.Asking) }) {
			return m, nil
		}
		m.Asking = nil // closed elsewhere: the deadline, a stop
	}
	for _, q := range list {
		if q.Session != m.Session.ID || slices.Contains(m.answered, host.QuestionKey(q)) {
			continue
		}
		m.Asking = &q
		out := Print{"? Quire asks to:"}
		for _, d := range q.Descriptions {
			for _, l := range strings.Split(d, "\n") {
				out = append(out, "  │ "+l)
			}
		}
		if m.closing {
			m, acts := answer(m, false, "  answered no: the input ended")
			if !m.Running {
				acts = append(acts, Quit{})
			}
			return m, append([]Action{out}, acts...)
		}
		// The y/n prompt is the live part's (Prompt), not a printed line:
		// printed too, a terminal showed it twice.
		return m, []Action{out}
	}
	return m, nil
}

// event folds one event of the session into what is shown.
func event(m Model, e protocol.Event) (Model, []Action) {
	if e.Session != m.Session.ID || e.Visibility != protocol.Public {
		return m, nil
	}
	p := host.SaidOf(e)
	switch e.Type {
	case "input.received":
		// Once per conversation: a model without tools is said to be one
		// (and what that means), as the window says it.
		if key, text := host.Notice(p.Caps); key != "" && !slices.Contains(m.told, key) {
			m.told = append(slices.Clone(m.told), key)
			return m, []Action{Print{"! " + text}}
		}
	case "user.message":
		return m, []Action{Print{prefixed("you › ", p.Text)}}
	case "run.started":
		m.Running = true
	case "assistant.delta":
		if len(m.Reply)+len(p.Content) <= maxReplyShown {
			m.Reply += p.Content
		}
	case "assistant.message":
		m.Reply = ""
		if strings.TrimSpace(p.Content) != "" {
			return m, []Action{Print{prefixed("quire › ", p.Content)}}
		}
	// A call reads as what it did, as in the window (protocol.ToolPhrase),
	// not as its name (issue 31: "list_notes" meant nothing to a person).
	case "tool.started":
		return m, []Action{Print{"  · " + protocol.ToolPhrase(p.Name)}}
	case "tool.result":
		if p.Status != "" && p.Status != "success" {
			return m, []Action{Print{fmt.Sprintf("  · %s: %s", protocol.ToolPhrase(p.Name), protocol.ToolOutcome(p.Status))}}
		}
	case "tool.refused":
		return m, []Action{Print{fmt.Sprintf("  · %s: refused, %s", protocol.ToolPhrase(p.Name), firstLine(p.Reason))}}
	case "stream.failed":
		return m, []Action{Print{"! " + p.Message}}
	case "run.finished":
		// armed stays: after a Ctrl-C stopped the reply, the next one quits.
		m.Running, m.Reply = false, ""
		var out []Action
		if p.Reason != "completed" {
			msg := "(the reply ended: " + p.Reason
			if p.Error != "" {
				msg += ": " + p.Error
			}
			out = append(out, Print{msg + ")"})
		}
		if m.closing && m.Asking == nil {
			out = append(out, Quit{})
		}
		return m, out
	}
	return m, nil
}

// maxReplyShown bounds the streamed text held for the live view; the whole
// reply is printed from its assistant.message.
const maxReplyShown = 1 << 20

func prefixed(prefix, text string) string {
	pad := strings.Repeat(" ", len([]rune(prefix)))
	return prefix + strings.ReplaceAll(strings.TrimRight(text, "\n"), "\n", "\n"+pad)
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// printed is what a Print writes: its lines, with what would not read as
// itself escaped (host.Visible) — a reply's or a note's text must not run as
// the terminal's escape sequences (rewriting the question above its y/n).
func printed(p Print) string { return host.Visible(strings.Join(p, "\n")) }

// View is the live part under the scrollback: the reply as it streams,
// the question's prompt, and the line being typed, escaped as printed is.
func View(m Model) string { return host.Visible(view(m)) }

func view(m Model) string {
	var b strings.Builder
	if m.Reply != "" {
		b.WriteString(prefixed("quire › ", m.Reply) + "\n")
	} else if m.Running && m.Asking == nil {
		b.WriteString("quire is thinking… (Ctrl-C stops)\n")
	}
	if p := Prompt(m); p != "" {
		b.WriteString(p + " ")
		return b.String()
	}
	b.WriteString("> " + m.Input)
	return b.String()
}

// Prompt is the y/n question the user is to answer now, "" when none: the
// live part shows it under the question, line mode writes it once.
func Prompt(m Model) string {
	switch {
	case m.Asking != nil:
		return "Allow? [y/n]"
	case m.Undoing != nil:
		return "Undo it? [y/n]"
	}
	return ""
}
