package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"time"

	"quire/host"
	"quire/internal/childgroup"
	"quire/internal/datadir"
	"quire/kernel/protocol"
)

// Exit statuses of `quire run`, one per way a run can close (docs/PROTOCOL.md).
const (
	ExitCompleted = 0 // completed (or nothing to do)
	ExitError     = 1 // the run ended with an error, or Quire could not run it
	ExitUsage     = 2 // a usage error: nothing was run
	// ExitDenied: the message was over the run's input limit, or the run
	// asked to change something and every change was refused: a script
	// must not read "nothing was written" as success. A No among Yeses is
	// the model's to handle.
	ExitDenied      = 3
	ExitLimits      = 4   // a guardrail ended it: max-steps, max-tool-calls, budget, loop
	ExitInterrupted = 5   // Quire stopped under it (the owner closed, a crash found at restart)
	ExitEmpty       = 6   // the model replied nothing, even when asked again
	ExitCancelled   = 130 // Ctrl-C (SIGINT) or SIGTERM cancelled it
)

// exitOf is the exit status of a run that closed with reason.
func exitOf(reason string) int {
	switch reason {
	case "completed", "nothing-to-do":
		return ExitCompleted
	case "denied":
		return ExitDenied
	case "max-steps", "max-tool-calls", "budget", "loop":
		return ExitLimits
	case "interrupted":
		return ExitInterrupted
	case "empty":
		return ExitEmpty
	case "cancelled":
		return ExitCancelled
	}
	return ExitError
}

// Headless answers (-approve), and what the model is told with a No.
const (
	approveNever = "never"
	approveReads = "reads"
	approveAll   = "all"

	noWrites  = "the user's settings allow no writes in a headless run"
	readsOnly = "the user's settings allow only reading in a headless run"
)

// Bounds on an -ask program: how long it may think about one question and
// how much it may say.
const (
	askTimeout = 2 * time.Minute
	askOutput  = 4 << 10
	// maxTask bounds the task's text, as the page's composer is bounded by
	// the request body.
	maxTask = 256 << 10
	// cancelWait bounds how long a cancelled run is followed to its end.
	cancelWait = 15 * time.Second
)

// runOptions are the flags of `quire run`.
type runOptions struct {
	json    bool
	approve string
	ask     string
	session string
}

func (o *runOptions) register(fset *flag.FlagSet) {
	fset.BoolVar(&o.json, "json", false, "write the run's public events as JSON lines, as quire replay -json does")
	fset.StringVar(&o.approve, "approve", approveNever, "answer permission questions: never, reads (both answer No: reading never asks) or all (Yes)")
	fset.StringVar(&o.ask, "ask", "", "run this command (sh -c) for each permission question: the question as JSON on stdin; exit 0 with no output or \"yes\" is a Yes, anything else a No")
	fset.StringVar(&o.session, "session", "", "continue this conversation instead of starting one")
}

// run is `quire run TASK`: one headless run on the data folder's kernel
// (the running owner's, through its local channel, or this process's own),
// which exits when the run ends with the status of its close reason. Text
// mode streams the reply to stdout and tool lines and notices to stderr;
// -json writes every public event of the run to stdout, one a line. The
// session's id is said on stderr so a script can continue it (-session).
func (o *runOptions) run(ctx context.Context, args []string, env Env) int {
	task := strings.TrimSpace(strings.Join(args, " "))
	switch {
	case task == "":
		fmt.Fprintln(env.Stderr, `usage: quire run [-json] [-approve never|reads|all] [-ask CMD] [-session ID] "TASK"`)
		return ExitUsage
	case len(task) > maxTask:
		fmt.Fprintf(env.Stderr, "quire run: the task is %d bytes; at most %d KiB fit in one message\n", len(task), maxTask>>10)
		return ExitUsage
	case !slices.Contains([]string{approveNever, approveReads, approveAll}, o.approve):
		fmt.Fprintf(env.Stderr, "quire run: -approve is never, reads or all, not %q\n", o.approve)
		return ExitUsage
	}
	return withDriver(ctx, env, func(d host.Driver) int {
		t := &headless{o: o, env: env, k: d.Kernel(), answered: map[string]bool{}}
		return t.run(ctx, d, task)
	})
}

// withDriver runs f on the data folder's kernel (drive), or says why it
// could not be opened.
func withDriver(ctx context.Context, env Env, f func(host.Driver) int) int {
	d, err := drive(ctx, env)
	if err != nil {
		fmt.Fprintln(env.Stderr, "quire:", err)
		return ExitError
	}
	defer d.Close()
	return f(d)
}

// drive opens the data folder's kernel for a terminal host, saying whose
// it is when another process owns the folder and cannot be driven.
func drive(ctx context.Context, env Env) (host.Driver, error) {
	if env.Drive == nil {
		return nil, errors.New("this build of Quire has no terminal host")
	}
	d, err := env.Drive(ctx)
	var inUse *datadir.InUseError
	if errors.As(err, &inUse) {
		return nil, fmt.Errorf("%s is using this data folder and takes no conversation from a terminal; run this again when it has finished", inUse.Holder)
	}
	return d, err
}

// headless is one `quire run`.
type headless struct {
	o        *runOptions
	env      Env
	k        protocol.Kernel
	answered map[string]bool // questions answered, by their calls
	// allowed and refused count the answers given: a run that completed
	// with only Noes did nothing it was asked to (ExitDenied).
	allowed, refused int
	// midLine: the reply's text written so far does not end its line, so a
	// tool line (on stderr, often the same pipe) first ends it on stdout.
	midLine bool
}

func (t *headless) run(ctx context.Context, d host.Driver, task string) int {
	// The run is followed on a context of its own: a Ctrl-C cancels the
	// run, and its end is still read (bounded by cancelWait).
	follow, stop := context.WithCancel(context.WithoutCancel(ctx))
	defer stop()
	session, from, err := t.open(follow, task)
	if err != nil {
		fmt.Fprintln(t.env.Stderr, "quire:", err)
		return ExitError
	}
	fmt.Fprintln(t.env.Stderr, "session:", session)
	questions, err := d.Claim(follow, session)
	if err != nil {
		fmt.Fprintf(t.env.Stderr, "quire: %v (is `quire chat` open on it?)\n", err)
		return ExitError
	}
	events, errp := t.k.Follow(follow, session, from)
	sent, err := protocol.Run[protocol.SendResult](follow, t.k, "", protocol.SendMessage, protocol.SendMessagePayload{Session: session, Text: task})
	if err != nil {
		fmt.Fprintln(t.env.Stderr, "quire:", err)
		return ExitError
	}
	interrupted := ctx.Done()
	for {
		select {
		case <-interrupted:
			interrupted = nil
			t.cancel(follow, session)
			time.AfterFunc(cancelWait, stop)
		case list, ok := <-questions:
			if !ok {
				questions = nil
				continue
			}
			for _, q := range list {
				t.answer(follow, q)
			}
		case e, ok := <-events:
			if !ok {
				if err := errp(); err != nil {
					fmt.Fprintln(t.env.Stderr, "quire: stopped following the run:", err)
				} else {
					fmt.Fprintln(t.env.Stderr, "quire: the run did not end after it was cancelled; it is no longer followed")
				}
				return ExitError
			}
			if !(protocol.Audience{}).Sees(e.Visibility) {
				continue // what the window's page sees, and no more
			}
			if reason, done := t.show(e, sent.RunID); done {
				if reason == "completed" && t.refused > 0 && t.allowed == 0 {
					fmt.Fprintf(t.env.Stderr, "quire: nothing was changed: every change the run asked to make was refused (%d)\n", t.refused)
					return ExitDenied
				}
				return exitOf(reason)
			}
		}
	}
}

// open is the session the run goes in — the one named, or a new one — and
// the seq its new events start at.
func (t *headless) open(ctx context.Context, task string) (string, int64, error) {
	if t.o.session == "" {
		s, err := protocol.Run[protocol.Session](ctx, t.k, "", protocol.CreateSession, protocol.CreateSessionPayload{Title: title(task)})
		return s.ID, 0, err
	}
	list, err := t.k.Sessions(ctx)
	if err != nil {
		return "", 0, err
	}
	for _, s := range list {
		if s.ID == t.o.session {
			return s.ID, s.LastSeq + 1, nil
		}
	}
	return "", 0, fmt.Errorf("there is no conversation %q (`quire sessions` lists them)", t.o.session)
}

// title is a new conversation's title: the task's first line, shortened.
func title(task string) string {
	line, _, _ := strings.Cut(task, "\n")
	if r := []rune(line); len(r) > 60 {
		line = string(r[:59]) + "…"
	}
	return line
}

func (t *headless) cancel(ctx context.Context, session string) {
	fmt.Fprintln(t.env.Stderr, "quire: cancelling the run…")
	if _, err := protocol.Run[struct{}](ctx, t.k, "", protocol.CancelRun, protocol.SessionRef{Session: session}); err != nil {
		fmt.Fprintln(t.env.Stderr, "quire: could not cancel the run:", err)
	}
}

// show writes e as the mode says and reports whether it ended run.
func (t *headless) show(e protocol.Event, run string) (reason string, done bool) {
	if t.o.json {
		json.NewEncoder(t.env.Stdout).Encode(e)
	}
	p := host.SaidOf(e)
	text := !t.o.json
	switch e.Type {
	case "input.received":
		if _, notice := host.Notice(p.Caps); text && notice != "" {
			fmt.Fprintln(t.env.Stderr, "quire:", host.Visible(notice))
		}
	case "assistant.delta":
		if text && p.Content != "" {
			io.WriteString(t.env.Stdout, host.Visible(p.Content))
			t.midLine = !strings.HasSuffix(p.Content, "\n")
		}
	// Calls read as what they did, as in the window (protocol.ToolPhrase);
	// -json keeps the names for scripts.
	case "tool.started":
		if text {
			t.endLine()
			fmt.Fprintf(t.env.Stderr, "· %s\n", host.Visible(protocol.ToolPhrase(p.Name)))
		}
	case "tool.result":
		if text && p.Status != "" && p.Status != "success" {
			t.endLine()
			fmt.Fprintf(t.env.Stderr, "· %s: %s\n", host.Visible(protocol.ToolPhrase(p.Name)), host.Visible(protocol.ToolOutcome(p.Status)))
		}
	case "tool.refused":
		if text {
			t.endLine()
			fmt.Fprintf(t.env.Stderr, "· %s: refused (%s), %s\n", host.Visible(protocol.ToolPhrase(p.Name)), host.Visible(p.Status), host.Visible(p.Reason))
		}
	case "stream.failed":
		if text {
			t.endLine()
			fmt.Fprintln(t.env.Stderr, "quire:", host.Visible(p.Message))
		}
	case "run.finished":
		if e.RunID != run {
			return "", false
		}
		if text {
			t.endLine()
		}
		if p.Reason != "completed" {
			msg := "the run ended: " + p.Reason
			if p.Error != "" {
				msg += ": " + p.Error
			}
			fmt.Fprintln(t.env.Stderr, "quire:", host.Visible(msg))
		}
		return p.Reason, true
	}
	return "", false
}

// endLine ends the reply's line on stdout when its text left one open:
// the next step's text, or a tool line on stderr sharing the pipe, starts
// on a line of its own.
func (t *headless) endLine() {
	if t.midLine {
		fmt.Fprintln(t.env.Stdout)
		t.midLine = false
	}
}

// answer answers q once, as -ask or -approve says.
func (t *headless) answer(ctx context.Context, q protocol.Question) {
	key := host.QuestionKey(q)
	if t.answered[key] {
		return
	}
	t.answered[key] = true
	var a protocol.Answer
	switch {
	case t.o.ask != "":
		a = askProgram(ctx, t.o.ask, q, askTimeout)
	case t.o.approve == approveAll:
		a = protocol.Answer{Allowed: true}
	case t.o.approve == approveReads:
		a = protocol.Answer{Feedback: readsOnly}
	default:
		a = protocol.Answer{Feedback: noWrites}
	}
	if a.Allowed {
		t.allowed++
	} else {
		t.refused++
	}
	if !t.o.json {
		verdict := "yes"
		if !a.Allowed {
			verdict = "no (" + a.Feedback + ")"
		}
		t.endLine()
		fmt.Fprintf(t.env.Stderr, "asked: %s\nanswered: %s\n", host.Visible(strings.Join(q.Descriptions, "\n")), host.Visible(verdict))
	}
	ids := make([]string, len(q.Calls))
	for i, c := range q.Calls {
		ids[i] = c.ID
	}
	if _, err := protocol.Run[struct{}](ctx, t.k, "", protocol.AnswerAsk, protocol.AnswerPayload{Session: q.Session, CallIDs: ids, Allowed: a.Allowed, Feedback: a.Feedback}); err != nil {
		fmt.Fprintln(t.env.Stderr, "quire: the answer was not taken:", err)
	}
}

// askProgram runs cmd (sh -c) with q as JSON on its stdin. A Yes is an exit
// status of 0 with nothing or "yes" on stdout; "no …" is a No with the
// rest as the model's feedback; any other output, exit status, a run past
// timeout or more than askOutput bytes is a No that says so. The program
// runs in a process group of its own (childgroup) that is killed whole once
// it has answered or at its bound, and dies with Quire if Quire is killed.
func askProgram(ctx context.Context, cmd string, q protocol.Question, timeout time.Duration) protocol.Answer {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	in, _ := json.Marshal(q)
	c := exec.CommandContext(ctx, "sh", "-c", cmd)
	c.Stdin = bytes.NewReader(in)
	out := &boundedBuffer{max: askOutput}
	c.Stdout = out
	c.WaitDelay = time.Second
	g, err := childgroup.Start(c, c.Start)
	if err == nil {
		err = c.Wait()
		g.Kill() // its question is answered: what it left running goes too
	}
	said := strings.TrimSpace(out.String())
	word, rest, _ := strings.Cut(said, "\n")
	word = strings.ToLower(strings.TrimSpace(word))
	no := func(why string) protocol.Answer {
		return protocol.Answer{Feedback: "the -ask program said no: " + why}
	}
	switch {
	case ctx.Err() != nil:
		return no(fmt.Sprintf("it did not answer within %s", timeout))
	case out.over:
		return no(fmt.Sprintf("it wrote more than %d bytes", askOutput))
	case err != nil && (word == "" || word == "yes"):
		return no(fmt.Sprintf("it failed (%v)", err))
	case word == "yes" || word == "":
		return protocol.Answer{Allowed: true}
	case word == "no" && strings.TrimSpace(rest) != "":
		return protocol.Answer{Feedback: strings.TrimSpace(rest)}
	case word == "no":
		return no("no reason given")
	}
	return no(fmt.Sprintf("its answer %q is neither yes nor no", firstLine(said)))
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	if r := []rune(l); len(r) > 80 {
		l = string(r[:80]) + "…"
	}
	return l
}

// boundedBuffer keeps the first max bytes written to it and notes more.
// The buffer is a field, not embedded: an embedded bytes.Buffer's ReadFrom
// would let io.Copy (exec's stdout pump) fill it past max.
type boundedBuffer struct {
	buf  bytes.Buffer
	max  int
	over bool
}

func (b *boundedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.buf.Len(); len(p) > room {
		b.over = true
		b.buf.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return b.buf.Write(p)
}

func (b *boundedBuffer) String() string { return b.buf.String() }
