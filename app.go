// app.go is the Wails host, and nothing else: the window's bound methods,
// the runtime events it forwards, native dialogs and file drops. It speaks
// kernel/protocol and the ports of package host, like every other host;
// main.go and the composition root (assembly) give it its parts.
package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	wailsrt "github.com/wailsapp/wails/v2/pkg/runtime"
	"golang.org/x/text/width"

	"quire/assembly"
	"quire/config"
	"quire/doctor"
	"quire/export"
	"quire/host"
	"quire/host/httpapi"
	"quire/host/probe"
	"quire/host/webview"
	"quire/internal/datadir"
	"quire/kernel/protocol"
	"quire/kernel/tool"
)

// Names of the runtime events the frontend listens to (docs/PROTOCOL.md).
const (
	eventEvents   = "quire:events"   // []protocol.Event, then the delivery number
	eventSessions = "quire:sessions" // []protocol.Session, then the delivery number
	eventResync   = "quire:resync"   // no data: the page reloads from its last seq
	// Events the page sends: that it listens (before it loads anything), and
	// the delivery number of each update it has handled.
	eventListening = "quire:listening"
	eventTaken     = "quire:taken"
	eventQuestion  = "quire:question"
	eventHealth    = "quire:health" // doctor.Report, whenever the checks change
)

// windowBound is how many updates (each batch of events, each list) the
// page may have been sent and not yet handled before it counts as lagging.
// Wails' emit never blocks: what the page has not run yet waits in the
// window's queues, so the bound is kept by counting what the page says it
// has taken.
const windowBound = 256

// App is the Wails host: its exported methods are bound to the frontend
// (window.go.main.App). Wails runs each call in its own goroutine, so every
// method is safe for concurrent use; App itself holds no conversation state.
type App struct {
	kernel    protocol.Kernel
	diagnose  host.Doctor
	probePath string
	log       *slog.Logger
	// emit sends a runtime event to the frontend and dialog shows a native
	// Yes/No question; both injected so App can be tested without a window.
	emit   func(ctx context.Context, name string, data ...any)
	dialog func(ctx context.Context, title, message string) (yes bool, err error)
	// listen registers for events the page sends (runtime.EventsOn); nil
	// (tests without a page) leaves the window unbounded.
	listen func(ctx context.Context, name string, cb func(data ...any)) func()
	pace   pace // the page's acknowledgements (forward)

	// notice shows a native dialog with only OK (a late answer's fate).
	notice func(ctx context.Context, title, message string) error

	// questions are the permission questions waiting for the page to show
	// them, or for their dialog; dialogs holds a token while a native
	// dialog is open (one at a time).
	questions host.Questions
	dialogs   chan struct{}

	greeted atomic.Bool // set by a successful Handshake

	settings host.Settings
	memory   host.Memory // the memory panel's backend; nil: nothing to show
	notes    host.Notes  // the notes panel's backend; nil: nothing to show
	// health watches the checks on its own (Ollama started, stopped); nil:
	// the page sees only the reports it asks for.
	health *host.Health

	// window is the context Wails gave at start-up; runtime calls need it,
	// and permission questions may arrive from the runtime before it is set.
	window atomic.Pointer[context.Context]
	cancel context.CancelFunc

	// docs is the documents panel (nil when the index is not open); onDrop
	// registers the window's file-drop callback.
	docs   host.Documents
	onDrop func(ctx context.Context, cb func(x, y int, paths []string))

	models host.Models // the models screen's back end; nil: none (tests)
	calls  host.Calls  // the inspector's back end; nil: none (tests)

	// conversations searches every conversation (the Ctrl+K palette); nil:
	// none (tests). saveDialog asks where to save an export (Wails'
	// SaveFileDialog; injected for tests).
	conversations host.Conversations
	saveDialog    func(ctx context.Context, o wailsrt.SaveDialogOptions) (string, error)

	batches host.Batches // the task queue ("organise a folder"); nil: none
	mcp     host.MCP     // the MCP servers (app_mcp.go); nil: none
	// evolution is the candidates' pipeline (the Evolution methods below); nil: none.
	evolution host.Evolution
	skills    host.Skills // Settings → Skills' back end; nil: none (tests)

	// raise brings the window to the front (Wails' WindowUnminimise and
	// WindowShow), for a second start of Quire; injected for tests. up is
	// closed once Wails has started the window (startup).
	raise  func(ctx context.Context)
	up     chan struct{}
	upOnce sync.Once
}

// newApp builds the host. Wails itself quits the window on SIGINT/SIGTERM,
// after which runWindow's deferred Close ends runs with their reason.
func newApp(k protocol.Kernel, diagnose host.Doctor, probePath string, log *slog.Logger) *App {
	return &App{kernel: k, diagnose: diagnose, probePath: probePath, log: log, emit: wailsrt.EventsEmit,
		dialog: nativeQuestion, notice: nativeNotice, dialogs: make(chan struct{}, 1), raise: raiseWindow, up: make(chan struct{}),
		saveDialog: wailsrt.SaveFileDialog}
}

func raiseWindow(ctx context.Context) {
	wailsrt.WindowUnminimise(ctx)
	wailsrt.WindowShow(ctx)
}

// errWindowNotUp: the window was still not shown when the second start
// gave up waiting for it.
var errWindowNotUp = errors.New("the window is still opening")

// show is the local channel's Show: a second start of Quire on this data
// folder brings the user to this window instead of opening another. A
// second start made while this window is still opening (a double click)
// waits for it, as long as its request lasts.
func (a *App) show(ctx context.Context) error {
	select {
	case <-a.up:
	case <-ctx.Done():
		return errWindowNotUp
	}
	a.raise(*a.window.Load())
	return nil
}

// nativeQuestion shows a native Yes/No dialog. On Linux Wails ignores custom
// buttons and passes the message to GTK as a printf format (STACK.md), so
// '%' is escaped.
func nativeQuestion(ctx context.Context, title, message string) (bool, error) {
	answer, err := wailsrt.MessageDialog(ctx, wailsrt.MessageDialogOptions{
		Type: wailsrt.QuestionDialog, Title: title, Message: strings.ReplaceAll(message, "%", "%%"),
	})
	return strings.EqualFold(answer, "Yes"), err
}

// nativeNotice shows a native dialog with one OK button.
func nativeNotice(ctx context.Context, title, message string) error {
	_, err := wailsrt.MessageDialog(ctx, wailsrt.MessageDialogOptions{
		Type: wailsrt.InfoDialog, Title: title, Message: strings.ReplaceAll(message, "%", "%%"),
	})
	return err
}

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
func (a *App) ask(ctx context.Context, q protocol.Question) (protocol.Answer, error) {
	window := a.window.Load()
	if window == nil {
		<-ctx.Done() // no window yet: the run's deadline answers
		return protocol.Answer{}, context.Cause(ctx)
	}
	// The log's word on the question outlives this call: a Yes given as the
	// question closes is checked against it after ask has returned.
	fate := host.FollowQuestion(*window, a.kernel, q)
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
	q, open := a.questions.Add(q)
	defer a.questions.Remove(q.ID)
	a.emit(*window, eventQuestion, q)
	select {
	case <-open.Shown():
	case <-ctx.Done():
		return protocol.Answer{}, context.Cause(ctx)
	}
	select {
	case a.dialogs <- struct{}{}:
	case <-ctx.Done():
		return protocol.Answer{}, context.Cause(ctx)
	}
	got := make(chan dialogAnswer, 1)
	go func() {
		yes, err := a.dialog(*window, title, text)
		got <- dialogAnswer{yes, err}
	}()
	select {
	case r := <-got:
		<-a.dialogs
		if r.err != nil {
			return protocol.Answer{}, r.err
		}
		if r.yes {
			go a.checkYes(*window, fate) // the question may have closed as the user clicked
		}
		return protocol.Answer{Allowed: r.yes}, nil
	case <-ctx.Done():
		go func() {
			r := <-got // the dialog is still on screen, and holds the token
			<-a.dialogs
			if r.err == nil && r.yes {
				a.sayExpired(*window, fate)
			}
		}()
		return protocol.Answer{}, context.Cause(ctx)
	}
}

type dialogAnswer struct {
	yes bool
	err error
}

// errQuestionClosed: the run's log closed the question before the user
// answered it here.
var errQuestionClosed = errors.New("the question was closed before it was answered")

// checkYes waits for the log's word on a question the user said yes to:
// when it was not that yes that closed it (the deadline or a stop came
// first), the yes did nothing, and the user is told.
func (a *App) checkYes(window context.Context, f *host.QuestionFate) {
	select {
	case <-f.Closed():
	case <-window.Done():
		return
	}
	if !f.End().Yes {
		a.sayExpired(window, f)
	}
}

// sayExpired tells the user their Yes came after the question had closed,
// once the log says how it closed. The notice is a dialog too, so it waits
// for its turn.
func (a *App) sayExpired(window context.Context, f *host.QuestionFate) {
	select {
	case <-f.Closed():
	case <-window.Done():
		return
	}
	select {
	case a.dialogs <- struct{}{}:
	case <-window.Done():
		return
	}
	defer func() { <-a.dialogs }()
	if err := a.notice(window, "Your answer came too late", expiredText(f.End())); err != nil {
		a.log.Warn("the notice about an expired question could not be shown", "err", err)
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

// A GTK message dialog does not scroll: it grows with its text, and past
// the screen its buttons are out of reach. About 30 lines of body text fit
// a 768-pixel-high screen with the title, icon and buttons; 1,000
// characters wrap to some 15 lines at the dialog's width. Within these
// bounds every call is shown whole; a call that does not fit is named, with
// its size, and read in full on the window's card.
//
// GTK wraps a dialog's text only between words: a line with no break in
// it (one long word, a run of spaces or of no-break spaces) widens the
// dialog past the screen, with the text after it and the buttons out of
// sight. So every line is broken at dialogWrap cells (a wide character is
// two), each piece after the first marked with wrapMark, and counted as
// the lines it becomes.
const (
	dialogMaxLines = 20
	dialogMaxRunes = 1000
	dialogWrap     = 72
	wrapMark       = "↪ "
)

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

// wrap breaks each line of s into pieces of at most max cells, each piece
// after the first starting with wrapMark, so no line is wider than a
// dialog can show.
func wrap(s string, max int) string {
	var b strings.Builder
	for i, line := range strings.Split(s, "\n") {
		if i > 0 {
			b.WriteByte('\n')
		}
		w := 0
		for _, c := range line {
			cw := cellWidth(c)
			if w+cw > max {
				b.WriteString("\n" + wrapMark)
				w = cells(wrapMark)
			}
			b.WriteRune(c)
			w += cw
		}
	}
	return b.String()
}

// cells is how wide s draws, counting a wide (East Asian) character as two.
func cells(s string) int {
	n := 0
	for _, c := range s {
		n += cellWidth(c)
	}
	return n
}

func cellWidth(c rune) int {
	switch width.LookupRune(c).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return 2
	}
	return 1
}

// count writes n with its noun and thousands separators: "4,312 characters".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s + " " + many
}

// QuestionShown tells Quire the page has shown the question id in full
// (quire:question): only then does its native dialog open. It cannot
// answer the question.
func (a *App) QuestionShown(id string) error {
	if err := a.ready(); err != nil {
		return err
	}
	return a.questions.Show(id)
}

// Questions are the permission questions open now, for a page that loaded
// after they were sent: it shows each, then calls QuestionShown.
func (a *App) Questions() ([]protocol.Question, error) {
	if err := a.ready(); err != nil {
		return nil, err
	}
	return a.questions.List(), nil
}

// startup receives the window's context and starts forwarding updates. The
// frontend reloads history with Events(id, from), so updates sent before it
// subscribed are not lost.
func (a *App) startup(ctx context.Context) {
	a.window.Store(&ctx)
	a.upOnce.Do(func() { close(a.up) })
	var fwd context.Context
	fwd, a.cancel = context.WithCancel(ctx)
	go a.forward(fwd)
	a.startDocuments(fwd)
	a.startHealth(fwd)
	a.startModels(fwd)
	a.startBatches(fwd)
	a.startMCP(fwd)
	a.startEvolution(fwd)
}

// startHealth forwards every change of the health checks the watcher
// noticed on its own, so the first screen follows Ollama appearing
// without a click.
func (a *App) startHealth(ctx context.Context) {
	if a.health == nil {
		return
	}
	go func() {
		for r := range a.health.Watch(ctx) {
			a.emit(ctx, eventHealth, r)
		}
	}()
}

func (a *App) shutdown(context.Context) {
	if a.cancel != nil {
		a.cancel()
	}
}

// audience is what the window shows: public events only, for now.
var audience = protocol.Audience{}

// forward relays kernel updates to the frontend in order; the runtime already
// batches streamed text, so one update is one small ExecJS call. Once the
// page said it listens, each update carries a delivery number the page
// acknowledges; a page more than windowBound behind (or a watch the kernel
// dropped) is sent nothing more until it has caught up, then told to resync:
// it reloads each session from its last seq, so nothing is lost and nothing
// waits in memory for it meanwhile.
func (a *App) forward(ctx context.Context) {
	if a.listen != nil {
		defer a.listen(ctx, eventListening, func(...any) { a.pace.reset() })()
		defer a.listen(ctx, eventTaken, func(data ...any) { a.pace.took(data) })()
	}
	resync := false
	for ctx.Err() == nil {
		watch, stop := context.WithCancel(ctx)
		updates, cause := a.kernel.Watch(watch)
		if resync {
			// Told only once the new watch is on: what changes while the
			// page reloads is sent after the resync, not lost between.
			a.emit(ctx, eventResync)
		}
		lagged := a.relay(ctx, updates)
		stop()
		if !lagged && !errors.Is(cause(), protocol.ErrLagging) {
			return // ctx ended, or a kernel with nothing to watch
		}
		a.log.Info("the window fell behind its updates; it will reload what it missed", "err", cause())
		if !a.pace.caughtUp(ctx) {
			return
		}
		resync = true
	}
}

// relay emits updates until they end (false) or the page lags (true).
func (a *App) relay(ctx context.Context, updates <-chan protocol.Update) bool {
	for u := range updates {
		if a.pace.behind() >= windowBound {
			return true
		}
		if evs := protocol.Filter(u.Events, audience); len(evs) > 0 {
			a.emit(ctx, eventEvents, evs, a.pace.send())
		}
		if u.Sessions != nil {
			a.emit(ctx, eventSessions, u.Sessions, a.pace.send())
		}
	}
	return false
}

// pace counts the updates sent to the page and those it has taken. Until the
// page says it listens, nothing is counted: the page loads everything when
// it starts, and a test without a page acknowledges nothing.
type pace struct {
	mu        sync.Mutex
	listening bool
	sent      int64
	taken     int64
	changed   chan struct{} // closed and replaced when taken moves
}

func (p *pace) send() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.sent++
	return p.sent
}

// behind is how many sent updates the page has not taken yet.
func (p *pace) behind() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.listening {
		return 0
	}
	return p.sent - p.taken
}

// reset: a page (re)loaded and listens; it will load everything itself.
func (p *pace) reset() {
	p.mu.Lock()
	p.listening, p.taken = true, p.sent
	p.wake()
	p.mu.Unlock()
}

// took records the delivery number the page acknowledged; Wails runs each
// acknowledgement in its own goroutine, so they may arrive out of order.
func (p *pace) took(data []any) {
	if len(data) == 0 {
		return
	}
	n, ok := data[0].(float64) // a JSON number
	if !ok {
		return
	}
	p.mu.Lock()
	if int64(n) > p.taken && int64(n) <= p.sent {
		p.taken = int64(n)
		p.wake()
	}
	p.mu.Unlock()
}

func (p *pace) wake() {
	if p.changed != nil {
		close(p.changed)
		p.changed = nil
	}
}

// caughtUp waits until the page has taken everything sent; false if ctx ended.
func (p *pace) caughtUp(ctx context.Context) bool {
	for {
		p.mu.Lock()
		if !p.listening || p.taken >= p.sent {
			p.mu.Unlock()
			return true
		}
		if p.changed == nil {
			p.changed = make(chan struct{})
		}
		changed := p.changed
		p.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return false
		}
	}
}

func (a *App) callCtx() context.Context {
	if ctx := a.window.Load(); ctx != nil {
		return *ctx
	}
	return context.Background()
}

// ready refuses every call until the frontend has shaken hands.
func (a *App) ready() error {
	if !a.greeted.Load() {
		return errNoHandshake
	}
	return nil
}

var errNoHandshake = errors.New("the window has not shaken hands with Quire yet (call Handshake first); reload the window")

// Handshake must come first: it refuses a frontend whose protocol major
// version differs, and returns the kernel's version.
func (a *App) Handshake(version string) (string, error) {
	if err := protocol.Compatible(version); err != nil {
		return "", err
	}
	a.greeted.Store(true)
	return protocol.Version, nil
}

// Doctor runs the health checks shown on the first screen (and by its
// "Check again"); with a watcher the report is also what it sends next.
func (a *App) Doctor() doctor.Report {
	if a.health != nil {
		return a.health.Check(a.callCtx())
	}
	return a.diagnose(a.callCtx())
}

// ListSessions lists conversations, most recent first.
func (a *App) ListSessions() ([]protocol.Session, error) {
	if err := a.ready(); err != nil {
		return nil, err
	}
	list, err := a.kernel.Sessions(a.callCtx())
	if list == nil && err == nil {
		list = []protocol.Session{}
	}
	return list, err
}

// NewSession starts an empty conversation.
func (a *App) NewSession(title string) (protocol.Session, error) {
	if err := a.ready(); err != nil {
		return protocol.Session{}, err
	}
	s, err := protocol.Run[protocol.Session](a.callCtx(), a.kernel, "", protocol.CreateSession, protocol.CreateSessionPayload{Title: title})
	return s, spoken(err)
}

// RenameSession retitles a conversation.
func (a *App) RenameSession(id, title string) (protocol.Session, error) {
	if err := a.ready(); err != nil {
		return protocol.Session{}, err
	}
	s, err := protocol.Run[protocol.Session](a.callCtx(), a.kernel, "", protocol.RenameSession, protocol.RenameSessionPayload{Session: id, Title: title})
	return s, spoken(err)
}

// DeleteSession removes a conversation; the frontend has asked the user first.
func (a *App) DeleteSession(id string) error {
	if err := a.ready(); err != nil {
		return err
	}
	_, err := protocol.Run[struct{}](a.callCtx(), a.kernel, "", protocol.DeleteSession, protocol.SessionRef{Session: id})
	return spoken(err)
}

// Events returns a conversation's events from seq on.
func (a *App) Events(id string, from int64) ([]protocol.Event, error) {
	if err := a.ready(); err != nil {
		return nil, err
	}
	evs, err := a.kernel.Events(a.callCtx(), id, from)
	if err != nil {
		return nil, err
	}
	return protocol.Filter(evs, audience), nil
}

// Send stores the user's message and starts the reply; it returns the run
// id. key is the idempotency key: sending again with it has no second effect.
func (a *App) Send(id, text, key string) (string, error) {
	if err := a.ready(); err != nil {
		return "", err
	}
	r, err := protocol.Run[protocol.SendResult](a.callCtx(), a.kernel, key, protocol.SendMessage, protocol.SendMessagePayload{Session: id, Text: text})
	return r.RunID, spoken(err)
}

// SendWith is Send with an intent: "follow_up" (the next request), "steer"
// (joins the request that is going, at its next step) or "inject".
func (a *App) SendWith(id, text, intent, key string) (string, error) {
	if err := a.ready(); err != nil {
		return "", err
	}
	r, err := protocol.Run[protocol.SendResult](a.callCtx(), a.kernel, key, protocol.SendMessage,
		protocol.SendMessagePayload{Session: id, Text: text, Intent: intent})
	return r.RunID, spoken(err)
}

// EditMessage resends the user message at seq of conversation id with text
// instead, as a new branch; it returns the branch and its run. key is the
// idempotency key, as for Send.
func (a *App) EditMessage(id string, seq int64, text, key string) (protocol.BranchResult, error) {
	if err := a.ready(); err != nil {
		return protocol.BranchResult{}, err
	}
	r, err := protocol.Run[protocol.BranchResult](a.callCtx(), a.kernel, key, protocol.EditMessage,
		protocol.EditMessagePayload{Session: id, Seq: seq, Text: text})
	return r, spoken(err)
}

// Regenerate asks again for the reply at seq of conversation id, as a new
// branch; it returns the branch and its run.
func (a *App) Regenerate(id string, seq int64, key string) (protocol.BranchResult, error) {
	if err := a.ready(); err != nil {
		return protocol.BranchResult{}, err
	}
	r, err := protocol.Run[protocol.BranchResult](a.callCtx(), a.kernel, key, protocol.Regenerate,
		protocol.RegeneratePayload{Session: id, Seq: seq})
	return r, spoken(err)
}

// ContinueRun asks the model to continue the conversation's reply that was
// cut off; it returns the run id.
func (a *App) ContinueRun(id, key string) (string, error) {
	if err := a.ready(); err != nil {
		return "", err
	}
	r, err := protocol.Run[protocol.SendResult](a.callCtx(), a.kernel, key, protocol.ContinueRun, protocol.SessionRef{Session: id})
	return r.RunID, spoken(err)
}

// errNoSearchHere: a window without the search over its conversations.
var errNoSearchHere = errors.New("this window cannot search its conversations")

// SearchConversations finds the messages of every conversation holding
// the query's words (plain words; limit 0 is the most, 50), best first.
func (a *App) SearchConversations(query string, limit int) (protocol.MessageSearch, error) {
	if err := a.ready(); err != nil {
		return protocol.MessageSearch{}, err
	}
	if a.conversations == nil {
		return protocol.MessageSearch{}, errNoSearchHere
	}
	return a.conversations.Search(a.callCtx(), query, limit)
}

// ExportSession saves a conversation as Markdown ("md") or its public
// events as JSON lines ("jsonl") where the user picks in the native save
// dialog. It returns the file written, or "" when the user cancelled.
func (a *App) ExportSession(id, format string) (string, error) {
	if err := a.ready(); err != nil {
		return "", err
	}
	window := a.window.Load()
	if window == nil {
		return "", errors.New("the window is not ready yet; try again in a moment")
	}
	doc, err := export.Conversation(a.callCtx(), a.kernel, id, format)
	if err != nil {
		return "", spoken(err)
	}
	kind := map[string]wailsrt.FileFilter{
		export.FormatJSONL: {DisplayName: "JSON lines (*.jsonl)", Pattern: "*.jsonl"},
	}[format]
	if kind.Pattern == "" {
		kind = wailsrt.FileFilter{DisplayName: "Markdown (*.md)", Pattern: "*.md"}
	}
	notes := ""
	if a.settings != nil {
		notes = a.settings.NotesDir()
	}
	path, err := a.saveDialog(*window, wailsrt.SaveDialogOptions{Title: "Export the conversation", DefaultFilename: doc.Name,
		DefaultDirectory: dialogStart(notes), CanCreateDirectories: true, Filters: []wailsrt.FileFilter{kind}})
	if err != nil || path == "" {
		return "", err
	}
	if err := export.WriteFile(path, doc.Body); err != nil {
		return "", fmt.Errorf("could not save %s: %w; choose another folder", path, err)
	}
	return path, nil
}

// Cancel stops the conversation's reply.
func (a *App) Cancel(id string) error {
	if err := a.ready(); err != nil {
		return err
	}
	_, err := protocol.Run[struct{}](a.callCtx(), a.kernel, "", protocol.CancelRun, protocol.SessionRef{Session: id})
	return spoken(err)
}

// noSpace is what the window reads when the disk had no room for a
// command (protocol.ErrNoSpace).
const noSpace = "the disk is full, so Quire could not save this. Free some space on the disk that holds Quire's data folder, then try again."

// spoken gives the kernel's error classes that need words their sentence
// for the window; other errors already say what happened.
func spoken(err error) error {
	if errors.Is(err, protocol.ErrNoSpace) {
		return sentence{text: noSpace, cause: err}
	}
	return err
}

// sentence is an error whose message is the window's words for its cause.
type sentence struct {
	text  string
	cause error
}

func (e sentence) Error() string { return e.text }
func (e sentence) Unwrap() error { return e.cause }

// ReportView is the test probe: the frontend reports what it rendered, and
// when QUIRE_TEST_PROBE is set the snapshot is written there. It answers
// whether a probe is set: false tells the page to stop building snapshots,
// which in a user's window nobody reads (each is a walk of the whole screen
// after every change).
func (a *App) ReportView(snapshot map[string]any) (probing bool, err error) {
	if a.probePath == "" {
		return false, nil
	}
	b, err := json.Marshal(snapshot)
	if err != nil {
		return true, err
	}
	return true, probe.Write(a.probePath, b)
}

// runWindow opens the parts as the data folder's owner and runs the
// window until it is closed. When another process owns the folder it opens
// nothing (secondStart), and says why on stderr and through notice.
func runWindow(ctx context.Context, settings *config.Store, dist fs.FS, log *slog.Logger, stderr io.Writer, notice func(context.Context, string)) int {
	p, err := assembly.OpenWith(ctx, settings, log, assembly.Owner, assembly.Extras{Kind: datadir.Window, Scenarios: evalSet()})
	var inUse *datadir.InUseError
	if errors.As(err, &inUse) {
		return secondStart(ctx, inUse, httpapi.DialLocal(datadir.SocketPath(inUse.Dir)), stderr, notice)
	}
	if err != nil {
		fmt.Fprintln(stderr, "quire:", err)
		return 1
	}
	defer p.Close()
	if err := p.DatabaseError(); err != nil {
		log.Error("the database could not be opened; the window will say so", "err", err)
	}
	a := newApp(p.Kernel(), p.Doctor, os.Getenv("QUIRE_TEST_PROBE"), log)
	a.listen = wailsrt.EventsOn
	a.settings = p.Settings()
	if docs := p.Documents(ctx); docs != nil {
		a.attachDocuments(docs)
	}
	a.memory = p.Memory()
	a.notes = p.Notes()
	a.health = p.Health(ctx)
	a.models = p.Models()
	a.calls = p.Calls()
	a.conversations = p.Conversations()
	a.batches = p.Batches()
	a.mcp = p.MCP()
	a.evolution = p.Evolution()
	a.skills = p.Skills()
	p.SetAsker(a.ask)
	// The local channel: `quire index`, and a second start that brings the
	// user here.
	b := p.ServeBackend(ctx, a.probePath)
	b.Show = a.show
	p.ServeLocal(ctx, b)
	// Last before the window: what is set here reaches the web process
	// WebKit starts for it (and any process started later, which only
	// JavaScriptCore reads).
	if set, err := webview.Tune(webview.OSEnv{}); err != nil {
		log.Warn("the web view's options could not be set; it runs with WebKit's defaults", "err", err)
	} else if len(set) > 0 {
		log.Debug("the web view's options", "set", set)
	}
	dataDir := settings.Get().DataDir
	width, height := loadWindowSize(dataDir)
	err = wails.Run(&options.App{
		Title:            "Quire",
		Width:            width,
		Height:           height,
		MinWidth:         minWidth,
		MinHeight:        minHeight,
		AssetServer:      &assetserver.Options{Assets: dist},
		BackgroundColour: &options.RGBA{R: 250, G: 249, B: 246, A: 255},
		OnStartup:        a.startup,
		OnShutdown:       a.shutdown,
		// The size as the user left it opens the next window; a maximised
		// window's size is the screen's, not a choice, so it is not kept.
		OnBeforeClose: func(ctx context.Context) bool {
			if !wailsrt.WindowIsMaximised(ctx) {
				w, h := wailsrt.WindowGetSize(ctx)
				if err := saveWindowSize(dataDir, w, h); err != nil {
					log.Warn("the window's size was not kept", "err", err)
				}
			}
			return false
		},
		Bind: []any{a},
		// Dropped files reach OnFileDrop. DisableWebViewDrop stays false: on
		// Linux it would remove the drop target and no drop would arrive
		// (STACK.md); the page prevents WebKit's own handling instead.
		DragAndDrop: &options.DragAndDrop{EnableFileDrop: true},
	})
	if err != nil {
		fmt.Fprintln(stderr, "quire:", err)
		return 1
	}
	return 0
}

// secondStart is a start of the window while another process owns the
// data folder: a window is brought to the front (exit 0); otherwise the
// user is told plainly where Quire is open (exit 1), on stderr and by
// notice — a start from the desktop icon has no terminal to read stderr
// in. Nothing is opened.
func secondStart(ctx context.Context, e *datadir.InUseError, owner interface{ Show(context.Context) error }, stderr io.Writer, notice func(context.Context, string)) int {
	h := e.Holder
	refuse := func(format string, args ...any) int {
		msg := fmt.Sprintf(format, args...)
		fmt.Fprintln(stderr, "quire: "+msg)
		notice(ctx, msg)
		return 1
	}
	switch h.Kind {
	case datadir.Window:
		// Bounded: a stuck first window must not hang the second start too.
		sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		if err := owner.Show(sctx); err != nil {
			return refuse("Quire is already open in a window (%s), but the window did not come to the front: %v. "+
				"If it is stuck, end it (kill %d) and open Quire again.", h.Process(), err, h.PID)
		}
		fmt.Fprintf(stderr, "Quire is already open in a window (%s); it was brought to the front.\n", h.Process())
		return 0
	case datadir.Serve:
		where := "in a browser"
		if h.URL != "" {
			where = "at " + h.URL
		}
		return refuse("Quire is already open %s: this data folder (%s) is served by %s. "+
			"Open that address in your browser, or stop it (Ctrl+C in its terminal, or kill %d) to open the window.", where, e.Dir, h, h.PID)
	}
	return refuse("this data folder (%s) is in use by %s; open Quire again when it has finished.", e.Dir, h)
}

// desktopNotice shows msg on the desktop, for a start of the window that
// opens no window (secondStart): a zenity dialog, which stays until it is
// read, or else a notification (notify-send); with neither installed, or
// no display, nothing more than stderr. A Wails dialog needs a running
// app, which a second start must not open (docs/DECISIONS.md, "A second
// start says so on the desktop"). It returns once the dialog is closed.
func desktopNotice(log *slog.Logger) func(context.Context, string) {
	return func(ctx context.Context, msg string) {
		if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
			return
		}
		var cmd *exec.Cmd
		if path, err := exec.LookPath("zenity"); err == nil {
			cmd = exec.CommandContext(ctx, path, "--info", "--title=Quire", "--no-markup", "--width=480", "--text="+msg)
		} else if path, err := exec.LookPath("notify-send"); err == nil {
			// The body of a notification is markup to most servers.
			body := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(msg)
			cmd = exec.CommandContext(ctx, path, "--app-name=Quire", "--icon=quire", "Quire did not open a window", body)
		} else {
			log.Info("no zenity or notify-send to show the message on the desktop; it is on stderr only")
			return
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			log.Warn("the message could not be shown on the desktop; it is on stderr only", "program", cmd.Path, "err", err, "output", strings.TrimSpace(string(out)))
		}
	}
}

// NotesFolder is the folder the note tools work on ("" until chosen).
func (a *App) NotesFolder() string {
	if a.settings == nil {
		return ""
	}
	return a.settings.NotesDir()
}

// dialogStart is the folder a file dialog opens on: the notes folder once
// one is chosen, else ~/Documents when there is one, else the home folder.
// Given none, the folder chooser opened on GTK's empty "Recent" and the
// export's save dialog on the process's working folder (issue 31).
func dialogStart(notesDir string) string {
	if notesDir != "" {
		return notesDir
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	if fi, err := os.Stat(filepath.Join(home, "Documents")); err == nil && fi.IsDir() {
		return filepath.Join(home, "Documents")
	}
	return home
}

// ChooseNotesFolder asks for the notes folder with the native folder dialog
// and remembers it. It returns the folder, or "" if the user cancelled.
func (a *App) ChooseNotesFolder() (string, error) {
	if a.settings == nil {
		return "", errors.New("settings cannot be changed in this window")
	}
	window := a.window.Load()
	if window == nil {
		return "", errors.New("the window is not ready yet")
	}
	dir, err := wailsrt.OpenDirectoryDialog(*window, wailsrt.OpenDialogOptions{
		Title: "Choose the folder of your notes", DefaultDirectory: dialogStart(a.settings.NotesDir()), CanCreateDirectories: true,
	})
	if err != nil || dir == "" {
		return "", err
	}
	return dir, a.settings.SetNotesDir(dir)
}

// The Settings screen's bound methods (the same port as `quire serve`'s
// /api/settings routes).

// errNoSettingsHere: a window without the settings port.
var errNoSettingsHere = errors.New("settings cannot be changed in this window")

// Settings is the Settings screen: every choice and what it needs.
func (a *App) Settings() (protocol.SettingsScreen, error) {
	if err := a.ready(); err != nil {
		return protocol.SettingsScreen{}, err
	}
	if a.settings == nil {
		return protocol.SettingsScreen{}, errNoSettingsHere
	}
	return a.settings.Screen(a.callCtx())
}

// SaveSettings saves the screen's choices for the next run; a refused one
// comes back as Refused, naming its field.
func (a *App) SaveSettings(u protocol.UserSettings) (protocol.SettingsSaved, error) {
	if err := a.ready(); err != nil {
		return protocol.SettingsSaved{}, err
	}
	if a.settings == nil {
		return protocol.SettingsSaved{}, errNoSettingsHere
	}
	screen, err := a.settings.Update(a.callCtx(), u)
	var refused *protocol.SettingError
	switch {
	case errors.As(err, &refused):
		return protocol.SettingsSaved{Refused: refused}, nil
	case err != nil:
		return protocol.SettingsSaved{}, err
	}
	return protocol.SettingsSaved{Screen: &screen}, nil
}

// CheckOllama asks an address being typed whether Ollama answers there,
// saving nothing.
func (a *App) CheckOllama(address string) (protocol.OllamaCheck, error) {
	if err := a.ready(); err != nil {
		return protocol.OllamaCheck{}, err
	}
	if a.settings == nil {
		return protocol.OllamaCheck{}, errNoSettingsHere
	}
	return a.settings.CheckOllama(a.callCtx(), address), nil
}

// The documents panel: bound methods, indexing progress and file drops.

// Runtime events of the documents panel (docs/PROTOCOL.md).
const (
	eventIndexing = "quire:indexing"   // protocol.IndexProgress, whenever it changes
	eventDropFail = "quire:drop-error" // a sentence: a drop that could not be queued
)

// errNoDocuments: the index could not be opened (doctor says why).
var errNoDocuments = errors.New("the document index is not available in this window; see the health checks")

// attachDocuments gives the window its documents panel and makes files
// dropped on the window go to it. onDrop registers the drop callback with
// Wails (runtime.OnFileDrop); tests replace it.
func (a *App) attachDocuments(d host.Documents) {
	a.docs = d
	a.onDrop = wailsrt.OnFileDrop
}

// startDocuments runs with the window: it forwards indexing progress and
// takes file drops. Wails on Linux hands dropped files to OnFileDrop as
// absolute paths (its GTK drag-data-received / drag-drop handlers); the
// page stops WebKit from also opening the dropped file (STACK.md).
func (a *App) startDocuments(ctx context.Context) {
	if a.docs == nil {
		return
	}
	go func() {
		for p := range a.docs.Watch(ctx) {
			a.emit(ctx, eventIndexing, p)
		}
	}()
	if a.onDrop != nil {
		a.onDrop(ctx, func(_, _ int, paths []string) { a.drop(ctx, paths) })
	}
}

// drop queues dropped paths; a drop that cannot be queued is said in the page.
func (a *App) drop(ctx context.Context, paths []string) {
	if err := a.docs.Add(ctx, paths); err != nil {
		a.log.Warn("a drop could not be indexed", "paths", paths, "err", err)
		a.emit(ctx, eventDropFail, err.Error())
	}
}

func (a *App) documents() (host.Documents, error) { return partOf(a, a.docs, errNoDocuments) }

// partOf is a panel's port once the page has shaken hands, or missing when
// this window was built without it (p is a nil interface).
func partOf[P any](a *App, p P, missing error) (P, error) {
	var none P
	if err := a.ready(); err != nil {
		return none, err
	}
	if any(p) == nil {
		return none, missing
	}
	return p, nil
}

// Documents is what the documents panel shows: every document with its
// status, the active embedder and the indexing progress.
func (a *App) Documents() (protocol.DocumentsState, error) {
	d, err := a.documents()
	if err != nil {
		return protocol.DocumentsState{}, err
	}
	return d.State(a.callCtx())
}

// IndexPaths indexes files or folders by their absolute paths, in the
// background (the same as dropping them on the window).
func (a *App) IndexPaths(paths []string) error {
	d, err := a.documents()
	if err != nil {
		return err
	}
	return d.Add(a.callCtx(), paths)
}

// CancelIndexing stops the running pass; what it finished stays indexed.
func (a *App) CancelIndexing() error {
	d, err := a.documents()
	if err != nil {
		return err
	}
	d.Cancel()
	return nil
}

// RetryDocument indexes a failed document (or the failed ones of a folder) again.
func (a *App) RetryDocument(path string) error {
	d, err := a.documents()
	if err != nil {
		return err
	}
	return d.Retry(a.callCtx(), path)
}

// RemoveDocument takes a document or folder out of the index (not off the disk).
func (a *App) RemoveDocument(path string) error {
	d, err := a.documents()
	if err != nil {
		return err
	}
	return d.Remove(a.callCtx(), path)
}

// SetEmbedModel chooses the embedding model of the documents ("" for
// none); they are re-embedded in the background (quire:indexing says how).
func (a *App) SetEmbedModel(model string) error {
	d, err := a.documents()
	if err != nil {
		return err
	}
	return d.SetEmbedModel(a.callCtx(), model)
}

// DocumentSource is the text of an indexed document for the viewer a
// citation opens; any path that is not an indexed document is refused.
func (a *App) DocumentSource(path string, page int) (protocol.DocumentSource, error) {
	d, err := a.documents()
	if err != nil {
		return protocol.DocumentSource{}, err
	}
	return d.Source(a.callCtx(), path, page)
}

// The memory panel's bound methods (window.go.main.App): the same backend
// and the same sentences as `quire serve`'s /api/memory.

var errNoMemoryHere = errors.New("memory is not available in this window")

// MemoryList is every remembered item and whether new long-term items
// wait for approval.
func (a *App) MemoryList() (protocol.MemoryList, error) {
	if err := a.ready(); err != nil {
		return protocol.MemoryList{}, err
	}
	if a.memory == nil {
		return protocol.MemoryList{}, errNoMemoryHere
	}
	list, err := a.memory.MemoryList(a.callCtx())
	if list.Items == nil {
		list.Items = []protocol.MemoryItem{}
	}
	return list, err
}

// EditMemory replaces an item's text.
func (a *App) EditMemory(id, text string) (protocol.MemoryItem, error) {
	if err := a.ready(); err != nil {
		return protocol.MemoryItem{}, err
	}
	if a.memory == nil {
		return protocol.MemoryItem{}, errNoMemoryHere
	}
	return a.memory.EditMemory(a.callCtx(), id, text)
}

// ForgetMemory forgets an item; the events that made it stay in the log.
func (a *App) ForgetMemory(id string) error {
	if err := a.ready(); err != nil {
		return err
	}
	if a.memory == nil {
		return errNoMemoryHere
	}
	return a.memory.ForgetMemory(a.callCtx(), id)
}

// ReviewMemory approves (keeps) or rejects a pending item.
func (a *App) ReviewMemory(id string, approve bool) error {
	if err := a.ready(); err != nil {
		return err
	}
	if a.memory == nil {
		return errNoMemoryHere
	}
	return a.memory.ReviewMemory(a.callCtx(), id, approve)
}

// SetMemoryApproval turns approval of new long-term items on or off.
func (a *App) SetMemoryApproval(on bool) error {
	if err := a.ready(); err != nil {
		return err
	}
	if a.memory == nil {
		return errNoMemoryHere
	}
	return a.memory.SetMemoryApproval(a.callCtx(), on)
}

// SetMemoryLearning turns on or off asking the model, after each run, for
// facts and preferences worth keeping.
func (a *App) SetMemoryLearning(on bool) error {
	if err := a.ready(); err != nil {
		return err
	}
	if a.memory == nil {
		return errNoMemoryHere
	}
	return a.memory.SetMemoryLearning(a.callCtx(), on)
}

// The notes panel's bound methods (window.go.main.App): the same backend
// and the same sentences as `quire serve`'s /api/notes.

var errNoNotesHere = errors.New("the notes panel is not available in this window (its database could not be opened); see the health checks")

// withNotes calls f on the notes panel's backend once the page greeted.
func withNotes[T any](a *App, f func(n host.Notes, ctx context.Context) (T, error)) (T, error) {
	var none T
	if err := a.ready(); err != nil {
		return none, err
	}
	if a.notes == nil {
		return none, errNoNotesHere
	}
	return f(a.notes, a.callCtx())
}

// NotesTree lists one folder of the notes folder ("" for its top).
func (a *App) NotesTree(path string) (protocol.NoteFolder, error) {
	return withNotes(a, func(n host.Notes, ctx context.Context) (protocol.NoteFolder, error) { return n.Tree(ctx, path) })
}

// NoteText is a note's text for the read-only preview, bounded.
func (a *App) NoteText(path string) (protocol.NoteText, error) {
	return withNotes(a, func(n host.Notes, ctx context.Context) (protocol.NoteText, error) { return n.Read(ctx, path) })
}

// NoteChanges is every change by Quire, newest first, across conversations.
func (a *App) NoteChanges() (protocol.ChangeList, error) {
	return withNotes(a, func(n host.Notes, ctx context.Context) (protocol.ChangeList, error) { return n.Changes(ctx) })
}

// UndoChange reverts one change. The page's confirmation showed its exact
// reverse; the yes is a native dialog, as for every other change to the
// notes in the window (the page shows text from the notes, so its own
// button is not the user's yes: ApplyBatch). A No undoes nothing and says so.
func (a *App) UndoChange(id string) (protocol.UndoOutcome, error) {
	return withNotes(a, func(n host.Notes, ctx context.Context) (protocol.UndoOutcome, error) {
		return a.askUndo(ctx, n, []string{id}, func() (protocol.UndoOutcome, error) { return n.Undo(ctx, id) })
	})
}

// UndoConversation reverts a conversation's changes, exactly ids (what the
// confirmation listed), newest first, stopping at the first refusal, after
// one native dialog listing them.
func (a *App) UndoConversation(session string, ids []string) (protocol.UndoOutcome, error) {
	return withNotes(a, func(n host.Notes, ctx context.Context) (protocol.UndoOutcome, error) {
		return a.askUndo(ctx, n, ids, func() (protocol.UndoOutcome, error) { return n.UndoAll(ctx, session, ids) })
	})
}

// askUndo asks, in one native dialog, whether to undo the changes ids
// (each in words: what comes back where), and runs undo on a Yes.
func (a *App) askUndo(ctx context.Context, n host.Notes, ids []string, undo func() (protocol.UndoOutcome, error)) (protocol.UndoOutcome, error) {
	if len(ids) == 0 {
		return undo()
	}
	list, err := n.Changes(ctx)
	if err != nil {
		return protocol.UndoOutcome{}, err
	}
	byID := map[string]protocol.ChangeRecord{}
	for _, c := range list.Changes {
		byID[c.ID] = c
	}
	lines := make([]string, 0, len(ids))
	for _, id := range ids {
		lines = append(lines, undoLine(id, byID[id]))
	}
	title := "Undo this change?"
	if len(ids) > 1 {
		title = fmt.Sprintf("Undo these %s?", count(len(ids), "change", "changes"))
	}
	text := batchText("Quire will put back, newest first (the window shows each change's exact reverse):", lines, "Yes undoes them; No changes nothing.")
	yes, err := a.confirm(title, text)
	if err != nil {
		return protocol.UndoOutcome{}, err
	}
	if !yes {
		first := byID[ids[0]]
		return protocol.UndoOutcome{Refused: &protocol.UndoRefusal{ID: ids[0], Path: first.Path, Reason: "You said No: nothing was undone."}}, nil
	}
	return undo()
}

// undoLine is one change's undo in words, every invisible character escaped.
func undoLine(id string, c protocol.ChangeRecord) string {
	switch {
	case c.ID == "":
		return host.Visible(id) + " (no longer listed: Quire will refuse it)"
	case c.From != "":
		return host.Visible(c.Path) + " → back to " + host.Visible(c.From)
	default:
		return host.Visible(c.Path) + ": as it was before this change (" + host.Visible(c.Tool) + ")"
	}
}

// NoteVersions are Quire's version of a note and the note now.
func (a *App) NoteVersions(id string) (protocol.NoteVersions, error) {
	return withNotes(a, func(n host.Notes, ctx context.Context) (protocol.NoteVersions, error) { return n.Versions(ctx, id) })
}

// NoteLinks are a note's backlinks and unresolved links.
func (a *App) NoteLinks(path string) (protocol.NoteLinks, error) {
	return withNotes(a, func(n host.Notes, ctx context.Context) (protocol.NoteLinks, error) { return n.Links(ctx, path) })
}

// PreviewWrite is what a proposed note write would do, computed without
// writing; args is the call's arguments as JSON text.
func (a *App) PreviewWrite(tool, args string) (protocol.WritePreview, error) {
	return withNotes(a, func(n host.Notes, ctx context.Context) (protocol.WritePreview, error) {
		return n.Preview(ctx, tool, json.RawMessage(args))
	})
}

// The models screen: bound methods and pull progress.

// eventPull carries a protocol.PullProgress whenever a pull changes
// (docs/PROTOCOL.md): each pull's terminal state always, running figures
// coalesced to the latest.
const eventPull = "quire:pull"

// errNoModels: this window was built without the models screen.
var errNoModels = errors.New("the models screen is not available in this window")

// startModels runs with the window: it forwards every pull's progress.
func (a *App) startModels(ctx context.Context) {
	if a.models == nil {
		return
	}
	go func() {
		for p := range a.models.Watch(ctx) {
			a.emit(ctx, eventPull, p)
		}
	}()
}

func (a *App) modelsPort() (host.Models, error) {
	if err := a.ready(); err != nil {
		return nil, err
	}
	if a.models == nil {
		return nil, errNoModels
	}
	return a.models, nil
}

// Models lists the installed models with what each can do, which are
// loaded, the recommended list and the pulls since start; an Ollama that
// does not answer is said in the state's error, not as a failure.
func (a *App) Models() (protocol.ModelsState, error) {
	m, err := a.modelsPort()
	if err != nil {
		return protocol.ModelsState{}, err
	}
	return m.List(a.callCtx())
}

// PullModel starts pulling a model by name (or joins its running pull);
// progress arrives as quire:pull events.
func (a *App) PullModel(name string) error {
	m, err := a.modelsPort()
	if err != nil {
		return err
	}
	return m.Pull(a.callCtx(), name)
}

// CancelPull stops a running pull; what was downloaded is kept, and
// pulling the name again resumes it.
func (a *App) CancelPull(name string) error {
	m, err := a.modelsPort()
	if err != nil {
		return err
	}
	m.CancelPull(name)
	return nil
}

// DeleteModel removes an installed model (the page asks the user first).
func (a *App) DeleteModel(name string) error {
	m, err := a.modelsPort()
	if err != nil {
		return err
	}
	return m.Delete(a.callCtx(), name)
}

// The inspector ("what the model saw"): a session's model calls, read
// from its log.

var errNoCallsHere = errors.New("this window cannot show what the model saw")

func (a *App) callsPort() (host.Calls, error) {
	if err := a.ready(); err != nil {
		return nil, err
	}
	if a.calls == nil {
		return nil, errNoCallsHere
	}
	return a.calls, nil
}

// Calls lists a session's model calls (only run's when run is not "").
func (a *App) Calls(session, run string) (protocol.CallList, error) {
	c, err := a.callsPort()
	if err != nil {
		return protocol.CallList{}, err
	}
	list, err := c.Calls(a.callCtx(), session, run)
	if list.Calls == nil {
		list.Calls = []protocol.CallSummary{}
	}
	return list, err
}

// Call is a session's nth model call in full (its texts bounded).
func (a *App) Call(session string, n int) (protocol.Call, error) {
	c, err := a.callsPort()
	if err != nil {
		return protocol.Call{}, err
	}
	return c.Call(a.callCtx(), session, n)
}

// CallRequest is call n's request whole, as `quire replay SESSION -request
// N` prints it: what "Copy request as JSON" copies.
func (a *App) CallRequest(session string, n int) (string, error) {
	c, err := a.callsPort()
	if err != nil {
		return "", err
	}
	b, err := c.Request(a.callCtx(), session, n)
	return string(b), err
}

// Batches: "organise a folder" as a queue of small tasks, its progress and
// its one review. The page shows the whole review list and its own confirm;
// the yes itself (Apply, and Undo) is a native dialog here, as a permission
// question is: the page shows text the workers wrote from the notes, and a
// dialog is what none of that can click. The dialog lists what Go will
// apply — the decision it was given, not words the page made.

// eventBatch carries a protocol.BatchProgress whenever a batch changes
// (docs/PROTOCOL.md), in order per batch.
const eventBatch = "quire:batch"

// errNoBatches: this window was built without the task queue.
var errNoBatches = errors.New("organising a folder is not available in this window")

// errNoWindow: a batch's yes was asked for before the window was up.
var errNoWindow = errors.New("the window is not open yet, so Quire cannot ask; try again in a moment")

// startBatches runs with the window: it forwards every batch's progress.
func (a *App) startBatches(ctx context.Context) {
	if a.batches == nil {
		return
	}
	go func() {
		for p := range a.batches.Watch(ctx) {
			a.emit(ctx, eventBatch, p)
		}
	}()
}

func (a *App) batchesPort() (host.Batches, error) { return partOf(a, a.batches, errNoBatches) }

// Batches lists every batch, newest first.
func (a *App) Batches() ([]protocol.Batch, error) {
	b, err := a.batchesPort()
	if err != nil {
		return nil, err
	}
	list, err := b.List(a.callCtx())
	if list == nil && err == nil {
		list = []protocol.Batch{}
	}
	return list, err
}

// BatchReview is one batch with its tasks and, once it is reviewing, its
// review list.
func (a *App) BatchReview(id string) (protocol.BatchReview, error) {
	b, err := a.batchesPort()
	if err != nil {
		return protocol.BatchReview{}, err
	}
	return b.Get(a.callCtx(), id)
}

// StartBatch starts organising folder (relative to the notes folder); it
// returns once the tasks are queued.
func (a *App) StartBatch(folder string) (protocol.Batch, error) {
	b, err := a.batchesPort()
	if err != nil {
		return protocol.Batch{}, err
	}
	batch, err := b.Start(a.callCtx(), folder)
	return batch, spoken(err)
}

// PauseBatch stops new claims; the notes being read finish.
func (a *App) PauseBatch(id string) (protocol.Batch, error) {
	return a.batchAction(id, host.Batches.Pause)
}

// ResumeBatch lets a paused batch go on.
func (a *App) ResumeBatch(id string) (protocol.Batch, error) {
	return a.batchAction(id, host.Batches.Resume)
}

// CancelBatch stops a batch that is not applied; it never applies.
func (a *App) CancelBatch(id string) (protocol.Batch, error) {
	return a.batchAction(id, host.Batches.Cancel)
}

func (a *App) batchAction(id string, act func(host.Batches, context.Context, string) (protocol.Batch, error)) (protocol.Batch, error) {
	b, err := a.batchesPort()
	if err != nil {
		return protocol.Batch{}, err
	}
	batch, err := act(b, a.callCtx(), id)
	return batch, spoken(err)
}

// ApplyBatch is the user's one yes for a batch: a native dialog lists what
// d approves (every selected item: the move, its tags and links), and only
// its Yes applies them, as one change. A No changes nothing and returns
// the batch as it is (still reviewing).
func (a *App) ApplyBatch(id string, d protocol.BatchDecision) (protocol.Batch, error) {
	b, err := a.batchesPort()
	if err != nil {
		return protocol.Batch{}, err
	}
	var lines []string
	for _, it := range d.Items {
		if it.Selected {
			lines = append(lines, itemLine(it))
		}
	}
	title := "Apply this change to your notes?"
	if len(lines) != 1 {
		title = fmt.Sprintf("Apply these %s to your notes?", count(len(lines), "change", "changes"))
	}
	text := batchText("Quire will make these changes as one batch; Undo this batch reverts all of them.", lines,
		"Yes applies them all; No changes nothing.")
	yes, err := a.confirm(title, text)
	if err != nil || !yes {
		return a.unchanged(b, id, err)
	}
	batch, err := b.Apply(a.callCtx(), id, d)
	return batch, spoken(err)
}

// UndoBatch reverts an applied batch, as one, after a native dialog lists
// what it reverses (the changes the queue recorded). A No changes nothing and returns the batch as it is.
func (a *App) UndoBatch(id string) (protocol.Batch, error) {
	b, err := a.batchesPort()
	if err != nil {
		return protocol.Batch{}, err
	}
	r, err := b.Get(a.callCtx(), id)
	if err != nil {
		return protocol.Batch{}, err
	}
	var lines []string
	for _, c := range r.Changes {
		lines = append(lines, changeLine(c))
	}
	title := fmt.Sprintf("Undo this batch (%s)?", count(len(lines), "change", "changes"))
	text := batchText("Quire will put these notes back as they were before the batch:", lines, "Yes undoes them all; No changes nothing.")
	yes, err := a.confirm(title, text)
	if err != nil || !yes {
		return a.unchanged(b, id, err)
	}
	batch, err := b.Undo(a.callCtx(), id)
	return batch, spoken(err)
}

// unchanged is a batch the user said No to (or could not be asked about).
func (a *App) unchanged(b host.Batches, id string, asked error) (protocol.Batch, error) {
	if asked != nil {
		return protocol.Batch{}, asked
	}
	r, err := b.Get(a.callCtx(), id)
	return r.Batch, err
}

// confirm shows one native Yes/No dialog, in turn with the permission
// questions' (one dialog at a time: Wails answers every message dialog
// through one channel).
func (a *App) confirm(title, text string) (bool, error) {
	window := a.window.Load()
	if window == nil {
		return false, errNoWindow
	}
	select {
	case a.dialogs <- struct{}{}:
	case <-(*window).Done():
		return false, context.Cause(*window)
	}
	defer func() { <-a.dialogs }()
	return a.dialog(*window, title, text)
}

// itemLine is one review item in words, every invisible character
// escaped: "inbox/a.md → projects/a.md · tags: idea".
func itemLine(it protocol.ReviewItem) string {
	to := it.To
	if to == "" {
		to = it.From
	}
	parts := []string{host.Visible(it.From) + " → " + host.Visible(to)}
	if to == it.From {
		parts[0] = host.Visible(it.From) + " (stays)"
	}
	if len(it.Tags) > 0 {
		parts = append(parts, "tags: "+host.Visible(strings.Join(it.Tags, ", ")))
	}
	if len(it.Links) > 0 {
		parts = append(parts, "links: "+host.Visible(strings.Join(it.Links, ", ")))
	}
	return strings.Join(parts, " · ")
}

// changeLine is what undoing one change of a batch does, in words.
func changeLine(c protocol.BatchChange) string {
	if c.Kind == protocol.BatchChangeMove {
		return host.Visible(c.Path) + " → " + host.Visible(c.From)
	}
	return host.Visible(c.Path) + ": its tags and links as before"
}

// batchText is a batch dialog's message: the lines that fit a dialog
// (dialogMaxLines, dialogMaxRunes, each wrapped at dialogWrap), and for
// the rest how many there are and where they are all listed — the page's
// review list, which shows them whole.
func batchText(head string, items []string, foot string) string {
	var b strings.Builder
	b.WriteString(head + "\n")
	lines, runes := 0, 0
	for i, it := range items {
		shown := wrap(it, dialogWrap)
		n := strings.Count(shown, "\n") + 1
		r := utf8.RuneCountInString(it)
		if lines+n > dialogMaxLines || runes+r > dialogMaxRunes {
			fmt.Fprintf(&b, "\n…and %s: the Quire window lists all %d. Read them there before you answer.", count(len(items)-i, "more change", "more changes"), len(items))
			break
		}
		lines, runes = lines+n, runes+r
		b.WriteString("\n• " + shown)
	}
	b.WriteString("\n\n" + foot)
	return b.String()
}

// MCP servers: the bound methods of Settings' MCP section and each
// server's changes as a runtime event. Loosening a tool (letting one the
// server did not declare read-only run without a question) is the one
// choice here that removes a question, so its yes is a native dialog, as a
// batch's apply is: the page shows text the servers wrote (their names and
// descriptions), and a dialog is what none of that can click.

// eventMCP carries a protocol.MCPServer whenever a server changes
// (docs/PROTOCOL.md), in order per server, each server's latest state
// when the page is slow.
const eventMCP = "quire:mcp"

// errNoMCP: this window was built without MCP servers.
var errNoMCP = errors.New("MCP servers are not available in this window; update Quire")

// startMCP runs with the window: it forwards every server's changes.
func (a *App) startMCP(ctx context.Context) {
	if a.mcp == nil {
		return
	}
	// Watching starts here, not in the goroutine: a change made right
	// after start-up is not missed.
	updates := a.mcp.Watch(ctx)
	go func() {
		for s := range updates {
			a.emit(ctx, eventMCP, s)
		}
	}()
}

func (a *App) mcpPort() (host.MCP, error) {
	if err := a.ready(); err != nil {
		return nil, err
	}
	if a.mcp == nil {
		return nil, errNoMCP
	}
	return a.mcp, nil
}

// MCPServers is every configured server with its state, stderr tail and
// tools.
func (a *App) MCPServers() (protocol.MCPList, error) {
	m, err := a.mcpPort()
	if err != nil {
		return protocol.MCPList{}, err
	}
	return m.Servers(a.callCtx())
}

// PutMCPServer adds a server, or replaces the one of its name, and starts
// it when enabled; quire:mcp says when it runs or fails. A stdio server
// runs a command on this computer, so it is put only after a native Yes
// to a dialog showing exactly what will run (askServers); a No changes
// nothing. An address is connected to without a dialog: nothing runs here.
func (a *App) PutMCPServer(c protocol.MCPServerConfig) (protocol.MCPServer, error) {
	m, err := a.mcpPort()
	if err != nil {
		return protocol.MCPServer{}, err
	}
	if err := assembly.CheckMCP(c); err != nil {
		return protocol.MCPServer{}, spoken(err)
	}
	if c.Command != "" {
		if err := a.askServers([]protocol.MCPServerConfig{c}); err != nil {
			return protocol.MCPServer{}, err
		}
	}
	s, err := m.Put(a.callCtx(), c)
	return s, spoken(err)
}

// errMCPDeclined: the user said No to the servers' dialog.
var errMCPDeclined = errors.New("you said No: no MCP server was added or changed, and nothing was run")

// errMCPTooLong: what would run does not fit in one dialog, so it cannot be
// asked whole.
var errMCPTooLong = errors.New("these MCP servers are too long to show whole in one question, so Quire did not add them; " +
	"add them a few at a time, or type each with `quire mcp add` in a terminal")

// askServers asks, in one native dialog, before cfgs are saved and
// started: each server's whole command line (or address) and the names
// of its environment variables or headers (their values may be tokens
// and are not shown). What does not fit in a dialog is refused rather
// than cut: a Yes is never given to a command the user could not read.
func (a *App) askServers(cfgs []protocol.MCPServerConfig) error {
	var b strings.Builder
	lines, runes := 0, 0
	runsHere := false
	for _, c := range cfgs {
		item := serverLines(c)
		runsHere = runsHere || c.Command != ""
		shown := wrap(item, dialogWrap)
		lines += strings.Count(shown, "\n") + 1
		runes += utf8.RuneCountInString(item)
		b.WriteString("\n• " + shown)
	}
	if lines > dialogMaxLines || runes > dialogMaxRunes {
		return errMCPTooLong
	}
	title := "Add this MCP server?"
	if len(cfgs) != 1 {
		title = fmt.Sprintf("Add these %d MCP servers?", len(cfgs))
	}
	head := "Quire will connect to:"
	if runsHere {
		head = "Quire will run these commands on this computer, now and whenever the server is started, with your permissions:"
	}
	yes, err := a.confirm(title, head+"\n"+b.String()+"\n\nYes saves and starts them; No changes nothing and runs nothing.")
	switch {
	case err != nil:
		return err
	case !yes:
		return errMCPDeclined
	}
	return nil
}

// serverLines is one server as the dialog shows it: its name, the command
// and every argument (quoted when a space or quote would hide where one
// ends), or its address; then the names of its env or headers. Every
// invisible or layout character is escaped (host.Visible).
func serverLines(c protocol.MCPServerConfig) string {
	var b strings.Builder
	b.WriteString(host.Visible(c.Name) + ": ")
	names, kind := c.Env, "environment"
	if c.URL != "" {
		b.WriteString("connects to " + host.Visible(c.URL))
		names, kind = c.Headers, "headers"
	} else {
		words := []string{}
		for _, w := range append([]string{c.Command}, c.Args...) {
			if w == "" || strings.ContainsAny(w, " \t\n\"'\\") {
				w = strconv.Quote(w)
			}
			words = append(words, host.Visible(w))
		}
		b.WriteString("runs " + strings.Join(words, " "))
	}
	if len(names) > 0 {
		keys := slices.Sorted(maps.Keys(names))
		for i, k := range keys {
			keys[i] = host.Visible(k)
		}
		fmt.Fprintf(&b, "\n  %s: %s (values not shown)", kind, strings.Join(keys, ", "))
	}
	if !c.Enabled {
		b.WriteString("\n  saved turned off: it runs when you start it")
	}
	return b.String()
}

// RemoveMCPServer stops a server and forgets its configuration.
func (a *App) RemoveMCPServer(name string) error {
	m, err := a.mcpPort()
	if err != nil {
		return err
	}
	return spoken(m.Remove(a.callCtx(), name))
}

// ImportMCP takes a pasted mcp.json text: what was added, and what was
// refused and why. What it would add is asked first in one native dialog
// listing each server's command or address (askServers); a No changes
// nothing.
func (a *App) ImportMCP(text string) (protocol.MCPImport, error) {
	m, err := a.mcpPort()
	if err != nil {
		return protocol.MCPImport{}, err
	}
	cfgs, _, err := assembly.ParseMCP(text)
	if err != nil {
		return protocol.MCPImport{}, spoken(err)
	}
	if len(cfgs) > 0 {
		if err := a.askServers(cfgs); err != nil {
			return protocol.MCPImport{}, err
		}
	}
	res, err := m.Import(a.callCtx(), text)
	return res, spoken(err)
}

// ControlMCPServer starts, stops or restarts one server (action "start",
// "stop" or "restart").
func (a *App) ControlMCPServer(name, action string) (protocol.MCPServer, error) {
	m, err := a.mcpPort()
	if err != nil {
		return protocol.MCPServer{}, err
	}
	acts := map[string]func(context.Context, string) (protocol.MCPServer, error){"start": m.Start, "stop": m.Stop, "restart": m.Restart}
	act, ok := acts[action]
	if !ok {
		return protocol.MCPServer{}, fmt.Errorf("%q is not start, stop or restart: %w", action, protocol.ErrBadPayload)
	}
	return act(a.callCtx(), name)
}

// SetMCPTool saves the user's choice for one tool. A loosening (effects
// "read" for a tool its server did not declare read-only) is asked first
// in a native dialog that says what it means; a No changes nothing and
// returns the server as it is.
func (a *App) SetMCPTool(c protocol.MCPToolChoice) (protocol.MCPServer, error) {
	m, err := a.mcpPort()
	if err != nil {
		return protocol.MCPServer{}, err
	}
	if c.Effects != "" {
		s, t, err := mcpTool(a.callCtx(), m, c.Server, c.Tool)
		if err != nil {
			return protocol.MCPServer{}, err
		}
		if loosens(t, c.Effects) {
			yes, err := a.confirm(fmt.Sprintf("Let %s run without asking?", host.Visible(t.Name)), loosenText(t, c.Effects))
			if err != nil || !yes {
				return s, err
			}
		}
	}
	s, err := m.SetTool(a.callCtx(), c)
	return s, spoken(err)
}

// mcpTool finds one tool of one server as it is now.
func mcpTool(ctx context.Context, m host.MCP, server, tool string) (protocol.MCPServer, protocol.MCPTool, error) {
	list, err := m.Servers(ctx)
	if err != nil {
		return protocol.MCPServer{}, protocol.MCPTool{}, err
	}
	for _, s := range list.Servers {
		if s.Config.Name != server {
			continue
		}
		for _, t := range s.Tools {
			if t.Tool == tool {
				return s, t, nil
			}
		}
	}
	return protocol.MCPServer{}, protocol.MCPTool{}, fmt.Errorf("the MCP server %q has no tool %q now; open Settings again: %w", server, tool, protocol.ErrNotFound)
}

// loosens reports whether choosing effects for t asks less than both what
// its server declared and what it runs with now. Every spelling the
// manager takes counts ("read", "READ", " read ", "none", "net",
// "read+read"), and so does loosening an already loosened tool further
// ("none" after "read"): matching the one spelling "read" let the others
// past the dialog. A set Quire does not know is the manager's to refuse.
func loosens(t protocol.MCPTool, effects string) bool {
	chosen, err := tool.ParseEffects(effects)
	if err != nil {
		return false
	}
	declared := tool.WriteFs | tool.Net // what no annotation, or anything but readOnlyHint, means
	if t.ReadOnly {
		declared = tool.ReadFs
	}
	now, err := tool.ParseEffects(t.Effects)
	if err != nil {
		now = declared
	}
	return asksLess(declared, chosen) && asksLess(now, chosen)
}

// asksLess reports whether a tool with the effects to is asked less than
// with from: it drops an effect that is asked, or it drops the last of
// reading and the network, whose results mark the session as having read
// outside text (so grants stop holding, kernel/core). A read-only tool
// tightened to write+net asks more, not less.
func asksLess(from, to tool.Effect) bool {
	const outside = tool.ReadFs | tool.Net
	return (from&^to)&^tool.ReadFs != 0 || (from&outside != 0 && to&outside == 0)
}

// loosenText says what loosening a tool to effects means, in the dialog
// that asks.
func loosenText(t protocol.MCPTool, effects string) string {
	said := "The server did not say this tool only reads"
	switch {
	case t.ReadOnly:
		said = "The server says this tool only reads; what it returns is still outside text"
	case t.Destructive:
		said = "The server says this tool can destroy things"
	}
	as := "reading only"
	if e, err := tool.ParseEffects(effects); err == nil && e != tool.ReadFs {
		as = "having the effects " + e.String() + " only"
	}
	return fmt.Sprintf("%s (server %s, tool %s). Yes treats it as %s: the model can call it whenever it likes, "+
		"with any arguments, and Quire will not ask you first. No keeps asking before every call.",
		said, host.Visible(t.Server), host.Visible(t.Tool), as)
}

// Evolution: the candidate improvements (issue 20), their evaluation, the
// user's approval, scoped activation and rollback. The page shows the diff,
// the evidence and the eval report; the yes of each step that changes what
// Quire does (approve, activate, roll back) is a native dialog here, as a
// batch's apply is: a candidate's text may come from the model, and a
// dialog is what none of it can click. The dialog says what Go will do —
// the candidate's artifact and the report's regressions as the log holds
// them, not words the page made.

// errNoEvolution: this window was built without the evolution part.
var errNoEvolution = errors.New("evolution is not available in this window")

// evolutionMaxRunes bounds the artifact text a dialog quotes: a fragment's
// most (protocol.MaxFragment), so one is always quoted whole; a longer one
// (a skill) is named by its length and digest, which the yes carries.
const evolutionMaxRunes = protocol.MaxFragment

func (a *App) evolutionPort() (host.Evolution, error) {
	return partOf(a, a.evolution, errNoEvolution)
}

// Evolution is every candidate, newest first, with the latest signals.
func (a *App) Evolution() (protocol.EvolutionState, error) {
	e, err := a.evolutionPort()
	if err != nil {
		return protocol.EvolutionState{}, err
	}
	return e.List(a.callCtx())
}

// SetEvolutionLearning saves whether the model may propose candidates
// after a run that left signals (off by default), and returns the state.
func (a *App) SetEvolutionLearning(on bool) (protocol.EvolutionState, error) {
	e, err := a.evolutionPort()
	if err != nil {
		return protocol.EvolutionState{}, err
	}
	if err := e.SetLearning(a.callCtx(), on); err != nil {
		return protocol.EvolutionState{}, spoken(err)
	}
	return e.List(a.callCtx())
}

// EvolutionCandidate is one candidate with the active version it would
// replace, its evidence and the signals seen while it was active.
func (a *App) EvolutionCandidate(id string) (protocol.CandidateDetail, error) {
	e, err := a.evolutionPort()
	if err != nil {
		return protocol.CandidateDetail{}, err
	}
	return e.Show(a.callCtx(), id)
}

// ProposeCandidate adds a candidate the user wrote; it changes nothing
// until it is evaluated, approved and activated.
func (a *App) ProposeCandidate(d protocol.CandidateDraft) (protocol.Candidate, error) {
	e, err := a.evolutionPort()
	if err != nil {
		return protocol.Candidate{}, err
	}
	c, err := e.Propose(a.callCtx(), d)
	return c, spoken(err)
}

// EvaluateCandidate starts the candidate's isolated evaluation (temporary
// folders, never the user's notes) and returns the job at once: a real
// model's evaluation takes minutes. Its progress and end come as
// quire:evaluation events (EvaluationJob), and EvaluationJob polls it.
func (a *App) EvaluateCandidate(id string) (protocol.EvaluationJob, error) {
	e, err := a.evolutionPort()
	if err != nil {
		return protocol.EvaluationJob{}, err
	}
	j, err := e.StartEvaluation(a.callCtx(), id)
	return j, spoken(err)
}

// EvaluationJob is the candidate's latest evaluation since the start.
func (a *App) EvaluationJob(id string) (protocol.EvaluationJob, error) {
	e, err := a.evolutionPort()
	if err != nil {
		return protocol.EvaluationJob{}, err
	}
	j, err := e.Evaluation(a.callCtx(), id)
	return j, spoken(err)
}

// CancelEvaluation stops the candidate's running evaluation; nothing is
// recorded, so it needs no dialog.
func (a *App) CancelEvaluation(id string) (protocol.EvaluationJob, error) {
	e, err := a.evolutionPort()
	if err != nil {
		return protocol.EvaluationJob{}, err
	}
	j, err := e.CancelEvaluation(a.callCtx(), id)
	return j, spoken(err)
}

// eventEvaluation carries a protocol.EvaluationJob whenever an evaluation
// job changes (docs/PROTOCOL.md), in order per candidate.
const eventEvaluation = "quire:evaluation"

// startEvolution runs with the window: it forwards every evaluation job's
// progress.
func (a *App) startEvolution(ctx context.Context) {
	if a.evolution == nil {
		return
	}
	go func() {
		for j := range a.evolution.WatchEvaluations(ctx) {
			a.emit(ctx, eventEvaluation, j)
		}
	}()
}

// RefuseCandidate is the user's no; it needs no dialog (a no changes what
// Quire does in no way).
func (a *App) RefuseCandidate(id, reason string) (protocol.Candidate, error) {
	e, err := a.evolutionPort()
	if err != nil {
		return protocol.Candidate{}, err
	}
	c, err := e.Refuse(a.callCtx(), id, reason)
	return c, spoken(err)
}

// ApproveCandidate is the user's yes to a candidate, after a native dialog
// that quotes what it would add and names, from its report, every scenario
// it breaks that passes now. A No changes nothing and returns the
// candidate as it is.
func (a *App) ApproveCandidate(id string, ap protocol.Approval) (protocol.Candidate, error) {
	return a.askedStep(id, "Approve", func(d protocol.CandidateDetail) string {
		var b strings.Builder
		b.WriteString(artifactText(d.Candidate))
		if d.Active != nil {
			fmt.Fprintf(&b, "\n\nIt would replace version %d, active now.", d.Active.Version)
		}
		if ev := d.Candidate.Evaluation; ev != nil {
			if broken := ev.Regressions(); len(broken) > 0 {
				verb := "pass"
				if len(broken) == 1 {
					verb = "passes"
				}
				fmt.Fprintf(&b, "\n\nIt breaks %s that %s now, which you accept by approving:", count(len(broken), "scenario", "scenarios"), verb)
				for _, name := range broken {
					b.WriteString("\n• " + host.Visible(name))
				}
			}
		}
		b.WriteString("\n\nNothing changes until you activate it. Yes approves it; No changes nothing.")
		return b.String()
	}, func(e host.Evolution, d protocol.CandidateDetail) (protocol.Candidate, error) {
		// The yes is to the text this dialog showed: a page that named
		// another is refused by the port.
		ap.Digest = cmp.Or(ap.Digest, d.Candidate.Digest)
		return e.Approve(a.callCtx(), id, ap)
	})
}

// ActivateCandidate makes an approved candidate active in ac's scope after
// a native dialog saying what will change, where, and which version it
// replaces. A No changes nothing.
func (a *App) ActivateCandidate(id string, ac protocol.Activation) (protocol.Candidate, error) {
	return a.askedStep(id, "Activate", func(d protocol.CandidateDetail) string {
		where := "every conversation"
		if ac.Scope == protocol.ScopeFolder {
			where = "conversations over this notes folder"
		}
		text := artifactText(d.Candidate) + "\n\nFrom the next message on, in " + where + "."
		if d.Active != nil {
			text += fmt.Sprintf(" Version %d, active now, stops.", d.Active.Version)
		}
		return text + " Roll back undoes it in one step.\n\nYes activates it; No changes nothing."
	}, func(e host.Evolution, d protocol.CandidateDetail) (protocol.Candidate, error) {
		ac.Digest = cmp.Or(ac.Digest, d.Candidate.Digest)
		return e.Activate(a.callCtx(), id, ac)
	})
}

// RollbackCandidate ends the activation of id after a native dialog saying
// what stops and what is active again. A No changes nothing.
func (a *App) RollbackCandidate(id string) (protocol.Candidate, error) {
	return a.askedStep(id, "Roll back", func(d protocol.CandidateDetail) string {
		text := fmt.Sprintf("From the next message on, the model is no longer told what version %d adds.", d.Candidate.Version)
		if d.Candidate.Replaces != "" {
			text += " The version it replaced is active again."
		}
		return text + "\n\nYes rolls it back; No changes nothing."
	}, func(e host.Evolution, _ protocol.CandidateDetail) (protocol.Candidate, error) {
		return e.Rollback(a.callCtx(), id)
	})
}

// askedStep takes step on candidate id only after a native Yes to
// "VERB NAME (version N)?" with the text ask makes of the candidate as the
// log holds it; a No returns the candidate unchanged.
func (a *App) askedStep(id, verb string, ask func(protocol.CandidateDetail) string, step func(host.Evolution, protocol.CandidateDetail) (protocol.Candidate, error)) (protocol.Candidate, error) {
	e, err := a.evolutionPort()
	if err != nil {
		return protocol.Candidate{}, err
	}
	d, err := e.Show(a.callCtx(), id)
	if err != nil {
		return protocol.Candidate{}, err
	}
	c := d.Candidate
	yes, err := a.confirm(fmt.Sprintf("%s %q (version %d)?", verb, host.Visible(c.Name), c.Version), ask(d))
	if err != nil || !yes {
		return c, err
	}
	c, err = step(e, d)
	return c, spoken(err)
}

// artifactText is what a candidate changes, in words, its text quoted up
// to evolutionMaxRunes with every invisible character shown.
func artifactText(c protocol.Candidate) string {
	var head, body string
	switch art := c.Artifact; {
	case art.Prompt != nil:
		head, body = "While it is active, the model is told:", art.Prompt.Text
	case art.Skill != nil:
		head, body = "While it is active, the model may use this skill (it grants no tool):", art.Skill.SkillMD
	case art.Workflow != nil:
		head, body = "While it is active, this task is offered (it runs as any chat does, asking as usual):", art.Workflow.Task
	}
	body = host.Visible(body)
	if n := utf8.RuneCountInString(body); n > evolutionMaxRunes {
		return fmt.Sprintf("%s\n\n%s… \n\n(%d characters in all: the Evolution panel shows it whole, with digest %s; what you approve is that text exactly)",
			head, wrap(string([]rune(body)[:evolutionMaxRunes/2]), dialogWrap), n, c.Digest)
	}
	return head + "\n\n" + wrap(body, dialogWrap)
}

// Settings → Skills' bound methods (window.go.main.App): the same port and
// sentences as `quire serve`'s /api/skills.

var errNoSkillsHere = errors.New("skills are not available in this window (the database could not be opened); see the health checks")

func (a *App) skillsPort() (host.Skills, error) {
	if err := a.ready(); err != nil {
		return nil, err
	}
	if a.skills == nil {
		return nil, errNoSkillsHere
	}
	return a.skills, nil
}

// Skills lists the installed skills: where each comes from, whether it is
// on, why it is not offered; and the folders that are not skills.
func (a *App) Skills() (protocol.SkillList, error) {
	s, err := a.skillsPort()
	if err != nil {
		return protocol.SkillList{}, err
	}
	return s.SkillList(a.callCtx())
}

// SetSkillEnabled turns a skill on or off for the runs that start later.
func (a *App) SetSkillEnabled(name string, on bool) error {
	s, err := a.skillsPort()
	if err != nil {
		return err
	}
	return s.SetSkillEnabled(a.callCtx(), name, on)
}

// InstallSkill copies the skill folder dir into the skills folder.
func (a *App) InstallSkill(dir string) (protocol.SkillInfo, error) {
	s, err := a.skillsPort()
	if err != nil {
		return protocol.SkillInfo{}, err
	}
	return s.InstallSkill(a.callCtx(), dir)
}

// The window's size when none was kept, and the bounds a kept one is held
// to (the window's minimum; an 8K screen), so a damaged or hand-edited
// file cannot open a window too small to use or larger than any screen.
const (
	defaultWidth, defaultHeight = 1200, 800
	minWidth, minHeight         = 760, 520
	maxWidth, maxHeight         = 7680, 4320
)

// windowSizeFile keeps the window's size as it was when it last closed,
// in the data folder, so the window opens as the user left it (issue 31:
// it opened at 1200×800 every time).
func windowSizeFile(dataDir string) string { return filepath.Join(dataDir, "window.json") }

type windowSize struct {
	Width  int `json:"width"`
	Height int `json:"height"`
}

// loadWindowSize is the kept size, bounded; the default when none was
// kept or the file cannot be read.
func loadWindowSize(dataDir string) (width, height int) {
	b, err := os.ReadFile(windowSizeFile(dataDir))
	var s windowSize
	if err != nil || json.Unmarshal(b, &s) != nil || s.Width <= 0 || s.Height <= 0 {
		return defaultWidth, defaultHeight
	}
	return min(max(s.Width, minWidth), maxWidth), min(max(s.Height, minHeight), maxHeight)
}

// saveWindowSize keeps the size for the next start; written whole to a
// temporary file and renamed, so a crash leaves the old one or the new.
func saveWindowSize(dataDir string, width, height int) error {
	b, err := json.Marshal(windowSize{Width: width, Height: height})
	if err != nil {
		return err
	}
	tmp := windowSizeFile(dataDir) + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, windowSizeFile(dataDir))
}
