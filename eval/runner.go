package eval

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"quire/kernel/protocol"
	"quire/kernel/runtime"
	"quire/test/ollamatest"
)

// Env is the world a Builder assembles a kernel in: everything lives under
// the scenario's temporary folder.
type Env struct {
	DataDir  string
	NotesDir string // "" when the scenario starts with no notes folder
	DocsDir  string // "" when it has no documents; else index it for search_docs
	// OllamaHost, Model and NumCtx are the model settings; EmbedModel is
	// empty for scripted runs (the offline embedder keeps them fast).
	OllamaHost string
	// Runner and RunnerURL are config's: "" or "openai", and the
	// OpenAI-compatible server's address.
	Runner     string
	RunnerURL  string
	Model      string
	NumCtx     int
	EmbedModel string
	// Ask answers permission questions as the scenario's user.
	Ask runtime.Asker
	// Tools are the scenario's fixture tools, offered beside Quire's own.
	Tools []runtime.ToolProvider
	// RememberWithoutAsking is the memory panel's setting of that name.
	RememberWithoutAsking bool
	// MCP are the scenario's MCP servers, attached for this run only;
	// MCPCallSeconds their calls' deadline (0: the default).
	MCP            []MCPAttach
	MCPCallSeconds int
	// Fragment is the text of the active prompt fragments, added to every
	// run's context where activation puts them (Options.Fragment): how an
	// evaluation runs a scenario with a candidate. Empty, nothing is added.
	Fragment string
	// DisabledSkills are the skills turned off in Settings.
	DisabledSkills []string
}

// Instance is a running kernel. Close stops it as quitting Quire does.
type Instance struct {
	Kernel protocol.Kernel
	// Batches is the task queue (nil: none), for organise actions.
	Batches Batches
	// Standing is the standing tasks (nil: none), for standing actions.
	Standing Standing
	// MCP is the MCP servers' client (nil: none), for setup.mcp.
	MCP   MCPServers
	Close func()
}

// Batches is the task queue as a scenario's user drives it (host.Batches'
// methods it needs).
type Batches interface {
	Start(ctx context.Context, folder string) (protocol.Batch, error)
	Get(ctx context.Context, id string) (protocol.BatchReview, error)
	Apply(ctx context.Context, id string, d protocol.BatchDecision) (protocol.Batch, error)
	Cancel(ctx context.Context, id string) (protocol.Batch, error)
	Watch(ctx context.Context) <-chan protocol.BatchProgress
}

// Standing is the standing tasks as a scenario's user drives them
// (host.Standing's methods it needs).
type Standing interface {
	Add(ctx context.Context, t protocol.StandingTask) (protocol.StandingSummary, error)
	RunNow(ctx context.Context, id string) (protocol.StandingFiring, error)
}

// Builder assembles the kernel a scenario runs against. The composition
// root (assembly.EvalBuilder) gives its own
// wiring, so scenarios test what users run.
type Builder func(ctx context.Context, env Env) (Instance, error)

// Options choose what to run and against what.
type Options struct {
	// Filter keeps scenarios whose name, class or file contains it.
	Filter string
	// Real runs against a real Ollama at Host with Model: scripted turns are
	// not used and only outcome checks apply.
	Real  bool
	Host  string
	Model string
	// EmbedModel is the embedding model of a real run ("" = offline).
	EmbedModel string
	// Parallel is how many scenarios run at once; default 4 (1 when Real,
	// a local model answers one request at a time anyway).
	Parallel int
	// MCPStdio runs the test MCP server as a child process, for scenarios
	// whose servers say transport: stdio (eval/mcp.go); nil skips them.
	MCPStdio MCPStdio
	// Fragment is added to every scenario's context (Env.Fragment): the
	// active prompt fragments, or those with a candidate (Compare).
	Fragment string
	// Runner is the adapter the model is reached by: "" for Ollama's own
	// API, "openai" for the OpenAI-compatible one (the fake's /v1, the
	// same scripted turns; with Real, Host is then that server's /v1).
	Runner string
}

// parallel is how many scenarios run at once (Options.Parallel).
func (o Options) parallel() int {
	switch {
	case o.Parallel > 0:
		return o.Parallel
	case o.Real:
		return 1
	}
	return 4
}

// Select keeps the scenarios opts selects, in order.
func Select(all []Scenario, opts Options) ([]Scenario, error) {
	var out []Scenario
	for _, sc := range all {
		if opts.Filter == "" || strings.Contains(sc.Name, opts.Filter) || sc.Class == opts.Filter || strings.Contains(sc.File, opts.Filter) {
			out = append(out, sc)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w match %q", ErrNoScenarios, opts.Filter)
	}
	return out, nil
}

// Run plays every scenario and reports. Results are in the scenarios' order
// whatever order they finished in.
func Run(ctx context.Context, scenarios []Scenario, build Builder, opts Options) Report {
	start := time.Now()
	results := make([]Result, len(scenarios))
	sem := make(chan struct{}, opts.parallel())
	var wg sync.WaitGroup
	for i, sc := range scenarios {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			results[i] = RunOne(ctx, sc, build, opts)
		}()
	}
	wg.Wait()
	return Report{Results: results, Real: opts.Real, Model: opts.Model, Took: time.Since(start)}
}

// RunOne plays one scenario in a fresh temporary world and checks it.
func RunOne(ctx context.Context, sc Scenario, build Builder, opts Options) Result {
	if sc.Candidate != nil {
		return runCandidate(ctx, sc, build, opts)
	}
	res := Result{Name: sc.Name, Class: sc.Class, File: sc.File}
	switch {
	case opts.Real && !sc.forReal():
		res.Skipped, res.Why = true, "only the fake model server can stage it, and this run is against a real model"
		return res
	case opts.MCPStdio == nil && sc.needsStdio():
		res.Skipped, res.Why = true, "it needs a stdio MCP server and none was given to this run"
		return res
	}
	start := time.Now()
	p, err := play(ctx, sc, build, opts)
	res.Took = time.Since(start)
	if err != nil {
		res.Failures = append(res.Failures, err.Error())
	}
	if p != nil {
		res.Steps, res.ToolCalls, res.Tokens = p.metrics()
		res.Answer = short(lastReply(p.events))
		res.Failures = append(res.Failures, p.check(sc, opts.Real)...)
		os.RemoveAll(p.root)
	}
	res.Pass = len(res.Failures) == 0
	return res
}

// forReal reports whether the scenario means anything against a real
// model: not when it stages a failure only the fake server can (Ollama down,
// a missing model, a failing reply, a wait for an MCP server's state),
// brings a model of its own, or says real: false.
func (sc *Scenario) forReal() bool {
	if sc.Real != nil && !*sc.Real || sc.Setup.Ollama == "down" || sc.Setup.Ollama == "no-model" || sc.Setup.Model != nil {
		return false
	}
	return !slices.ContainsFunc(sc.Model, func(t ModelTurn) bool { return t.Fail != nil }) && sc.mcpForReal()
}

// played is what a scenario left behind, for the checks.
type played struct {
	root         string // the scenario's temporary folder
	notes        string
	outside      string
	setupNotes   map[string]string
	setupOutside map[string]string
	events       []protocol.Event
	requests     []string // each request's messages as one text
	replies      []reply  // how a real Ollama answered each request (real runs)
	asked        int
	askProblems  []string
	questions    []runtime.Question // every question the user was asked, in order
	actionErrors []string
	pendingTurns int
	batch        *protocol.BatchReview         // the last organise action's batch, as it ended
	workerEvents []protocol.Event              // the logs of its workers' sessions
	mcp          map[string]protocol.MCPServer // the MCP servers as the scenario ended
	runner       string                        // Options.Runner: the adapter the model was reached by
}

func play(ctx context.Context, sc Scenario, build Builder, opts Options) (*played, error) {
	timeout := time.Duration(sc.Timeout)
	if timeout == 0 {
		// Generous: it is only reached when something hangs, and a loaded
		// machine under -race must not turn a slow pass into a failure.
		timeout = 30 * time.Second
		if opts.Real {
			timeout = 5 * time.Minute
		}
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	root, err := os.MkdirTemp("", "quire-eval-*")
	if err != nil {
		return nil, err
	}
	// From here on p is returned, even with an error, so the caller checks
	// what there is and removes root.
	p := &played{runner: opts.Runner, root: root, notes: filepath.Join(root, "notes"), outside: filepath.Join(root, "outside")}
	env := Env{DataDir: filepath.Join(root, "data"), NumCtx: cmp.Or(sc.Setup.NumCtx, 8192), RememberWithoutAsking: sc.Setup.RememberWithoutAsking,
		MCPCallSeconds: sc.Setup.MCPCallSeconds, Fragment: opts.Fragment}
	if env.MCP, err = attachMCP(root, env.DataDir, sc.Setup.MCP, opts.MCPStdio); err != nil {
		return p, err
	}
	if p.setupNotes, err = writeFiles(p.notes, sc.Setup.Notes); err != nil {
		return p, err
	}
	if p.setupOutside, err = writeFiles(p.outside, sc.Setup.Outside); err != nil {
		return p, err
	}
	for _, l := range sc.Setup.Links {
		if err := os.Symlink(l.Target, filepath.Join(p.notes, filepath.FromSlash(l.Path))); err != nil {
			return p, err
		}
	}
	if !sc.Setup.NoNotesFolder {
		env.NotesDir = p.notes
	}
	if err := setupSkills(sc.Setup.Skills, &env); err != nil {
		return p, err
	}
	if len(sc.Setup.Documents) > 0 {
		env.DocsDir = filepath.Join(root, "docs")
		if _, err := writeFiles(env.DocsDir, sc.Setup.Documents); err != nil {
			return p, err
		}
	}

	// The model: the fake server with the scripted turns, or a real Ollama
	// behind a recorder of what it is sent.
	var requests func() []string
	replies := func() []reply { return nil }
	if opts.Real {
		rec, err := newRecorder(opts.Host)
		if err != nil {
			return p, err
		}
		defer rec.Close()
		env.OllamaHost, env.Model, env.EmbedModel = rec.URL(), opts.Model, opts.EmbedModel
		requests, replies = rec.Requests, rec.Replies
		if opts.Runner != "" {
			// The recorder keeps Ollama's /api/chat only: an
			// OpenAI-compatible server is reached directly.
			env.Runner, env.RunnerURL = opts.Runner, opts.Host
		}
	} else {
		// The runner's context is the setting's, as a user loads a
		// llama.cpp or LM Studio model with the length Quire is set to.
		fake, err := ollamatest.Listen("127.0.0.1:0", ollamatest.WithAside(compactionStandIn), ollamatest.WithLoadedContext(env.NumCtx))
		if err != nil {
			return p, err
		}
		defer fake.Close()
		chat := ollamatest.DefaultModel()
		if m := sc.Setup.Model; m != nil {
			chat = ollamatest.Model{Name: m.Name, Capabilities: m.Capabilities, ContextLength: m.ContextLength}
		}
		if sc.Setup.Ollama != "no-model" {
			fake.AddModel(ollamatest.DefaultModel())
			fake.AddModel(chat)
		}
		turns, err := sc.turns()
		if err != nil {
			return p, err
		}
		fake.Script(turns...)
		env.OllamaHost, env.Model = fake.URL(), chat.Name
		if sc.Setup.Ollama == "down" {
			if env.OllamaHost, err = deadAddress(); err != nil {
				return p, err
			}
		}
		if opts.Runner != "" {
			env.Runner, env.RunnerURL = opts.Runner, env.OllamaHost+"/v1"
		}
		requests = func() []string { return requestTexts(fake.Requests()) }
		defer func() { p.pendingTurns = fake.Pending() }()
	}

	fx := newFixtures(sc.Setup.Tools)
	defer fx.Release()
	if len(fx.tools) > 0 {
		env.Tools = []runtime.ToolProvider{fx}
	}
	ask := &asker{answers: sc.Answers, real: opts.Real}
	env.Ask = ask.ask

	err = p.converse(ctx, sc, build, env)
	p.requests = requests()
	p.replies = replies()
	p.asked, p.askProblems = ask.result()
	p.questions = ask.seen()
	return p, err
}

// converse starts the kernel, plays the user's actions and waits for the
// conversation to settle, then reads the log.
func (p *played) converse(ctx context.Context, sc Scenario, build Builder, env Env) error {
	inst, err := build(ctx, env)
	if err != nil {
		return fmt.Errorf("starting Quire: %w", err)
	}
	defer func() { inst.Close() }()
	if err := mcpReady(ctx, inst.MCP, sc.Setup.MCP); err != nil {
		return fmt.Errorf("starting the scenario's MCP servers: %w", err)
	}
	sess, err := protocol.Run[protocol.Session](ctx, inst.Kernel, "", protocol.CreateSession, protocol.CreateSessionPayload{Title: sc.Name})
	if err != nil {
		return fmt.Errorf("creating the conversation: %w", err)
	}
	log := newFollower()
	stop := log.follow(ctx, inst.Kernel, sess.ID)
	sent, mark := 0, 0
	// idle confirms in the stored log what the followed events suggest:
	// events arrive one by one, and the input.received that opens a run
	// comes before the run.started appended with it.
	idle := func(evs []protocol.Event) bool {
		if !settled(evs, sent) {
			return false
		}
		stored, err := inst.Kernel.Events(ctx, sess.ID, 0)
		return err == nil && settled(stored, sent)
	}
	// earlier are the sessions a new_conversation left behind; their logs
	// are checked too, before the current one's.
	var earlier []string
	// done stops following and keeps the stored logs for the checks, also
	// when the conversation went wrong: the log says how.
	done := func(err error) error {
		stop()
		if len(sc.Setup.MCP) > 0 {
			var merr error
			if p.mcp, merr = mcpStates(context.WithoutCancel(ctx), inst.MCP); merr != nil {
				err = errors.Join(err, fmt.Errorf("reading the MCP servers' states: %w", merr))
			}
		}
		var evs []protocol.Event
		for _, id := range append(earlier, sess.ID) {
			got, lerr := inst.Kernel.Events(context.WithoutCancel(ctx), id, 0)
			if lerr != nil {
				return errors.Join(err, fmt.Errorf("reading the log: %w", lerr))
			}
			evs = append(evs, got...)
		}
		p.events = evs
		if err != nil {
			return fmt.Errorf("%w; %s", err, lastEvents(evs, 4))
		}
		return nil
	}
	for i, a := range sc.User {
		if server, state, ok := mcpWait(a.When); ok {
			if err := waitMCP(ctx, inst.MCP, server, state); err != nil {
				return done(fmt.Errorf("user[%d] waited in vain: %w", i, err))
			}
		} else if err := log.waitFor(ctx, func(evs []protocol.Event) (bool, error) {
			switch {
			case a.When == "idle":
				return idle(evs), nil
			case ready(a.When, evs, mark):
				return true, nil
			case idle(evs):
				// At rest with no run open, nothing more happens until the
				// user acts: the event can no longer come.
				return false, ErrNeverCame
			}
			return false, nil
		}); err != nil {
			return done(fmt.Errorf("user[%d] waited for %q in vain: %w", i, a.When, err))
		}
		mark = log.len()
		var err error
		switch {
		case a.Say != "":
			_, err = protocol.Run[protocol.SendResult](ctx, inst.Kernel, "", protocol.SendMessage,
				protocol.SendMessagePayload{Session: sess.ID, Text: a.Say, Intent: a.Intent})
			if err == nil {
				sent++
			}
		case a.Cancel:
			_, err = protocol.Run[struct{}](ctx, inst.Kernel, "", protocol.CancelRun, protocol.SessionRef{Session: sess.ID})
		case a.Restart:
			stop()
			inst.Close()
			if inst, err = build(ctx, env); err != nil {
				inst = Instance{Kernel: protocol.Unavailable{Err: err}, Close: func() {}}
				return fmt.Errorf("user[%d]: starting Quire again: %w", i, err)
			}
			stop = log.follow(ctx, inst.Kernel, sess.ID)
			if err := mcpReady(ctx, inst.MCP, sc.Setup.MCP); err != nil {
				return done(fmt.Errorf("user[%d]: starting the MCP servers again: %w", i, err))
			}
		case a.Organise != "":
			err = p.organise(ctx, inst, a)
		case a.Standing != nil:
			err = p.standing(ctx, inst, a)
		case a.NewConversation:
			var next protocol.Session
			if next, err = protocol.Run[protocol.Session](ctx, inst.Kernel, "", protocol.CreateSession, protocol.CreateSessionPayload{Title: sc.Name}); err == nil {
				stop()
				earlier, sess, sent, mark = append(earlier, sess.ID), next, 0, 0
				log = newFollower()
				stop = log.follow(ctx, inst.Kernel, sess.ID)
			}
		}
		if err != nil {
			p.actionErrors = append(p.actionErrors, err.Error())
		}
	}
	if err := log.waitFor(ctx, func(evs []protocol.Event) (bool, error) { return idle(evs), nil }); err != nil {
		return done(fmt.Errorf("%w in time (%v)", ErrNotSettled, err))
	}
	return done(nil)
}

// ready reports whether the user's wait for an event is over.
func ready(when string, evs []protocol.Event, mark int) bool {
	if when == "" {
		return true
	}
	return slices.ContainsFunc(evs[mark:], func(e protocol.Event) bool { return e.Type == when })
}

// settled: every message sent has arrived and every run has finished. A
// queued follow-up opens its run in the same append that closes the one
// before, so a settled log stays settled until the user acts.
func settled(evs []protocol.Event, sent int) bool {
	received, started, finished := 0, 0, 0
	for _, e := range evs {
		switch e.Type {
		case "input.received":
			received++
		case "run.started":
			started++
		case "run.finished":
			finished++
		}
	}
	return received >= sent && started == finished
}

func lastEvents(evs []protocol.Event, n int) string {
	var types []string
	for _, e := range evs[max(0, len(evs)-n):] {
		types = append(types, e.Type)
	}
	return "the log ends with " + strings.Join(types, ", ")
}

// follower keeps the events of one session as they are appended.
type follower struct {
	mu      sync.Mutex
	events  []protocol.Event
	changed chan struct{}
}

func newFollower() *follower { return &follower{changed: make(chan struct{})} }

// follow reads the session's events from the next seq until stop.
func (f *follower) follow(ctx context.Context, k protocol.Kernel, session string) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	ch, _ := k.Follow(ctx, session, int64(f.len()))
	done := make(chan struct{})
	go func() {
		defer close(done)
		for e := range ch {
			f.mu.Lock()
			f.events = append(f.events, e)
			close(f.changed)
			f.changed = make(chan struct{})
			f.mu.Unlock()
		}
	}()
	return func() { cancel(); <-done }
}

func (f *follower) len() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.events)
}

// waitFor waits until cond reports the wait over: done, or given up with
// the reason (an event that can no longer come), or the context ends.
func (f *follower) waitFor(ctx context.Context, cond func([]protocol.Event) (bool, error)) error {
	for {
		f.mu.Lock()
		ok, err := cond(f.events)
		changed := f.changed
		f.mu.Unlock()
		if ok || err != nil {
			return err
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
}

// asker is the scenario's user answering permission questions in order.
type asker struct {
	mu       sync.Mutex
	answers  []Answer
	real     bool
	asked    int
	problems []string
	// questions are what the user was shown, for the invariant that every
	// yes was given to the whole of what it allowed (shownInFull).
	questions []runtime.Question
}

func (a *asker) ask(ctx context.Context, q runtime.Question) (runtime.Answer, error) {
	ans, ok := a.next(q)
	if !ok {
		return runtime.Answer{Allowed: false, Feedback: "No."}, nil
	}
	if ans.Hold {
		<-ctx.Done()
		return runtime.Answer{}, context.Cause(ctx)
	}
	return runtime.Answer{Allowed: ans.Allow, Feedback: ans.Feedback}, nil
}

// next takes the scripted answer to q; ok is false when there is none, or
// it is meant for another tool (a real model may ask in another order, and
// a yes meant for one tool must never approve another). Scripted runs note
// both as problems.
func (a *asker) next(q runtime.Question) (ans Answer, ok bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	i := a.asked
	a.asked++
	a.questions = append(a.questions, q)
	var names []string
	for _, c := range q.Calls {
		names = append(names, c.Name)
	}
	problem := func(format string, args ...any) {
		if !a.real {
			a.problems = append(a.problems, fmt.Sprintf(format, args...))
		}
	}
	if i >= len(a.answers) {
		problem("the user was asked about %s (question %d) and the scenario has no answer for it", strings.Join(names, ", "), i+1)
		return Answer{}, false
	}
	ans = a.answers[i]
	if ans.Tool != "" && !slices.Contains(names, ans.Tool) {
		problem("question %d was about %s, the scenario expected %s", i+1, strings.Join(names, ", "), ans.Tool)
		return Answer{}, false
	}
	return ans, true
}

func (a *asker) seen() []runtime.Question {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.questions)
}

func (a *asker) result() (int, []string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.asked, slices.Clone(a.problems)
}

// writeFiles creates files under dir (made even when there are none) and
// returns their contents by slash path.
func writeFiles(dir string, files []File) (map[string]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, f := range files {
		path := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(path, []byte(f.Content()), 0o644); err != nil {
			return nil, err
		}
		out[filepath.ToSlash(filepath.Clean(f.Path))] = f.Content()
	}
	return out, nil
}

// readTree returns every regular file under dir by slash path; links are
// not followed (the files they point to are checked where they are).
func readTree(dir string) (map[string]string, error) {
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		out[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	if errors.Is(err, os.ErrNotExist) {
		return out, nil
	}
	return out, err
}

// deadAddress is an address where nothing listens: Ollama is down.
func deadAddress() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr, nil
}
