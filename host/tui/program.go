package tui

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"quire/host"
	"quire/kernel/protocol"
)

// Options are what `quire chat` runs with.
type Options struct {
	// Session is the conversation to open ("" starts a new one).
	Session string
	In      io.Reader
	Out     io.Writer
	// Terminal: In and Out are a terminal, so the full-screen-free inline
	// UI runs (bubbletea); otherwise plain lines are read and written.
	Terminal bool
}

// maxLine bounds a line read in line mode.
const maxLine = maxInput

// cancelWait bounds the stop of a reply when the chat quits with one going.
const cancelWait = 5 * time.Second

// Run is `quire chat` on d until the user quits (or ctx ends); it returns
// the exit status: 0, or 1 when the conversation could not be opened.
func Run(ctx context.Context, d host.Driver, o Options) int {
	r := &runner{d: d, k: d.Kernel()}
	var s protocol.Session
	var err error
	if o.Session != "" {
		s, err = r.find(ctx, o.Session)
	} else {
		s, err = protocol.Run[protocol.Session](ctx, r.k, "", protocol.CreateSession, protocol.CreateSessionPayload{Title: "Terminal chat"})
	}
	if err != nil {
		fmt.Fprintln(o.Out, "quire:", err)
		return 1
	}
	defer r.stop()
	if o.Terminal {
		return r.terminal(ctx, s, o)
	}
	return r.lines(ctx, s, o)
}

// runner carries out a Model's Actions against the driver and delivers
// what comes back as Msgs.
type runner struct {
	d       host.Driver
	k       protocol.Kernel
	deliver func(Msg)
	mu      sync.Mutex
	leave   context.CancelFunc // ends the shown session's claim and follow
	shown   string             // the shown session's id
	done    chan struct{}      // closed once the shown session's claim is let go
	// left are the sessions this terminal let go whose claims may not be
	// free yet (a claim ends in the background once its context ends):
	// switching back waits for it instead of finding it "claimed" by itself.
	left map[string]chan struct{}
	wg   sync.WaitGroup
}

func (r *runner) find(ctx context.Context, id string) (protocol.Session, error) {
	list, err := r.k.Sessions(ctx)
	if err != nil {
		return protocol.Session{}, err
	}
	for _, s := range list {
		if s.ID == id {
			return s, nil
		}
	}
	return protocol.Session{}, fmt.Errorf("there is no conversation %q (/sessions or `quire sessions` lists them)", id)
}

// open shows s: it claims the session's questions (so they are asked here,
// not in the window) and follows its log from the start, after Opened.
func (r *runner) open(ctx context.Context, s protocol.Session) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if done, ok := r.left[s.ID]; ok {
		select {
		case <-done:
		case <-ctx.Done():
			return ctx.Err()
		}
		delete(r.left, s.ID)
	}
	cctx, leave := context.WithCancel(ctx)
	questions, err := r.d.Claim(cctx, s.ID)
	if err != nil {
		leave()
		return err
	}
	if r.leave != nil {
		r.leave()
		if r.left == nil {
			r.left = map[string]chan struct{}{}
		}
		r.left[r.shown] = r.done
	}
	done := make(chan struct{})
	r.leave, r.shown, r.done = leave, s.ID, done
	r.deliver(Opened(s))
	events, errp := r.k.Follow(cctx, s.ID, 0)
	r.wg.Add(2)
	go func() {
		defer r.wg.Done()
		defer close(done) // the driver closes questions once the claim is let go
		for list := range questions {
			r.deliver(Questions(list))
		}
	}()
	go func() {
		defer r.wg.Done()
		for e := range events {
			r.deliver(Event(e))
		}
		if err := errp(); err != nil && cctx.Err() == nil {
			r.deliver(Failed{Err: fmt.Errorf("stopped following the conversation: %w", err)})
		}
	}()
	return nil
}

func (r *runner) stop() {
	r.mu.Lock()
	if r.leave != nil {
		r.leave()
	}
	r.mu.Unlock()
	r.wg.Wait()
}

// do carries out one action other than Print and Quit, in the background.
func (r *runner) do(ctx context.Context, a Action) {
	fail := func(err error) {
		if err != nil {
			r.deliver(Failed{Err: err})
		}
	}
	switch x := a.(type) {
	case Send:
		go func() {
			_, err := protocol.Run[protocol.SendResult](ctx, r.k, "", protocol.SendMessage, protocol.SendMessagePayload{Session: x.Session, Text: x.Text})
			if err != nil {
				r.deliver(Failed{Err: err, Sent: true})
			}
		}()
	case Cancel:
		go func() {
			_, err := protocol.Run[struct{}](ctx, r.k, "", protocol.CancelRun, protocol.SessionRef{Session: x.Session})
			fail(err)
		}()
	case Answer:
		go func() {
			_, err := protocol.Run[struct{}](ctx, r.k, "", protocol.AnswerAsk, protocol.AnswerPayload{Session: x.Session, CallIDs: x.CallIDs, Allowed: x.Allowed})
			fail(err)
		}()
	case List:
		go func() {
			list, err := r.k.Sessions(ctx)
			if err != nil {
				fail(err)
				return
			}
			r.deliver(Listed(list))
		}()
	case FindUndo:
		go func() {
			c, err := r.lastChange(ctx, x.Session)
			if err != nil {
				fail(err)
				return
			}
			r.deliver(UndoFound{c})
		}()
	case UndoChange:
		go func() {
			n := r.d.Notes()
			if n == nil {
				fail(errNoUndo)
				return
			}
			o, err := n.Undo(ctx, x.ID)
			if err != nil {
				fail(err)
				return
			}
			r.deliver(UndoDone(o))
		}()
	case New:
		go func() {
			s, err := protocol.Run[protocol.Session](ctx, r.k, "", protocol.CreateSession, protocol.CreateSessionPayload{Title: "Terminal chat"})
			if err == nil {
				err = r.open(ctx, s)
			}
			fail(err)
		}()
	case Switch:
		go func() {
			s, err := r.find(ctx, x.ID)
			if err == nil {
				err = r.open(ctx, s)
			}
			fail(err)
		}()
	}
}

// errNoUndo: the owner has no Notes panel back end (its log could not be opened).
var errNoUndo = errors.New("this Quire cannot undo a change here; run quire doctor to see why")

// lastChange is the session's newest change still standing: the first that
// "undo all" would revert (the Changes list's own reckoning), or nil.
func (r *runner) lastChange(ctx context.Context, session string) (*protocol.ChangeRecord, error) {
	n := r.d.Notes()
	if n == nil {
		return nil, errNoUndo
	}
	list, err := n.Changes(ctx)
	if err != nil {
		return nil, err
	}
	ids := list.UndoAll[session]
	if len(ids) == 0 {
		return nil, nil
	}
	for _, c := range list.Changes {
		if c.ID == ids[0] {
			return &c, nil
		}
	}
	return nil, nil
}

// quitting stops a reply still going when the user leaves: a run started
// here is not left to go on unseen in the owner.
func (r *runner) quitting(ctx context.Context, m Model) {
	if !m.Running {
		return
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cancelWait)
	defer cancel()
	protocol.Run[struct{}](cctx, r.k, "", protocol.CancelRun, protocol.SessionRef{Session: m.Session.ID})
}

// lines is line mode: a line read is a message, a command or an answer;
// what Update prints is written as it is, the reply once it is whole.
func (r *runner) lines(ctx context.Context, s protocol.Session, o Options) int {
	msgs := make(chan Msg, 64)
	done := make(chan struct{})
	defer close(done)
	r.deliver = func(m Msg) {
		select {
		case msgs <- m:
		case <-done:
		}
	}
	if err := r.open(ctx, s); err != nil {
		fmt.Fprintln(o.Out, "quire:", err)
		return 1
	}
	// Read once the conversation is open, so the first line goes to it.
	go readLines(o.In, r.deliver)
	var m Model
	for {
		var msg Msg
		select {
		case msg = <-msgs:
		case <-ctx.Done():
			r.quitting(ctx, m)
			return 0
		}
		var acts []Action
		asking, undoing := m.Asking, m.Undoing
		m, acts = Update(m, msg)
		for _, a := range acts {
			switch x := a.(type) {
			case Print:
				fmt.Fprintln(o.Out, printed(x))
			case Quit:
				r.quitting(ctx, m)
				return 0
			default:
				r.do(ctx, a)
			}
		}
		// A question newly put gets its prompt once, under what it asks.
		if p := Prompt(m); p != "" && (m.Asking != asking || m.Undoing != undoing) {
			fmt.Fprintln(o.Out, p)
		}
	}
}

// ErrLineTooLong: a line read in line mode is longer than a message may be.
var ErrLineTooLong = errors.New("the line is longer than a message may be")

// readLines delivers each line of in, then EOF. A line longer than
// maxLine is not delivered: it is read to its end and refused in words, and
// the lines after it are read as usual (bufio.Scanner would stop there, and
// the chat with it, losing the rest of the input).
func readLines(in io.Reader, deliver func(Msg)) {
	br := bufio.NewReaderSize(in, 64<<10)
	var line []byte
	size, tooLong := 0, false
	for {
		chunk, err := br.ReadSlice('\n')
		ended := !errors.Is(err, bufio.ErrBufferFull) // by a newline, the end of the input or a failure
		size += len(chunk)
		if !tooLong && len(line)+len(chunk) <= maxLine+len("\r\n") {
			line = append(line, chunk...)
		} else if !tooLong {
			tooLong, line = true, line[:0]
		}
		if !ended {
			continue
		}
		text := strings.TrimSuffix(strings.TrimSuffix(string(line), "\n"), "\r")
		switch {
		case tooLong || len(text) > maxLine:
			deliver(Failed{Err: fmt.Errorf("%w: it is %d bytes, and a message holds at most %d, so it was not sent; shorten it or send it in parts", ErrLineTooLong, size, maxLine)})
		case size > 0:
			deliver(Line(text))
		}
		line, size, tooLong = line[:0], 0, false
		if err != nil {
			if !errors.Is(err, io.EOF) {
				deliver(Failed{Err: fmt.Errorf("reading the input: %w", err)})
			}
			deliver(EOF{})
			return
		}
	}
}

// terminal runs the inline UI: the scrollback above holds what Update
// prints; the live part (the reply as it streams, the prompt) is redrawn.
func (r *runner) terminal(ctx context.Context, s protocol.Session, o Options) int {
	t := &teaModel{r: r, ctx: ctx}
	p := tea.NewProgram(t, tea.WithContext(ctx), tea.WithInput(o.In), tea.WithOutput(o.Out), tea.WithoutSignalHandler())
	r.deliver = func(m Msg) { p.Send(m) }
	// Opened and the first events are sent once the program reads them.
	go func() {
		if err := r.open(ctx, s); err != nil {
			p.Send(Failed{Err: err})
		}
	}()
	final, err := p.Run()
	if fm, ok := final.(*teaModel); ok {
		r.quitting(ctx, fm.m)
	}
	if err != nil && !errors.Is(err, tea.ErrProgramKilled) && ctx.Err() == nil {
		fmt.Fprintln(o.Out, "quire:", err)
		return 1
	}
	return 0
}

// teaModel is Model under bubbletea.
type teaModel struct {
	m   Model
	r   *runner
	ctx context.Context
	// pending are the prints (and a quit) not yet handed to bubbletea, in
	// the order Update asked for them; printing: a sequence of them is
	// under way. bubbletea runs the commands of successive Updates each in
	// a goroutine of its own, so two prints handed over apart could land
	// in either order (a tool line above the reply it follows): one
	// sequence at a time, whose end (printedAll) hands over the next,
	// keeps them in order.
	pending  []tea.Cmd
	printing bool
}

// printedAll: the prints handed to bubbletea have been printed.
type printedAll struct{}

func (t *teaModel) Init() tea.Cmd { return nil }

func (t *teaModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var in Msg
	switch x := msg.(type) {
	case tea.KeyPressMsg:
		in = keyOf(x)
	case tea.PasteMsg:
		in = Key{Text: x.Content}
	case Event, Questions, Opened, Listed, Failed:
		in = x
	case printedAll:
		t.printing = false
		return t, t.flush()
	default:
		return t, nil
	}
	var acts []Action
	t.m, acts = Update(t.m, in)
	for _, a := range acts {
		switch x := a.(type) {
		case Print:
			t.pending = append(t.pending, tea.Println(printed(x)))
		case Quit:
			t.pending = append(t.pending, tea.Quit)
		default:
			t.r.do(t.ctx, a)
		}
	}
	return t, t.flush()
}

// flush hands the pending prints to bubbletea as one sequence, unless one
// is under way (its end flushes again).
func (t *teaModel) flush() tea.Cmd {
	if t.printing || len(t.pending) == 0 {
		return nil
	}
	cmds := append(t.pending, func() tea.Msg { return printedAll{} })
	t.pending, t.printing = nil, true
	return tea.Sequence(cmds...)
}

func (t *teaModel) View() tea.View { return tea.NewView(View(t.m)) }

// keyOf reads a key press as the Model's Key.
func keyOf(k tea.KeyPressMsg) Key {
	switch k.String() {
	case "ctrl+c":
		return Key{Name: KeyCtrlC}
	case "enter":
		return Key{Name: KeyEnter}
	case "backspace":
		return Key{Name: KeyBackspace}
	case "esc":
		return Key{Name: KeyEscape}
	}
	if k.Text != "" {
		return Key{Text: k.Text}
	}
	return Key{Name: -1}
}
