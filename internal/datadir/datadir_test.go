package datadir

import (
	"bufio"
	"errors"
	"log/slog"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"quire/test/crashtest"
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
	if h, ok, err := Held(dir); err != nil || !ok || h.PID != inUse.Holder.PID || h.Kind != Serve {
		t.Fatalf("with the child holding the folder, Held gave %+v %v %v", h, ok, err)
	}
	if !ch.Kill() {
		t.Fatal("the child was not killed")
	}
	// The dead child's record is still in the file; the kernel's locks say
	// it holds nothing.
	if h, ok, err := Held(dir); err != nil || ok {
		t.Fatalf("after the holder's SIGKILL, Held gave %+v %v %v", h, ok, err)
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
