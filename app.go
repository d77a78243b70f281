// app.go is the window's entry: runWindow opens the parts and hands them
// to the window host (host/window), a second start says where Quire is
// open, and App is what Wails binds. Everything the window does lives in
// host/window, one file per panel.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"

	"quire/assembly"
	"quire/config"
	"quire/host/httpapi"
	"quire/host/webview"
	"quire/host/window"
	"quire/internal/datadir"
)

// App is what Wails binds (window.go.main.App): the window host's exported
// methods, promoted. The embedded field's name, Host, must never be the
// name of one of those methods: a field hides the method it is named like,
// and Wails would silently bind one method fewer
// (TestAppBindsEveryMethodOfTheWindowHost, test/bindings).
type App struct {
	*window.Host
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
	probePath := os.Getenv("QUIRE_TEST_PROBE")
	if err := p.DatabaseError(); err != nil {
		log.Error("the database could not be opened; the window will say so", "err", err)
	}
	h, hooks := window.New(window.Ports{
		Kernel: p.Kernel(), Doctor: p.Doctor, Settings: p.Settings(), Documents: p.Documents(ctx),
		Memory: p.Memory(), Notes: p.Notes(), Health: p.Health(ctx), Models: p.Models(), Calls: p.Calls(),
		Conversations: p.Conversations(), Batches: p.Batches(), Evolution: p.Evolution(), Skills: p.Skills(), Standing: p.Standing(),
		MCP: p.MCP(), MCPConfig: window.MCPConfig{Check: assembly.CheckMCP, Parse: assembly.ParseMCP},
	}, probePath, log)
	p.SetAsker(hooks.Ask)
	// The local channel: `quire index`, and a second start that brings the
	// user here.
	b := p.ServeBackend(ctx, probePath)
	b.Show = hooks.Show
	p.ServeLocal(ctx, b)
	// Last before the window: what is set here reaches the web process
	// WebKit starts for it (and any process started later, which only
	// JavaScriptCore reads).
	if set, err := webview.Tune(webview.OSEnv{}); err != nil {
		log.Warn("the web view's options could not be set; it runs with WebKit's defaults", "err", err)
	} else if len(set) > 0 {
		log.Debug("the web view's options", "set", set)
	}
	err = wails.Run(&options.App{
		Title:            "Quire",
		Width:            1200,
		Height:           800,
		MinWidth:         760,
		MinHeight:        520,
		AssetServer:      &assetserver.Options{Assets: dist},
		BackgroundColour: &options.RGBA{R: 250, G: 249, B: 246, A: 255},
		OnStartup:        hooks.Startup,
		OnShutdown:       hooks.Shutdown,
		Bind:             []any{&App{Host: h}},
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
