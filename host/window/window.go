// Package window is the Wails host: the window's bound methods, one file
// per panel as host/httpapi has its routes, the runtime events it forwards
// to the page, native dialogs (the user's yes to what changes notes,
// servers and the assistant's behaviour) and file drops. It speaks
// kernel/protocol and the ports of package host, like every other host;
// main embeds Host in the App Wails binds, and the composition root
// gives it its parts through main.
//
// It must never import the composition root, the store, the runtime, the
// core, a provider or a domain part (arch_test's host rules).
package window

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"sync/atomic"

	wailsrt "github.com/wailsapp/wails/v2/pkg/runtime"

	"quire/host"
	"quire/host/probe"
	"quire/kernel/protocol"
)

// Host is the window host: its exported methods are what Wails binds,
// promoted through main's App (window.go.main.App). Wails runs each call in
// its own goroutine, so every method is safe for concurrent use; Host
// itself holds no conversation state.
type Host struct {
	kernel    protocol.Kernel
	diagnose  host.Doctor
	probePath string
	log       *slog.Logger
	// emit sends a runtime event to the frontend and dialog shows a native
	// Yes/No question; both injected so Host can be tested without a window.
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
	mcp     host.MCP     // the MCP servers (mcp.go); nil: none
	// mcpConfig reads a config before the dialog that asks for it.
	mcpConfig MCPConfig
	// evolution is the candidates' pipeline (the Evolution methods below); nil: none.
	evolution host.Evolution
	skills    host.Skills   // Settings → Skills' back end; nil: none (tests)
	standing  host.Standing // the Standing tasks panel's back end; nil: none

	// raise brings the window to the front (Wails' WindowUnminimise and
	// WindowShow), for a second start of Quire; injected for tests. up is
	// closed once Wails has started the window (startup).
	raise  func(ctx context.Context)
	up     chan struct{}
	upOnce sync.Once
}

// Ports are the parts the window's panels reach through, as the
// composition root hands them out; a nil port is a panel this window
// says is not available.
type Ports struct {
	Kernel        protocol.Kernel
	Doctor        host.Doctor
	Settings      host.Settings
	Documents     host.Documents
	Memory        host.Memory
	Notes         host.Notes
	Health        *host.Health
	Models        host.Models
	Calls         host.Calls
	Conversations host.Conversations
	Batches       host.Batches
	MCP           host.MCP
	MCPConfig     MCPConfig // with MCP
	Evolution     host.Evolution
	Skills        host.Skills
	Standing      host.Standing
}

// Hooks are what main wires the host with besides its bound methods:
// Wails' start and stop, the asker of permission questions, and the local
// channel's Show. They are not methods, so Wails never binds them.
type Hooks struct {
	Startup  func(ctx context.Context)
	Shutdown func(ctx context.Context)
	Ask      func(ctx context.Context, q protocol.Question) (protocol.Answer, error)
	Show     func(ctx context.Context) error
}

// Option changes how the host reaches the desktop, for tests of the
// wiring around it (main's second start).
type Option func(*Host)

// WithRaise replaces Wails' raising of the window to the front.
func WithRaise(raise func(ctx context.Context)) Option { return func(h *Host) { h.raise = raise } }

// WithEvents replaces Wails' runtime events, to the page (emit) and from
// it (listen; nil leaves the window unbounded, as with no page at all).
func WithEvents(emit func(ctx context.Context, name string, data ...any), listen func(ctx context.Context, name string, cb func(data ...any)) func()) Option {
	return func(h *Host) { h.emit, h.listen = emit, listen }
}

// New builds the window host over ports. probePath is where the test
// probe writes what the page rendered ("" for none). Wails itself quits
// the window on SIGINT/SIGTERM, after which the caller's deferred Close of
// the parts ends runs with their reason.
func New(p Ports, probePath string, log *slog.Logger, opts ...Option) (*Host, Hooks) {
	h := newHost(p.Kernel, p.Doctor, probePath, log)
	h.listen = wailsrt.EventsOn
	h.settings = p.Settings
	if p.Documents != nil {
		h.attachDocuments(p.Documents)
	}
	h.memory, h.notes, h.health = p.Memory, p.Notes, p.Health
	h.models, h.calls, h.conversations = p.Models, p.Calls, p.Conversations
	h.batches, h.mcp, h.mcpConfig, h.evolution, h.skills = p.Batches, p.MCP, p.MCPConfig, p.Evolution, p.Skills
	h.standing = p.Standing
	for _, o := range opts {
		o(h)
	}
	return h, Hooks{Startup: h.startup, Shutdown: h.shutdown, Ask: h.ask, Show: h.show}
}

// newHost builds the host with Wails' runtime and no panel; tests replace
// what reaches the desktop and add the panels they need.
func newHost(k protocol.Kernel, diagnose host.Doctor, probePath string, log *slog.Logger) *Host {
	return &Host{kernel: k, diagnose: diagnose, probePath: probePath, log: log, emit: wailsrt.EventsEmit,
		dialog: nativeQuestion, notice: nativeNotice, dialogs: make(chan struct{}, 1), raise: raiseWindow, up: make(chan struct{}),
		saveDialog: wailsrt.SaveFileDialog}
}

func raiseWindow(ctx context.Context) {
	wailsrt.WindowUnminimise(ctx)
	wailsrt.WindowShow(ctx)
}

// show is the local channel's Show: a second start of Quire on this data
// folder brings the user to this window instead of opening another. A
// second start made while this window is still opening (a double click)
// waits for it, as long as its request lasts.
func (h *Host) show(ctx context.Context) error {
	select {
	case <-h.up:
	case <-ctx.Done():
		return errWindowNotUp
	}
	h.raise(*h.window.Load())
	return nil
}

// startup receives the window's context and starts forwarding updates. The
// frontend reloads history with Events(id, from), so updates sent before it
// subscribed are not lost.
func (h *Host) startup(ctx context.Context) {
	h.window.Store(&ctx)
	h.upOnce.Do(func() { close(h.up) })
	var fwd context.Context
	fwd, h.cancel = context.WithCancel(ctx)
	go h.forward(fwd)
	h.startDocuments(fwd)
	h.startHealth(fwd)
	h.startModels(fwd)
	h.startBatches(fwd)
	h.startMCP(fwd)
	h.startEvolution(fwd)
}

func (h *Host) shutdown(context.Context) {
	if h.cancel != nil {
		h.cancel()
	}
}

func (h *Host) callCtx() context.Context {
	if ctx := h.window.Load(); ctx != nil {
		return *ctx
	}
	return context.Background()
}

// ready refuses every call until the frontend has shaken hands.
func (h *Host) ready() error {
	if !h.greeted.Load() {
		return errNoHandshake
	}
	return nil
}

// Handshake must come first: it refuses a frontend whose protocol major
// version differs, and returns the kernel's version.
func (h *Host) Handshake(version string) (string, error) {
	if err := protocol.Compatible(version); err != nil {
		return "", err
	}
	h.greeted.Store(true)
	return protocol.Version, nil
}

// ReportView is the test probe: the frontend reports what it rendered, and
// when QUIRE_TEST_PROBE is set the snapshot is written there. It answers
// whether a probe is set: false tells the page to stop building snapshots,
// which in a user's window nobody reads (each is a walk of the whole screen
// after every change).
func (h *Host) ReportView(snapshot map[string]any) (probing bool, err error) {
	if h.probePath == "" {
		return false, nil
	}
	b, err := json.Marshal(snapshot)
	if err != nil {
		return true, err
	}
	return true, probe.Write(h.probePath, b)
}

// partOf is a panel's port once the page has shaken hands, or missing when
// this window was built without it (p is a nil interface).
func partOf[P any](h *Host, p P, missing error) (P, error) {
	var none P
	if err := h.ready(); err != nil {
		return none, err
	}
	if any(p) == nil {
		return none, missing
	}
	return p, nil
}
