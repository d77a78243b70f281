package datadir

import (
	"bufio"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"quire/internal/crashtest"
)

// childEnv makes the test binary a child: "hold DIR" takes DIR's lock and
// its local channel, says "held", and waits to be killed; "dial SOCKET"
// connects, says whether anything answered, and exits.
const childEnv = "QUIRE_DATADIR_CHILD"

func TestMain(m *testing.M) { crashtest.Main(m, childEnv, child) }

func child(spec string) {
	verb, arg, _ := strings.Cut(spec, " ")
	switch verb {
	case "hold":
		l, err := Acquire(arg, Holder{PID: os.Getpid(), Kind: Serve, Since: time.Now()})
		if err != nil {
			os.Stderr.WriteString(err.Error())
			os.Exit(1)
		}
		if _, err := l.Listen(slog.New(slog.DiscardHandler)); err != nil {
			os.Stderr.WriteString(err.Error())
			os.Exit(1)
		}
		os.Stdout.WriteString("held\n")
		select {} // until SIGKILL
	case "dial":
		c, err := net.Dial("unix", arg)
		if err != nil {
			os.Stdout.WriteString("cannot connect: " + err.Error() + "\n")
			return
		}
		c.Write([]byte("ping\n"))
		line, err := bufio.NewReader(c).ReadString('\n')
		if err != nil {
			os.Stdout.WriteString("refused\n")
			return
		}
		os.Stdout.WriteString("answered " + line)
	}
}

func holder(kind Kind) Holder {
	return Holder{PID: os.Getpid(), Kind: kind, Since: time.Date(2026, 12, 1, 10, 58, 0, 0, time.UTC)}
}

// TestASecondOwnerIsRefusedWithTheHolder: while one owner holds a folder
// another is refused, told who holds it; once it is let go, it is free.
func TestASecondOwnerIsRefusedWithTheHolder(t *testing.T) {
	dir := t.TempDir()
	first, err := Acquire(dir, holder(Serve))
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Announce("http://127.0.0.1:8765"); err != nil {
		t.Fatal(err)
	}
	_, err = Acquire(dir, holder(Window))
	var inUse *InUseError
	if !errors.As(err, &inUse) || !errors.Is(err, ErrInUse) {
		t.Fatalf("the second owner got %v, want an InUseError", err)
	}
	want := Holder{PID: os.Getpid(), Kind: Serve, Since: holder(Serve).Since, URL: "http://127.0.0.1:8765"}
	if got := inUse.Holder; got.PID != want.PID || got.Kind != want.Kind || !got.Since.Equal(want.Since) || got.URL != want.URL {
		t.Fatalf("the refusal names %+v, want %+v", got, want)
	}
	if s := inUse.Holder.String(); !strings.Contains(s, "`quire serve`") || !strings.Contains(s, "process ") {
		t.Errorf("the holder reads %q", s)
	}
	if h, ok, err := Held(dir); err != nil || !ok || h.PID != os.Getpid() {
		t.Fatalf("Held: %+v %v %v", h, ok, err)
	}
	if err := first.Release(); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := Held(dir); err != nil || ok {
		t.Fatalf("a released folder reads as held (%v, %v)", ok, err)
	}
	second, err := Acquire(dir, holder(Window))
	if err != nil {
		t.Fatalf("a released folder was refused: %v", err)
	}
	second.Release()
}

// TestAKilledOwnerLeavesNoStaleLock: SIGKILL of the holder frees the
// folder at once (the kernel lets the lock go), and the next owner
// replaces the socket file the dead one left.
func TestAKilledOwnerLeavesNoStaleLock(t *testing.T) {
	dir := t.TempDir()
	crash := crashtest.New(t, childEnv, 1)
	ch := crash.Start("hold " + dir)
	if line, ok := ch.Line(); !ok || line != "held" {
		t.Fatalf("the child said %q (%v); stderr: %s", line, ok, ch.Stderr())
	}
	_, err := Acquire(dir, holder(Window))
	var inUse *InUseError
	if !errors.As(err, &inUse) || inUse.Holder.PID == os.Getpid() || inUse.Holder.Kind != Serve {
		t.Fatalf("with the child holding the folder, Acquire gave %v", err)
	}
	if !ch.Kill() {
		t.Fatal("the child was not killed")
	}
	if _, err := os.Lstat(SocketPath(dir)); err != nil {
		t.Fatalf("the killed owner left no socket file, so the test cannot see it replaced: %v", err)
	}
	l, err := Acquire(dir, holder(Window))
	if err != nil {
		t.Fatalf("after the holder's SIGKILL the folder is still refused: %v", err)
	}
	defer l.Release()
	ln, err := l.Listen(slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatalf("the stale socket was not replaced: %v", err)
	}
	go func() {
		c, err := ln.Accept()
		if err == nil {
			c.Write([]byte("yes\n"))
			c.Close()
		}
	}()
	c, err := net.Dial("unix", SocketPath(dir))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if line, err := bufio.NewReader(c).ReadString('\n'); err != nil || line != "yes\n" {
		t.Fatalf("the new owner's channel answered %q, %v", line, err)
	}
}

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
