package window

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"quire/host"
	"quire/kernel/protocol"
)

// Permission questions: the page shows each in full, then one native
// dialog asks; the page can never answer for the user.

// ask is the window's host.Asker. Unexported, so Wails does not bind it:
// the page never answers a question itself — a page shows text that came
// from documents and the model, and a native dialog is what none of that
// can click. In order:
//
//  1. the question, with every call's whole description, goes to the page
//     (quire:question), which shows it in full on its card and then calls
//     QuestionShown; that can only let the dialog open, never answer. A
//     dialog is modal (the page cannot be scrolled behind it), so when it
//     cannot show every description (DialogShowsAll false) the page calls
//     QuestionShown only when the user, having read the card, asks for it;
//  2. one native dialog for all the calls of the step (one at a time:
//     Wails answers every message dialog through one channel, so two open
//     at once could swap their answers). A text too long for a dialog is
//     not cut: the dialog says how long it is and that the card shows it;
//  3. the question closes when the user answers, or when the run's log says
//     it closed (the deadline answered, the request stopped). Wails v2.9.2
//     cannot close a message dialog it opened (gtk_dialog_run holds it
//     until a click, and no handle is returned), so a dialog can outlive its
//     question: a Yes given to a question that had already closed changes
//     nothing, and a second dialog says so.
//
// If the page never confirms the question shown, no dialog opens and the
// deadline answers.
func (h *Host) ask(ctx context.Context, q protocol.Question) (protocol.Answer, error) {
	window := h.window.Load()
	if window == nil {
		<-ctx.Done() // no window yet: the run's deadline answers
		return protocol.Answer{}, context.Cause(ctx)
	}
	// The log's word on the question outlives this call: a Yes given as the
	// question closes is checked against it after ask has returned.
	fate := host.FollowQuestion(*window, h.kernel, q)
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	go func() {
		select {
		case <-fate.Closed():
			stop(errQuestionClosed)
		case <-ctx.Done():
		}
	}()

	title := permissionTitle(q)
	text, whole := permissionText(q, fate.Deadline())
	q.DialogShowsAll = whole
	q, open := h.questions.Add(q)
	defer h.questions.Remove(q.ID)
	h.emit(*window, eventQuestion, q)
	select {
	case <-open.Shown():
	case <-ctx.Done():
		return protocol.Answer{}, context.Cause(ctx)
	}
	select {
	case h.dialogs <- struct{}{}:
	case <-ctx.Done():
		return protocol.Answer{}, context.Cause(ctx)
	}
	got := make(chan dialogAnswer, 1)
	go func() {
		yes, err := h.dialog(*window, title, text)
		got <- dialogAnswer{yes, err}
	}()
	select {
	case r := <-got:
		<-h.dialogs
		if r.err != nil {
			return protocol.Answer{}, r.err
		}
		if r.yes {
			go h.checkYes(*window, fate) // the question may have closed as the user clicked
		}
		return protocol.Answer{Allowed: r.yes}, nil
	case <-ctx.Done():
		go func() {
			r := <-got // the dialog is still on screen, and holds the token
			<-h.dialogs
			if r.err == nil && r.yes {
				h.sayExpired(*window, fate)
			}
		}()
		return protocol.Answer{}, context.Cause(ctx)
	}
}

type dialogAnswer struct {
	yes bool
	err error
}

// checkYes waits for the log's word on a question the user said yes to:
// when it was not that yes that closed it (the deadline or a stop came
// first), the yes did nothing, and the user is told.
func (h *Host) checkYes(window context.Context, f *host.QuestionFate) {
	select {
	case <-f.Closed():
	case <-window.Done():
		return
	}
	if !f.End().Yes {
		h.sayExpired(window, f)
	}
}

// sayExpired tells the user their Yes came after the question had closed,
// once the log says how it closed. The notice is a dialog too, so it waits
// for its turn.
func (h *Host) sayExpired(window context.Context, f *host.QuestionFate) {
	select {
	case <-f.Closed():
	case <-window.Done():
		return
	}
	select {
	case h.dialogs <- struct{}{}:
	case <-window.Done():
		return
	}
	defer func() { <-h.dialogs }()
	if err := h.notice(window, "Your answer came too late", expiredText(f.End())); err != nil {
		h.log.Warn("the notice about an expired question could not be shown", "err", err)
	}
}

// expiredText says what became of a question a late Yes was given to.
func expiredText(end host.QuestionEnd) string {
	why := "The request had already stopped"
	if end.ByDefault {
		why = "Nobody answered in time, so Quire had already answered"
		if end.Allowed {
			why += " yes by default"
		} else {
			why += " No"
		}
	}
	if end.Allowed {
		return why + ". Your Yes changed nothing more."
	}
	return why + ", and your Yes changed nothing: nothing was run. Ask the assistant again if you still want it done."
}

func permissionTitle(q protocol.Question) string {
	if len(q.Calls) == 1 {
		return "Allow Quire to run " + host.Visible(q.Calls[0].Name) + "?"
	}
	return fmt.Sprintf("Allow Quire to run these %d actions?", len(q.Calls))
}

// permissionText is the dialog's message: each call's whole description
// (every invisible or layout character escaped, as \u200b), or, when it
// does not fit, what it is and how long, with the full text on the card;
// whole reports that every description fits. by is when the question
// expires (zero: not known).
func permissionText(q protocol.Question, by time.Time) (text string, whole bool) {
	whole = true
	var b strings.Builder
	b.WriteString("The assistant wants to:\n")
	lines, runes := 0, 0
	for i, c := range q.Calls {
		desc := c.Name + " " + string(c.Arguments)
		if i < len(q.Descriptions) {
			desc = q.Descriptions[i]
		}
		desc = host.Visible(desc)
		r := utf8.RuneCountInString(desc)
		shown := wrap(desc, dialogWrap)
		n := strings.Count(shown, "\n") + 1
		if lines+n <= dialogMaxLines && runes+r <= dialogMaxRunes {
			lines, runes = lines+n, runes+r
			fmt.Fprintf(&b, "\n• %s", shown)
			continue
		}
		// Named by its heading ("Create plan.md:"), or by the tool when the
		// heading is the text itself: no part of a text is shown as if whole.
		// A heading of two lines before a blank one is kept whole: a move
		// that rewrites links says so on its second line ("and updates 56
		// links in 37 notes:"), and the final yes must not hide that.
		first, _, more := strings.Cut(desc, "\n")
		if head, _, ok := strings.Cut(desc, "\n\n"); ok && strings.Count(head, "\n") == 1 {
			if l1, l2, _ := strings.Cut(head, "\n"); strings.HasPrefix(l2, "and updates ") && cells(l1) <= dialogWrap && cells(l2) <= dialogWrap {
				first = l1 + "\n  " + l2
			}
		}
		if !more || cells(first) > dialogWrap {
			first = wrap(host.Visible(c.Name), dialogWrap)
		}
		whole = false
		lines, runes = lines+3, runes+utf8.RuneCountInString(first)+160
		fmt.Fprintf(&b, "\n• %s\n  This is %s, %s: too long for this dialog. The Quire window shows all of it; read it there before you answer.",
			first, count(r, "character", "characters"), count(strings.Count(desc, "\n")+1, "line", "lines"))
	}
	b.WriteString("\n\nYes runs them all; No tells the assistant you declined.")
	if !by.IsZero() {
		fmt.Fprintf(&b, "\nThis question expires at %s; after that, your answer changes nothing.", by.Local().Format("15:04"))
	}
	return b.String(), whole
}

// QuestionShown tells Quire the page has shown the question id in full
// (quire:question): only then does its native dialog open. It cannot
// answer the question.
func (h *Host) QuestionShown(id string) error {
	if err := h.ready(); err != nil {
		return err
	}
	return h.questions.Show(id)
}

// Questions are the permission questions open now, for a page that loaded
// after they were sent: it shows each, then calls QuestionShown.
func (h *Host) Questions() ([]protocol.Question, error) {
	if err := h.ready(); err != nil {
		return nil, err
	}
	return h.questions.List(), nil
}
