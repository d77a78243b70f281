package runtime

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"quire/kernel/compact"
	"quire/kernel/core"
	"quire/kernel/event"
	"quire/kernel/history"
	"quire/kernel/prompt"
	"quire/kernel/protocol"
	"quire/kernel/provider"
	"quire/kernel/tool"
	"quire/kernel/tool/registry"
)

// Store is what the runtime needs of the event store.
type Store interface {
	event.Log
	history.Source
	CreateSessionOf(ctx context.Context, id string, at time.Time, p event.SessionCreatedPayload, once *event.Once) ([]event.Event, *event.Done, error)
	AppendOnce(ctx context.Context, once event.Once, session string, drafts ...event.Draft) ([]event.Event, *event.Done, error)
	DeleteSession(ctx context.Context, id string, once *event.Once) (*event.Done, error)
	Sessions(ctx context.Context) ([]event.SessionSummary, error)
	Recall(ctx context.Context, key string) (fingerprint string, result []byte, found bool, err error)
	LastSeqOf(ctx context.Context, session string, typ event.Type, runID string) (int64, error)
	LastSeqOfAny(ctx context.Context, session, runID string, types ...event.Type) (int64, error)
	EventsOfType(ctx context.Context, session string, typ event.Type) ([]event.Event, error)
	SessionsToRecover(ctx context.Context) (openRuns, unknown []string, err error)
}

// Sentinel errors, also used as cancellation causes so the reason a run
// stopped survives into its terminal event.
var (
	ErrEmptyMessage    = errors.New("the message is empty")
	ErrCancelledByUser = errors.New("stopped by the user")
	ErrSessionDeleted  = errors.New("the conversation was deleted")
	ErrShutdown        = errors.New("the app is shutting down")
	ErrDuplicateTool   = errors.New("two tools have the same name")
	ErrClosed          = errors.New("the app is shutting down and takes no new work")
	// ErrDamagedSession: the session's log holds an event that cannot be
	// read, so it cannot be folded or driven; it is listed as damaged.
	ErrDamagedSession = errors.New("the conversation's log cannot be read")
)

// Settings are the model settings and limits runs use; they are frozen into
// a run's capability snapshot when it starts.
type Settings struct {
	Model string
	// Host is the Ollama address the run's steps are sent to (frozen as
	// event.Capabilities.Host); empty, the adapter's current one.
	Host string
	// Runner is the API Host speaks (provider.Request.Runner), frozen
	// with it; empty, Ollama's own.
	Runner  string
	NumCtx  int
	Profile tool.Profile
	Limits  event.Limits
	// PermissionDefault answers a question nobody answered before the
	// deadline ("deny" or "allow").
	PermissionDefault string
	// Layers decide which tools the model is offered: global, then mode,
	// then sub-agent, then allow/deny lists. A deny in any layer wins.
	Layers []registry.Layer
	// Temperature and Think, when set, go with every request of the run
	// (provider.Request); AboutYou reaches the system text through the
	// about-you fragment (prompt.AboutUserFragment).
	Temperature *float64
	Think       *bool
	AboutYou    string
}

// DefaultLimits are the guardrails unless settings say otherwise.
var DefaultLimits = event.Limits{
	MaxSteps: 25, MaxToolCalls: 50, TokenBudget: 200_000, LoopRepeats: 3,
	PermissionWaitNS: int64(5 * time.Minute),
}

// Update is what subscribers receive (see protocol.Update).
type Update = protocol.Update

// Option configures a Runtime.
type Option func(*Runtime)

// WithClock sets the source of event times.
func WithClock(now func() time.Time) Option { return func(r *Runtime) { r.now = now } }

// WithIDs sets the generator of session, run, input and call ids.
func WithIDs(newID func() string) Option { return func(r *Runtime) { r.newID = newID } }

// WithFlushEvery sets how often streamed deltas are appended as one batch.
func WithFlushEvery(d time.Duration) Option { return func(r *Runtime) { r.flushEvery = d } }

// WithLogger sets the logger.
func WithLogger(l *slog.Logger) Option { return func(r *Runtime) { r.log = l } }

// WithStreams bounds how many model streams run at once, across sessions.
func WithStreams(n int) Option { return func(r *Runtime) { r.pool = make(chan struct{}, max(1, n)) } }

// WithTools adds tool providers.
func WithTools(p ...ToolProvider) Option {
	return func(r *Runtime) { r.toolProviders = append(r.toolProviders, p...) }
}

// WithPrompt sets the assembler of the system text (identity, deployment,
// tool guidance...); contributors are added to it as fragments.
func WithPrompt(a *prompt.Assembler) Option { return func(r *Runtime) { r.prompt = a } }

// WithContributors adds context contributors.
func WithContributors(c ...ContextContributor) Option {
	return func(r *Runtime) { r.contributors = append(r.contributors, c...) }
}

// WithSubscribers adds lifecycle subscribers.
func WithSubscribers(s ...LifecycleSubscriber) Option {
	return func(r *Runtime) { r.lifecycle = append(r.lifecycle, s...) }
}

// WithTriggers adds run triggers.
func WithTriggers(t ...RunTrigger) Option {
	return func(r *Runtime) { r.triggers = append(r.triggers, t...) }
}

// WithCheckpoint adds pre-close hooks, run in the order given.
func WithCheckpoint(h ...CheckpointHook) Option {
	return func(r *Runtime) { r.checkpoint = append(r.checkpoint, h...) }
}

// WithAsker sets how the user is asked for permission. Without one (no UI)
// every question gets the default answer at once, so nothing hangs.
func WithAsker(a Asker) Option { return func(r *Runtime) { r.asker = a } }

// WithErrorHandlers puts handlers in front of the default error chain.
func WithErrorHandlers(h ...ErrorHandler) Option {
	return func(r *Runtime) { r.handlers = append(h, r.handlers...) }
}

// WithJitter sets the source of backoff jitter (a number in [0, 1)).
func WithJitter(j func() float64) Option { return func(r *Runtime) { r.jitter = j } }

// WithCleanup bounds how long a cancelled tool may take to stop before it
// is given a cancelled result and abandoned.
func WithCleanup(d time.Duration) Option { return func(r *Runtime) { r.cleanup = d } }

// WithSessionKind makes the runtime drive only sessions of kind ("" — the
// default — the user's own chats; event.SessionWorker the task queue's
// workers): an input, edit, regenerate or continue to a session of another
// kind is ErrOtherKind. A worker's session is then driven only by the queue's
// runtime with the worker's narrow tools, never by the chats' runtime with
// the write tools, and a chat never by the workers' (seed 002 decision 14).
func WithSessionKind(kind string) Option { return func(r *Runtime) { r.kind = kind } }

// Runtime drives the sessions of one database. It is safe for concurrent use.
type Runtime struct {
	store      Store
	kind       string // the kind of session this runtime drives (WithSessionKind)
	feed       *event.Feed
	reader     *Reader // the log as read: events, projections, the request of each model call
	model      provider.Provider
	now        func() time.Time
	newID      func() string
	flushEvery time.Duration
	cleanup    time.Duration
	log        *slog.Logger
	pool       chan struct{}

	toolProviders []ToolProvider
	contributors  []ContextContributor
	lifecycle     []LifecycleSubscriber
	triggers      []RunTrigger
	checkpoint    []CheckpointHook
	asker         Asker
	handlers      []ErrorHandler
	compactor     Compactor
	compaction    Compaction
	catalog       ModelCatalog // what the chat model can do (fit.go); nil: ask nobody
	jitter        func() float64
	prompt        *prompt.Assembler
	waitsTurn     func(callID string) // called when a serial call finds another holding its turn (tests set it: export_test.go)
	queueBound    event.Bound         // of each Watch and Follow (watch.go)

	base   context.Context
	stop   context.CancelCauseFunc
	owners sync.WaitGroup // owner goroutines
	work   sync.WaitGroup // streams, tools, questions, checkpoints

	mu       sync.Mutex
	settings Settings
	sessions map[string]*session
	damaged  map[string]string // session -> why its log cannot be read
	noTools  map[string]bool   // models Ollama refused tools for (fit.go)
	// cal is what the server's prompt_eval_count taught about each
	// model's tokenizer against the raw estimate (shared with the
	// compaction when it keeps one, WithCompaction).
	cal     *compact.Calibration
	closing bool
}

// New returns a Runtime over a store and a model.
func New(st Store, model provider.Provider, settings Settings, opts ...Option) *Runtime {
	if settings.Limits == (event.Limits{}) {
		settings.Limits = DefaultLimits
	}
	if settings.Profile == "" {
		settings.Profile = tool.AskMe
	}
	r := &Runtime{
		store: st, reader: NewReader(st), model: model, settings: settings, queueBound: event.DefaultBound,
		now: time.Now, newID: randomID, flushEvery: 40 * time.Millisecond, cleanup: 2 * time.Second, log: slog.Default(),
		pool: make(chan struct{}, 2), sessions: map[string]*session{}, damaged: map[string]string{}, jitter: defaultJitter,
	}
	r.handlers = defaultHandlers(r)
	for _, o := range opts {
		o(r)
	}
	if r.cal == nil {
		r.cal = &compact.Calibration{}
	}
	r.feed = event.NewFeed(st, event.WithBound(r.queueBound))
	if r.prompt == nil {
		r.prompt = prompt.New()
	}
	for _, c := range r.contributors {
		r.prompt.Register(prompt.Fragment{Name: c.Name(), Zone: prompt.WorkingZone, Priority: ContributorPriority, Dynamic: r.contribution(c)})
	}
	r.base, r.stop = context.WithCancelCause(context.Background())
	return r
}

// Start checks the capabilities and starts the run triggers. Duplicate tool
// names fail here, at start-up, not when the model first calls one.
func (r *Runtime) Start(ctx context.Context) error {
	if _, err := r.tools(); err != nil {
		return err
	}
	for _, t := range r.triggers {
		t.Start(r.base, func(ctx context.Context, session, text, intent string) error {
			_, err := r.submit(ctx, protocol.SendMessagePayload{Session: session, Text: text, Intent: intent}, nil)
			return err
		})
	}
	return r.Recover(ctx)
}

func randomID() string {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return hex.EncodeToString(b[:])
}

// SetSettings changes the settings for runs that start later.
func (r *Runtime) SetSettings(s Settings) {
	if s.Limits == (event.Limits{}) {
		s.Limits = DefaultLimits
	}
	if s.Profile == "" {
		s.Profile = tool.AskMe
	}
	r.mu.Lock()
	r.settings = s
	r.mu.Unlock()
}

// tools builds the registry of every provider's tools: duplicate names and
// invalid specs fail here. A spec that declares no parameters takes no
// arguments, and one that does not say whether it is idempotent is treated
// as unsafe, so it is never retried.
func (r *Runtime) tools() (*registry.Registry, error) {
	var all []tool.Tool
	for _, p := range r.toolProviders {
		for _, t := range p.Tools() {
			all = append(all, withDefaults{t})
		}
	}
	reg, err := registry.New(all...)
	if errors.Is(err, registry.ErrDuplicate) {
		return nil, fmt.Errorf("%w: %w", ErrDuplicateTool, err)
	}
	return reg, err
}

// SettleWait bounds how long a run waits for its tool sources to start
// (ToolSettler): past an MCP server's own handshake bound (30 s), so a
// server that hangs is failed by its client first.
const SettleWait = 35 * time.Second

// settle waits, bounded by SettleWait, until every ToolSettler's sources
// answered or failed: a run asked for while an MCP server is starting
// (a `quire run` that opened the folder a moment ago) is offered its
// tools, not frozen without them.
func (r *Runtime) settle(ctx context.Context) (waited, starting []string) {
	ctx, cancel := context.WithTimeout(ctx, SettleWait)
	defer cancel()
	for _, p := range r.toolProviders {
		if s, ok := p.(ToolSettler); ok {
			w, st := s.Settle(ctx)
			waited, starting = append(waited, w...), append(starting, st...)
		}
	}
	return waited, starting
}

// withDefaults fills in what a spec may leave out.
type withDefaults struct{ tool.Tool }

func (w withDefaults) Describe(c tool.Call) string { return tool.Describe(w.Tool, c) }

func (w withDefaults) Spec() tool.Spec {
	sp := w.Tool.Spec()
	if sp.Parameters == nil {
		sp.Parameters = map[string]any{"type": "object"}
	}
	if sp.Idempotency == "" {
		sp.Idempotency = tool.Unsafe
	}
	return sp
}

// snapshot freezes the capabilities a run will use: what goes into the log,
// and the tool registry its calls will run with, so a change of settings or
// notes folder mid-run affects only later runs (and no schema is compiled
// again on every call).
func (r *Runtime) snapshot(ctx context.Context, session string) (*event.Capabilities, *registry.Registry, error) {
	r.mu.Lock()
	s := r.settings
	r.mu.Unlock()
	waited, starting := r.settle(ctx)
	tools, err := r.tools()
	if err != nil {
		return nil, nil, err
	}
	caps := &event.Capabilities{Model: s.Model, Host: s.Host, Runner: s.Runner, NumCtx: s.NumCtx, Profile: string(s.Profile), Limits: s.Limits,
		PermissionDefault: s.PermissionDefault, Temperature: s.Temperature, Think: s.Think, AboutYou: s.AboutYou,
		ToolsWaited: waited, ToolsStarting: starting}
	if caps.Read, err = r.inheritedRead(ctx, session); err != nil {
		return nil, nil, err
	}
	for _, sp := range tools.Visible(s.Layers...) {
		caps.Tools = append(caps.Tools, event.ToolDecl{Name: sp.Name, Description: sp.Description, Parameters: sp.Parameters,
			Effects: uint8(sp.Effects), Idempotency: string(sp.Idempotency), TimeoutNS: int64(sp.Timeout), Parallel: sp.Parallel,
			Granted: uint8(sp.Granted), Foreign: sp.Foreign})
	}
	r.withholdTools(ctx, caps)
	r.capContext(ctx, caps)
	r.fitTools(caps, prompt.Request(ctx))
	assembled, err := r.prompt.Assemble(offered(prompt.WithAboutUser(prompt.WithSession(ctx, session), s.AboutYou), *caps))
	if err != nil {
		return nil, nil, err
	}
	for _, part := range assembled.Parts {
		caps.Contributors = append(caps.Contributors, part.Name)
	}
	if assembled.Text != "" {
		caps.System = assembled.Hash()
		if err := r.storeText(ctx, session, assembled); err != nil {
			return nil, nil, err
		}
	}
	return caps, tools, nil
}

// offered tells the context's fragments the tools the run froze (after
// layers and withholding), so what they say matches what it can call.
func offered(ctx context.Context, caps event.Capabilities) context.Context {
	params := make(map[string]map[string]any, len(caps.Tools))
	for _, d := range caps.Tools {
		params[d.Name] = d.Parameters
	}
	return prompt.WithTools(ctx, params)
}

// inheritedRead reports whether a branch's history, taken from its parent
// up to the branch point (and from the parent's own parent, and so on),
// holds a result of a tool that reads: the branch's own fold
// (core.Model.Read) cannot see those events, and the model does.
func (r *Runtime) inheritedRead(ctx context.Context, session string) (bool, error) {
	info, err := r.store.Session(ctx, session)
	if err != nil {
		return false, err
	}
	for at := info.Parent; at != nil; {
		evs, err := r.store.Events(ctx, at.Session, 0)
		if err != nil {
			return false, err
		}
		upTo := slices.IndexFunc(evs, func(e event.Event) bool { return e.Seq > at.Seq })
		if upTo < 0 {
			upTo = len(evs)
		}
		m, err := core.Fold(evs[:upTo])
		if err != nil {
			return false, fmt.Errorf("the parent %s of session %s: %w", at.Session, session, err)
		}
		if m.Read {
			return true, nil
		}
		if info, err = r.store.Session(ctx, at.Session); err != nil {
			return false, err
		}
		at = info.Parent
	}
	return false, nil
}

// ContributorPriority orders contributors within the working-memory zone.
const ContributorPriority = 50

// contribution makes a contributor a dynamic fragment. A failing contributor
// is left out with a warning rather than failing the run.
func (r *Runtime) contribution(c ContextContributor) func(context.Context) (string, error) {
	return func(ctx context.Context) (string, error) {
		text, err := c.Contribute(ctx, prompt.Session(ctx))
		if err != nil {
			r.log.Warn("context contributor failed", "contributor", c.Name(), "err", err)
			return "", nil
		}
		if text == "" {
			return "", nil
		}
		return c.Name() + "\n" + text, nil
	}
}

// storeText appends a context.text event for the assembled zones unless the
// session already has one with their hash: an unchanged context is stored
// once, however many runs send it.
func (r *Runtime) storeText(ctx context.Context, session string, a prompt.Assembly) error {
	hash := a.Hash()
	if _, err := r.reader.systemText(ctx, session, hash); err == nil {
		return nil
	}
	return r.appendText(ctx, session, "", a)
}

// appendText appends the assembled zones as a context.text: with no run
// when a run is opened (stored once per session per hash), stamped with the
// run when a step refreshes it (its position is where the step's request is
// built).
func (r *Runtime) appendText(ctx context.Context, session, run string, a prompt.Assembly) error {
	hash := a.Hash()
	names := make([]string, len(a.Parts))
	for i, p := range a.Parts {
		names[i] = string(p.Zone) + "/" + p.Name
	}
	zones := make([]event.ZoneText, len(a.Zones))
	for i, z := range a.Zones {
		zones[i] = event.ZoneText{Zone: string(z.Zone), Text: z.Text}
	}
	if _, err := r.feed.Append(ctx, session, fact(event.ContextText, r.now(), run, event.ContextTextPayload{Hash: hash, Zones: zones, Parts: names})); err != nil {
		return err
	}
	r.reader.texts.Store(session+"\x00"+hash, zones)
	return nil
}

var errNoText = errors.New("the context text is not in the log")

// systemText finds the zones with this hash in the session's log.
func (r *Reader) systemText(ctx context.Context, session, hash string) ([]event.ZoneText, error) {
	if t, ok := r.texts.Load(session + "\x00" + hash); ok {
		return t.([]event.ZoneText), nil
	}
	evs, err := r.store.EventsOfType(ctx, session, event.ContextText)
	if err != nil {
		return nil, err
	}
	for _, e := range evs {
		p, err := event.As[event.ContextTextPayload](e)
		if err != nil {
			return nil, err
		}
		if p.Hash == hash {
			r.texts.Store(session+"\x00"+hash, p.Zones)
			return p.Zones, nil
		}
	}
	return nil, fmt.Errorf("%w (hash %s)", errNoText, hash)
}

// Recover closes runs that a crash left open. Each session's facts are
// folded into its Model; a session with an open run gets a run.interrupted
// fact, which closes the run as interrupted and gives every call that was
// dispatched but never reported an unknown_completion result — it is never
// run again on its own.
//
// Only sessions whose last run.started has no run.finished after it are
// folded (runs of a session are strictly sequential); the rest stay
// detached until they are used, so start-up does not read every log.
//
// A session whose log cannot be read is marked damaged (nothing is written
// into it) and recovery goes on with the next: one bad event must not leave
// every later session's run open. Other failures go on too, and are
// returned together at the end; a run the full disk kept open is closed by
// its session's owner once the log takes its end.
func (r *Runtime) Recover(ctx context.Context) error {
	openRuns, unknown, err := r.store.SessionsToRecover(ctx)
	if err != nil {
		return err
	}
	// A session holding an event of a type this version does not know is
	// damaged whether or not a run was left open in it; attaching it marks
	// it, so the first sessions list already says so.
	var errs []error
	for _, id := range append(unknown, openRuns...) {
		sess, err := r.attach(ctx, id)
		if errors.Is(err, ErrDamagedSession) {
			continue // attach logged it, and the sessions list shows it
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("recover %s: %w", id, err))
			continue
		}
		if sess.model().Open() {
			r.log.Info("closing a run left open by a crash", "session", id, "run", sess.model().Run.ID)
			interrupted := fact(event.RunInterrupted, r.now(), "", event.RunInterruptedPayload{})
			facts, err := r.cutReply(ctx, id, sess.model())
			if err != nil {
				errs = append(errs, fmt.Errorf("recover %s: %w", id, err))
			}
			if err := sess.deliver(ctx, append(facts, interrupted)...); err != nil {
				errs = append(errs, fmt.Errorf("recover %s: %w", id, err))
				if errors.Is(err, event.ErrNoSpace) {
					// The disk is full: handed to the owner as a report, it
					// faults the run (fault.go), which the owner ends as
					// soon as the log takes it — once there is room, not
					// only at the next start.
					sess.post(delivery{facts: []event.Draft{interrupted}})
				}
			}
		}
	}
	return errors.Join(errs...)
}

// markDamaged records that a session's log cannot be read, so it is listed
// as damaged and refused at once from now on (without reading it again),
// and tells the hosts (a sessions update).
func (r *Runtime) markDamaged(ctx context.Context, id string, cause error) error {
	r.mu.Lock()
	_, known := r.damaged[id]
	r.damaged[id] = cause.Error()
	r.mu.Unlock()
	if !known {
		r.log.Error("a conversation's log cannot be read; it is shown as damaged and left as it is", "session", id, "err", cause)
		r.feed.Announce(ctx)
	}
	return fmt.Errorf("%w: %w", ErrDamagedSession, cause)
}

// damage is why the session's log cannot be read ("" when it can, or when
// nothing has found out yet).
func (r *Runtime) damage(id string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.damaged[id]
}

// Close cancels every open run with ErrShutdown, waits for their terminal
// events and stops the owners.
func (r *Runtime) Close() {
	r.mu.Lock()
	if r.closing {
		r.mu.Unlock()
		return
	}
	r.closing = true
	sessions := make([]*session, 0, len(r.sessions))
	for _, s := range r.sessions {
		sessions = append(sessions, s)
	}
	r.mu.Unlock()
	for _, s := range sessions {
		s.shutdown(ErrShutdown)
	}
	r.stop(ErrShutdown)
	r.work.Wait()
	for _, s := range sessions {
		s.closeInbox()
	}
	r.owners.Wait()
}

// attach returns the session's owner, starting it (and folding its log into
// a Model) if needed.
func (r *Runtime) attach(ctx context.Context, id string) (*session, error) {
	r.mu.Lock()
	if s, ok := r.sessions[id]; ok {
		r.mu.Unlock()
		return s, nil
	}
	if r.closing {
		r.mu.Unlock()
		return nil, ErrClosed
	}
	if why, ok := r.damaged[id]; ok {
		r.mu.Unlock()
		return nil, fmt.Errorf("%w: %s", ErrDamagedSession, why)
	}
	r.mu.Unlock()
	if _, err := r.store.Session(ctx, id); err != nil {
		return nil, err
	}
	evs, err := r.store.Events(ctx, id, 0)
	if errors.Is(err, event.ErrUnknownType) {
		return nil, r.markDamaged(ctx, id, err)
	}
	if err != nil {
		return nil, err
	}
	// A log that does not fold (a payload that does not decode, a fact that
	// breaks the run's invariants) is damaged: the session is never driven
	// from a model that is not its log's.
	m, err := core.Fold(evs)
	if err != nil {
		return nil, r.markDamaged(ctx, id, err) // its message names the session and event
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if s, ok := r.sessions[id]; ok {
		return s, nil
	}
	s := newSession(r, id, m)
	r.sessions[id] = s
	r.owners.Add(1)
	go s.own()
	return s, nil
}

// detach stops a session's owner (the session was deleted).
func (r *Runtime) detach(id string) {
	r.mu.Lock()
	s, ok := r.sessions[id]
	delete(r.sessions, id)
	delete(r.damaged, id)
	r.mu.Unlock()
	if ok {
		s.shutdown(ErrSessionDeleted)
		s.closeInbox()
	}
}

// Subscribe registers fn for every later update; the returned func removes
// it. fn runs in the appending goroutine, in append order (event.Feed), and
// must not block.
func (r *Runtime) Subscribe(fn func(Update)) (unsubscribe func()) {
	return r.feed.Listen(func(ctx context.Context, evs []event.Event) {
		if u, ok := r.update(ctx, evs); ok {
			fn(u)
		}
	})
}

// update is what subscribers are told of an append: its events and, when
// the sessions list changed, the whole list; false when there is nothing
// to tell.
func (r *Runtime) update(ctx context.Context, evs []event.Event) (Update, bool) {
	u := Update{Events: toProtocol(evs)}
	if sessionListChanges(evs) {
		list, err := r.Sessions(ctx)
		if err != nil {
			r.log.Warn("list sessions for subscribers", "err", err)
		} else if list == nil {
			list = []protocol.Session{}
		}
		u.Sessions = list
	}
	return u, len(u.Events) > 0 || u.Sessions != nil
}

// sessionListChanges says whether a sessions list shown to the user changes
// with these events; an announcement without events is a deletion.
func sessionListChanges(evs []event.Event) bool {
	if len(evs) == 0 {
		return true
	}
	for _, e := range evs {
		switch e.Type {
		case event.SessionCreated, event.SessionRenamed, event.RunStarted, event.RunFinished, event.UserMessage, event.PermissionRequested:
			return true
		}
	}
	return false
}

// Sessions lists sessions, most recently updated first.
func (r *Runtime) Sessions(ctx context.Context) ([]protocol.Session, error) {
	rows, err := r.store.Sessions(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]protocol.Session, len(rows))
	for i, s := range rows {
		out[i] = r.sessionOf(s)
	}
	return out, nil
}

func (r *Runtime) sessionOf(s event.SessionSummary) protocol.Session {
	out := detached(s)
	r.mu.Lock()
	sess, ok := r.sessions[s.ID]
	r.mu.Unlock()
	if ok {
		out.Status = string(SessionAttached)
		out.RunStatus = string(runStatus(sess.model()))
		out.Running = out.RunStatus != string(RunIdle)
	}
	out.Damaged = r.damage(s.ID)
	return out
}

func (r *Runtime) session(ctx context.Context, id string) (protocol.Session, error) {
	s, err := r.store.Session(ctx, id)
	if err != nil {
		return protocol.Session{}, err
	}
	return r.sessionOf(s), nil
}

// Events returns a session's events from seq on, with their visibility; a
// host filters them for its audience (protocol.Filter).
func (r *Runtime) Events(ctx context.Context, id string, from int64) ([]protocol.Event, error) {
	evs, err := r.reader.Events(ctx, id, from)
	if errors.Is(err, protocol.ErrDamaged) {
		r.markDamaged(ctx, id, err)
	}
	return evs, err
}

func toProtocol(evs []event.Event) []protocol.Event {
	out := make([]protocol.Event, len(evs))
	for i, e := range evs {
		out[i] = protocol.Event{Session: e.Session, Seq: e.Seq, Type: string(e.Type), Time: e.Time,
			RunID: e.RunID, Visibility: protocol.Visibility(e.Visibility), Sources: e.Sources, Payload: e.Payload}
	}
	return out
}

// Follow streams a session's events from seq from on, first the stored ones
// then each new one, with no gap and no duplicate (event.Feed.Follow); a
// reader that lets more than the queue bound wait is cut off with
// protocol.ErrLagging and follows again from the seq after its last one.
func (r *Runtime) Follow(ctx context.Context, id string, from int64) (<-chan protocol.Event, func() error) {
	ctx, stop := context.WithCancelCause(ctx)
	in, feedErr := r.feed.Follow(ctx, id, from)
	errp := func() error {
		err := feedErr()
		if errors.Is(err, event.ErrLagging) {
			return lagging(err)
		}
		if err = unreadable(err); errors.Is(err, protocol.ErrDamaged) {
			return protocol.Classify(protocol.ErrDamaged, r.markDamaged(ctx, id, err))
		}
		return err
	}
	out := make(chan protocol.Event)
	var bad atomic.Pointer[error] // why the stream stopped at a damaged event
	go func() {
		defer close(out)
		defer stop(nil)
		for e := range in {
			if err := readable([]event.Event{e}); err != nil {
				err = protocol.Classify(protocol.ErrDamaged, r.markDamaged(ctx, id, err))
				bad.Store(&err)
				return
			}
			select {
			case out <- toProtocol([]event.Event{e})[0]:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out, func() error {
		if err := bad.Load(); err != nil {
			return *err
		}
		return errp()
	}
}

var _ protocol.Kernel = (*Runtime)(nil)
