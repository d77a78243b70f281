package datadir

import (
	"bufio"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestTheLocalChannelIsTheUsersOnly: the socket is 0600, and even when
// its file and folder are opened to everyone another user's connection is
// refused by the peer check, while the owner's own is answered. It needs
// root, to run a child as another user.
func TestTheLocalChannelIsTheUsersOnly(t *testing.T) {
	dir := t.TempDir()
	l, err := Acquire(dir, holder(Window))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	ln, err := l.Listen(slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	sock := SocketPath(dir)
	if fi, err := os.Stat(sock); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the socket's mode is %v (%v), want 0600", fi.Mode().Perm(), err)
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				if line, err := bufio.NewReader(c).ReadString('\n'); err == nil {
					io.WriteString(c, "pong "+line)
				}
			}()
		}
	}()
	// The owner's own connection is answered.
	if out := dial(t, sock, nil); out != "answered pong ping" {
		t.Fatalf("the owner's own connection: %q", out)
	}
	if os.Getuid() != 0 {
		t.Skip("running a child as another user needs root; the peer check is not tested")
	}
	// Open the folder and the socket to everyone: only the peer check is left.
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(sock, 0o666); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "child.test")
	copyFile(t, os.Args[0], bin)
	// t.TempDir's folders (and the one above them) are 0700.
	for _, d := range []string{filepath.Dir(bin), filepath.Dir(filepath.Dir(bin)), filepath.Dir(dir)} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if out := dial(t, sock, &childAs{bin: bin, uid: 65534}); out != "refused" {
		t.Fatalf("another user's connection: %q, want it refused", out)
	}
}

type childAs struct {
	bin string
	uid uint32
}

// dial runs the test binary as a "dial" child (as another user with as)
// and returns what it said.
func dial(t *testing.T, sock string, as *childAs) string {
	t.Helper()
	bin := os.Args[0]
	cmd := exec.Command(bin, "-test.run=^$")
	if as != nil {
		cmd = exec.Command(as.bin, "-test.run=^$")
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: as.uid, Gid: as.uid}}
		cmd.Dir = "/"
	}
	cmd.Env = append(os.Environ(), childEnv+"=dial "+sock)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the dial child failed: %v: %s", err, out)
	}
	return strings.TrimSpace(string(out))
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o755); err != nil {
		t.Fatal(err)
	}
}
