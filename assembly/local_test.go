package assembly

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"quire/config"
	"quire/host/httpapi"
	"quire/internal/datadir"
	"quire/kernel/event"
	"quire/kernel/protocol"
	"quire/test/crashtest"
	"quire/test/mcptest"
	"quire/test/ollamatest"
	"quire/test/testkit"
)

// ownerEnv makes the test binary a child: "DIR OLLAMA_URL" opens an Owner
// as `quire serve` over DIR, starts a reply (which the fake server hangs),
// says "streaming SESSION" once a chunk is logged, and waits to be killed.
const ownerEnv = "QUIRE_APP_OWNER_CHILD"

// The binary doubles as the MCP test server over stdio (mcp_test.go).
func TestMain(m *testing.M) {
	mcptest.ServeIfChild()
	serveFakeOllamaIfChild()
	crashtest.Main(m, ownerEnv, ownerChild)
}

func ownerChild(spec string) {
	dir, host, _ := strings.Cut(spec, " ")
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ctx := context.Background()
	p, err := OpenWith(ctx, config.NewStore(config.Config{DataDir: dir, OllamaHost: host, Model: "qwen3:4b", NumCtx: 4096}),
		slog.New(slog.DiscardHandler), Owner, Extras{Kind: datadir.Serve})
	if err != nil {
		fail(err)
	}
	p.ServeLocal(ctx, p.ServeBackend(ctx, ""))
	k := p.Kernel()
	sess, err := protocol.Run[protocol.Session](ctx, k, "", protocol.CreateSession, protocol.CreateSessionPayload{Title: "killed"})
	if err != nil {
		fail(err)
	}
	if _, err := protocol.Run[protocol.SendResult](ctx, k, "", protocol.SendMessage, protocol.SendMessagePayload{Session: sess.ID, Text: "hi"}); err != nil {
		fail(err)
	}
	evs, _ := k.Follow(ctx, sess.ID, 0)
	for e := range evs {
		if e.Type == string(event.AssistantDelta) {
			fmt.Println("streaming", sess.ID)
			break
		}
	}
	select {} // until SIGKILL
}

// TestAKilledOwnerLetsTheNextOneOpen: while an Owner (in another process,
// mid-reply) holds the data folder, a second Owner is refused and names
// it, opening nothing; after the holder's SIGKILL the next Owner opens at
// once, closes the dead one's run as interrupted (the log then passes
// core.Verify), and answers on the local channel the dead one left a
// socket file for.
func TestAKilledOwnerLetsTheNextOneOpen(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	fake.Script(ollamatest.Turn{Content: []string{"par", "tial"}, Fail: ollamatest.Failure{Kind: ollamatest.FailHang, After: 1}})
	dir := t.TempDir()
	crash := crashtest.New(t, ownerEnv, 1)
	ch := crash.Start(dir + " " + fake.URL())
	line, ok := ch.Line()
	session, found := strings.CutPrefix(line, "streaming ")
	if !ok || !found {
		t.Fatalf("the owner said %q; stderr: %s", line, ch.Stderr())
	}
	settings := config.NewStore(config.Config{DataDir: dir, OllamaHost: fake.URL(), Model: "qwen3:4b", NumCtx: 4096})
	_, err := OpenWith(t.Context(), settings, slog.New(slog.DiscardHandler), Owner, Extras{Kind: datadir.Serve})
	var inUse *datadir.InUseError
	if !errors.As(err, &inUse) || inUse.Holder.Kind != datadir.Serve || inUse.Holder.PID == os.Getpid() || inUse.Holder.PID <= 0 {
		t.Fatalf("a second owner while one runs: %v", err)
	}
	// `quire doctor` names the owner, without taking the folder from it.
	doctorSays := func() string {
		r := openReader(t, dir)
		defer r.Close()
		return reportLine(t, r.Doctor(t.Context()), "Owner").Detail
	}
	if got, want := doctorSays(), fmt.Sprintf("`quire serve` (process %d, since ", inUse.Holder.PID); !strings.HasPrefix(got, want) {
		t.Errorf("with an owner running, doctor's Owner line is %q, want it to begin %q", got, want)
	}
	if !ch.Kill() {
		t.Fatal("the owner was not killed")
	}
	if got := doctorSays(); !strings.HasPrefix(got, "not running") {
		t.Errorf("after the owner's SIGKILL (its record still in the lock file), doctor's Owner line is %q", got)
	}
	if _, err := os.Lstat(datadir.SocketPath(dir)); err != nil {
		t.Fatalf("the killed owner left no socket file: %v", err)
	}
	p, err := OpenWith(t.Context(), settings, slog.New(slog.DiscardHandler), Owner, Extras{Kind: datadir.Serve})
	if err != nil {
		t.Fatalf("after the holder's SIGKILL: %v", err)
	}
	closeParts := sync.OnceFunc(p.Close)
	defer closeParts()
	if err := p.DatabaseError(); err != nil {
		t.Fatal(err)
	}
	p.ServeLocal(t.Context(), p.ServeBackend(t.Context(), ""))
	if _, err := httpapi.DialLocal(datadir.SocketPath(dir)).Index(t.Context()); err != nil {
		t.Fatalf("the new owner's local channel: %v", err)
	}
	evs := testkit.Until(t, p.Kernel(), session, "the dead owner's run closed", func(evs []protocol.Event) bool {
		for _, e := range evs {
			if e.Type == string(event.RunFinished) {
				return true
			}
		}
		return false
	})
	var interrupted bool
	for _, e := range evs {
		interrupted = interrupted || e.Type == string(event.RunInterrupted)
	}
	if !interrupted {
		t.Errorf("the dead owner's run was not closed as interrupted: %v", evs)
	}
	closeParts()
	checkFolder(t, dir)
}

// checkFolder runs the log checker over every session of the data
// folder's database, read-only; the folder must hold some.
func checkFolder(t *testing.T, dir string) {
	t.Helper()
	if testkit.CheckFile(t, filepath.Join(dir, config.DatabaseFile)) == 0 {
		t.Fatal("sessions: the data folder holds none to check")
	}
}

// TestADeepDataFolderKeepsItsLocalChannel: an owner of a data folder
// whose quire.sock would not fit a socket address (108 bytes) still opens
// its local channel, and a client (`quire index`, `run`, `chat`) finds it
// where the folder's record says and is answered.
func TestADeepDataFolderKeepsItsLocalChannel(t *testing.T) {
	run, err := os.MkdirTemp("", "xdg")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(run) })
	t.Setenv("XDG_RUNTIME_DIR", run)
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	dir := filepath.Join(t.TempDir(), strings.Repeat("a-folder-synced-from-elsewhere-", 4))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	settings := config.NewStore(config.Config{DataDir: dir, OllamaHost: fake.URL(), Model: "qwen3:4b", NumCtx: 4096})
	p, err := OpenWith(t.Context(), settings, slog.New(slog.DiscardHandler), Owner, Extras{Kind: datadir.Serve})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	p.ServeLocal(t.Context(), p.ServeBackend(t.Context(), ""))
	if _, err := httpapi.DialLocal(datadir.SocketPath(dir)).Index(t.Context()); err != nil {
		t.Fatalf("the local channel of a deep data folder: %v", err)
	}
}
