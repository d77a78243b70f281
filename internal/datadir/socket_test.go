package datadir

import (
	"bufio"
	"errors"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runtimeDir is a short $XDG_RUNTIME_DIR for the test (t.TempDir's
// names are too long to leave room for the socket's).
func runtimeDir(t *testing.T) string {
	t.Helper()
	run, err := os.MkdirTemp("", "xdg")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(run) })
	t.Setenv("XDG_RUNTIME_DIR", run)
	return run
}

// longDir is a data folder whose quire.sock would not fit a socket
// address (108 bytes on Linux).
func longDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), strings.Repeat("a-folder-synced-from-elsewhere-", 4))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if n := len(filepath.Join(dir, SocketFile)); n <= 108 {
		t.Fatalf("the test's folder is short enough (%d bytes)", n)
	}
	return dir
}

// TestTheLocalChannelWorksAtAnyDataFolderPath: a data folder too deep for
// a socket address still gets its local channel, at a short address in a
// 0700 folder of the user's (under $XDG_RUNTIME_DIR) that the record
// names, where a client finds it and is answered.
func TestTheLocalChannelWorksAtAnyDataFolderPath(t *testing.T) {
	runtimeDir(t)
	dir := longDir(t)
	l, err := Acquire(dir, holder(Serve))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	ln, err := l.Listen(slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatalf("a deep data folder has no local channel: %v", err)
	}
	path := SocketPath(dir)
	if len(path) > maxSocketPath || !strings.HasPrefix(path, os.Getenv("XDG_RUNTIME_DIR")) {
		t.Fatalf("the socket is at %s", path)
	}
	if h, ok, err := Held(dir); err != nil || !ok || h.Socket != path {
		t.Errorf("the record names the socket %q (%v %v), want %s", h.Socket, ok, err, path)
	}
	st, err := os.Lstat(filepath.Dir(path))
	if err != nil || st.Mode().Perm() != 0o700 || !ownedByMe(st) {
		t.Errorf("the socket's folder: %v %v, want the user's own, 0700", st.Mode(), err)
	}
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		line, _ := bufio.NewReader(c).ReadString('\n')
		c.Write([]byte("pong " + line))
	}()
	c, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := CheckPeer(c); err != nil {
		t.Errorf("the owner is this user's, yet CheckPeer says %v", err)
	}
	c.Write([]byte("ping\n"))
	if line, err := bufio.NewReader(c).ReadString('\n'); line != "pong ping\n" {
		t.Errorf("the owner answered %q (%v)", line, err)
	}
}

// TestTheLocalChannelRefusesAFolderOthersMayEnter: the short address's
// folder, made beforehand open to others (or as a link), is refused: the
// owner does not listen where another user could.
func TestTheLocalChannelRefusesAFolderOthersMayEnter(t *testing.T) {
	for _, name := range []string{"open to others", "a link"} {
		t.Run(name, func(t *testing.T) {
			run := runtimeDir(t)
			switch name {
			case "open to others":
				if err := os.Mkdir(filepath.Join(run, "quire"), 0o777); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(filepath.Join(run, "quire"), 0o777); err != nil {
					t.Fatal(err)
				}
			case "a link":
				if err := os.Symlink(t.TempDir(), filepath.Join(run, "quire")); err != nil {
					t.Fatal(err)
				}
			}
			l, err := Acquire(longDir(t), holder(Serve))
			if err != nil {
				t.Fatal(err)
			}
			defer l.Release()
			if _, err := l.Listen(slog.New(slog.DiscardHandler)); !errors.Is(err, ErrForeignFolder) {
				t.Errorf("Listen in a folder %s: %v, want ErrForeignFolder", name, err)
			}
		})
	}
}
