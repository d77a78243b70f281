package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync/atomic"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	wailsrt "github.com/wailsapp/wails/v2/pkg/runtime"

	"quire/config"
	"quire/doctor"
	"quire/host/httpapi"
	"quire/host/probe"
	"quire/kernel/protocol"
	"quire/kernel/runtime"
)

// Settings are the user's choices a host may change.
type Settings interface {
	NotesDir() string
	SetNotesDir(dir string) error
}

// Names of the runtime events the frontend listens to (docs/PROTOCOL.md).
const (
	eventEvents   = "quire:events"
	eventSessions = "quire:sessions"
)

// App is the Wails host: its exported methods are bound to the frontend
// (window.go.main.App). Wails runs each call in its own goroutine, so every
// method is safe for concurrent use; App itself holds no conversation state.
type App struct {
	kernel    protocol.Kernel
	diagnose  func(context.Context) doctor.Report
	probePath string
	log       *slog.Logger
	// emit sends a runtime event to the frontend and dialog shows a native
	// Yes/No question; both injected so App can be tested without a window.
	emit   func(ctx context.Context, name string, data ...any)
	dialog func(ctx context.Context, title, message string) (yes bool, err error)

	greeted atomic.Bool // set by a successful Handshake

	settings Settings
	memory   httpapi.Memory // the memory panel's backend; nil: nothing to show

	// window is the context Wails gave at start-up; runtime calls need it,
	// and permission questions may arrive from the runtime before it is set.
	window atomic.Pointer[context.Context]
	cancel context.CancelFunc

	// docs is the documents panel (nil when the index is not open); onDrop
	// registers the window's file-drop callback (app_docs.go).
	docs   Documents
	onDrop func(ctx context.Context, cb func(x, y int, paths []string))
}

// newApp builds the host. Wails itself quits the window on SIGINT/SIGTERM,
// after which runWindow's deferred Close ends runs with their reason.
func newApp(k protocol.Kernel, diagnose func(context.Context) doctor.Report, probePath string, log *slog.Logger) *App {
	return &App{kernel: k, diagnose: diagnose, probePath: probePath, log: log, emit: wailsrt.EventsEmit, dialog: nativeQuestion}
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

// Ask is the runtime's Asker for the window: one native dialog for all the
// calls of a step, naming each tool and what it would be given.
func (a *App) Ask(ctx context.Context, q runtime.Question) (runtime.Answer, error) {
	window := a.window.Load()
	if window == nil {
		<-ctx.Done() // no window yet: the run's deadline answers
		return runtime.Answer{}, context.Cause(ctx)
	}
	yes, err := a.dialog(*window, permissionTitle(q), permissionText(q))
	if err != nil {
		return runtime.Answer{}, err
	}
	return runtime.Answer{Allowed: yes}, nil
}

func permissionTitle(q runtime.Question) string {
	if len(q.Calls) == 1 {
		return "Allow Quire to run " + q.Calls[0].Name + "?"
	}
	return fmt.Sprintf("Allow Quire to run these %d actions?", len(q.Calls))
}

func permissionText(q runtime.Question) string {
	var b strings.Builder
	b.WriteString("The assistant wants to:\n")
	for i, c := range q.Calls {
		desc := c.Name + " " + string(c.Arguments)
		if i < len(q.Descriptions) {
			desc = q.Descriptions[i]
		}
		if r := []rune(desc); len(r) > 1200 {
			desc = string(r[:1200]) + "…"
		}
		fmt.Fprintf(&b, "\n• %s", desc)
	}
	b.WriteString("\n\nYes runs them all; No tells the assistant you declined.")
	return b.String()
}

// startup receives the window's context and starts forwarding updates. The
// frontend reloads history with Events(id, from), so updates sent before it
// subscribed are not lost.
func (a *App) startup(ctx context.Context) {
	a.window.Store(&ctx)
	var fwd context.Context
	fwd, a.cancel = context.WithCancel(ctx)
	go a.forward(fwd)
	a.startDocuments(fwd)
}

func (a *App) shutdown(context.Context) {
	if a.cancel != nil {
		a.cancel()
	}
}

// audience is what the window shows: public events only, for now.
var audience = protocol.Audience{}

// forward relays kernel updates to the frontend in order; the runtime already
// batches streamed text, so one update is one small ExecJS call.
func (a *App) forward(ctx context.Context) {
	for u := range a.kernel.Watch(ctx) {
		if evs := protocol.Filter(u.Events, audience); len(evs) > 0 {
			a.emit(ctx, eventEvents, evs)
		}
		if u.Sessions != nil {
			a.emit(ctx, eventSessions, u.Sessions)
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

// Doctor runs the health checks shown on the first screen.
func (a *App) Doctor() doctor.Report { return a.diagnose(a.callCtx()) }

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
	return protocol.Run[protocol.Session](a.callCtx(), a.kernel, "", protocol.CreateSession, protocol.CreateSessionPayload{Title: title})
}

// RenameSession retitles a conversation.
func (a *App) RenameSession(id, title string) (protocol.Session, error) {
	if err := a.ready(); err != nil {
		return protocol.Session{}, err
	}
	return protocol.Run[protocol.Session](a.callCtx(), a.kernel, "", protocol.RenameSession, protocol.RenameSessionPayload{Session: id, Title: title})
}

// DeleteSession removes a conversation; the frontend has asked the user first.
func (a *App) DeleteSession(id string) error {
	if err := a.ready(); err != nil {
		return err
	}
	_, err := protocol.Run[struct{}](a.callCtx(), a.kernel, "", protocol.DeleteSession, protocol.SessionRef{Session: id})
	return err
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
	return r.RunID, err
}

// SendWith is Send with an intent: "follow_up" (the next request), "steer"
// (joins the request that is going, at its next step) or "inject".
func (a *App) SendWith(id, text, intent, key string) (string, error) {
	if err := a.ready(); err != nil {
		return "", err
	}
	r, err := protocol.Run[protocol.SendResult](a.callCtx(), a.kernel, key, protocol.SendMessage,
		protocol.SendMessagePayload{Session: id, Text: text, Intent: intent})
	return r.RunID, err
}

// Cancel stops the conversation's reply.
func (a *App) Cancel(id string) error {
	if err := a.ready(); err != nil {
		return err
	}
	_, err := protocol.Run[struct{}](a.callCtx(), a.kernel, "", protocol.CancelRun, protocol.SessionRef{Session: id})
	return err
}

// ReportView is the test probe: the frontend reports what it rendered, and
// when QUIRE_TEST_PROBE is set the snapshot is written there.
func (a *App) ReportView(snapshot map[string]any) error {
	if a.probePath == "" {
		return nil
	}
	b, err := json.Marshal(snapshot)
	if err != nil {
		return err
	}
	return probe.Write(a.probePath, b)
}

func runWindow(ctx context.Context, cfg config.Config, log *slog.Logger, stderr io.Writer) int {
	s, err := openServices(ctx, cfg, log)
	if err != nil {
		fmt.Fprintln(stderr, "quire:", err)
		return 1
	}
	defer s.Close()
	if s.DBErr != nil {
		log.Error("the database could not be opened; the window will say so", "err", s.DBErr)
	}
	app := newApp(s.kernel(), s.doctor, os.Getenv("QUIRE_TEST_PROBE"), log)
	app.settings = s
	if lib := s.startLibrary(ctx, log); lib != nil {
		app.attachDocuments(lib)
	}
	app.memory = s.memoryPanel()
	s.setAsker(app.Ask)
	err = wails.Run(&options.App{
		Title:            "Quire",
		Width:            1200,
		Height:           800,
		MinWidth:         760,
		MinHeight:        520,
		AssetServer:      &assetserver.Options{Assets: assets},
		BackgroundColour: &options.RGBA{R: 250, G: 249, B: 246, A: 255},
		OnStartup:        app.startup,
		OnShutdown:       app.shutdown,
		Bind:             []any{app},
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

// NotesFolder is the folder the note tools work on ("" until chosen).
func (a *App) NotesFolder() string {
	if a.settings == nil {
		return ""
	}
	return a.settings.NotesDir()
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
		Title: "Choose the folder of your notes", DefaultDirectory: a.settings.NotesDir(), CanCreateDirectories: true,
	})
	if err != nil || dir == "" {
		return "", err
	}
	return dir, a.settings.SetNotesDir(dir)
}
