package window

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"quire/doctor"
	"quire/host"
	"quire/kernel/protocol"
	"quire/test/ollamatest"
	"quire/test/testkit"

	wailsrt "github.com/wailsapp/wails/v2/pkg/runtime"
)

// TestTheWindowSaysTheDiskIsFull: a message the database has no room for
// (SQLite's own page limit on the real store) reaches the window as the
// sentence it shows — what happened and what to do — with the kernel's
// class still in the chain, not the driver's text.
func TestTheWindowSaysTheDiskIsFull(t *testing.T) {
	k := testkit.New(t)
	a := newHost(k.Runtime, func(context.Context) doctor.Report { return doctor.Report{OK: true} }, "", slog.New(slog.DiscardHandler))
	if _, err := a.Handshake(protocol.Version); err != nil {
		t.Fatal(err)
	}
	s, err := a.NewSession("chat")
	if err != nil {
		t.Fatal(err)
	}
	var pages int64
	if err := k.Store.DB().QueryRowContext(t.Context(), "PRAGMA page_count").Scan(&pages); err != nil {
		t.Fatal(err)
	}
	k.Store.LimitPages(pages)
	_, err = a.Send(s.ID, strings.Repeat("more than the disk can take ", 4000), "")
	if !errors.Is(err, protocol.ErrNoSpace) || err.Error() != host.DiskFull {
		t.Fatalf("send on a full disk: %v, want the disk-full sentence", err)
	}
}

// TestTheWindowSearchesAndExports: the palette's search and the export's
// save dialog, over a real kernel and store: the file the dialog names
// holds the conversation's Markdown; a cancelled dialog writes nothing.
func TestTheWindowSearchesAndExports(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	fake.Script(ollamatest.Turn{Content: []string{"Rhubarb likes shade."}})
	s := openOwner(t, t.TempDir(), fake.URL())
	defer s.Close()
	a := newHost(s.Kernel(), s.Doctor, "", slog.New(slog.DiscardHandler))
	a.conversations = s.Conversations()
	w := &window{changed: make(chan struct{})}
	a.emit = w.emit
	if _, err := opAs[protocol.MessageSearch](a, "Conversations.Search", "rhubarb", 0); err == nil {
		t.Error("SearchConversations answered before the handshake")
	}
	if _, err := a.Handshake(protocol.Version); err != nil {
		t.Fatal(err)
	}
	if _, err := a.ExportSession("x", "md"); err == nil || !strings.Contains(err.Error(), "not ready") {
		t.Errorf("an export before the window is up: %v", err)
	}
	a.startup(t.Context())
	sess, err := a.NewSession("")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Send(sess.ID, "Where does rhubarb grow?", "k1"); err != nil {
		t.Fatal(err)
	}
	testkit.WaitRuns(t, s.Kernel(), sess.ID, 1)
	found, err := opAs[protocol.MessageSearch](a, "Conversations.Search", "RHUBARB", 0)
	if err != nil || len(found.Hits) != 2 {
		t.Fatalf("search: %+v, %v", found, err)
	}

	// The save dialog opens on ~/Documents (no notes folder here), not on
	// the process's working folder (issue 31).
	home := t.TempDir()
	t.Setenv("HOME", home)
	if err := os.Mkdir(filepath.Join(home, "Documents"), 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "chosen.md")
	var offered wailsrt.SaveDialogOptions
	a.saveDialog = func(_ context.Context, o wailsrt.SaveDialogOptions) (string, error) { offered = o; return file, nil }
	got, err := a.ExportSession(sess.ID, "md")
	if err != nil || got != file {
		t.Fatalf("export: %q, %v", got, err)
	}
	body, err := os.ReadFile(file)
	// The first message named the chat (an automatic title).
	if err != nil || !strings.HasPrefix(string(body), "# Where does rhubarb grow?\n") || !strings.Contains(string(body), "## Quire\n\nRhubarb likes shade.\n") {
		t.Fatalf("the saved file:\n%s (%v)", body, err)
	}
	if offered.DefaultFilename != "Where-does-rhubarb-grow.md" || len(offered.Filters) != 1 || offered.Filters[0].Pattern != "*.md" ||
		offered.DefaultDirectory != filepath.Join(home, "Documents") {
		t.Errorf("the dialog offered %+v", offered)
	}
	a.saveDialog = func(context.Context, wailsrt.SaveDialogOptions) (string, error) { return "", nil }
	if got, err := a.ExportSession(sess.ID, "jsonl"); got != "" || err != nil {
		t.Errorf("a cancelled dialog: %q, %v", got, err)
	}
	if _, err := a.ExportSession(sess.ID, "pdf"); err == nil {
		t.Error("an unknown format was exported")
	}
}
