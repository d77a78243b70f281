package crashtest

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Fifo makes a named pipe in a fresh folder, for a process the test did
// not start (a child's child) to say its pids on: Pids reads them as the
// writer closes, without polling a file. When the test ends a reader still
// waiting for a writer is let go.
func Fifo(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "pids")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// A reader blocked in open gets a writer, then its end.
		if f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	return path
}

// Pids reads one message of whitespace-separated pids from fifo (Fifo):
// what the child's descendants wrote, once the writer closed it. A child
// whose descendants say nothing for Patience fails the test with its
// stderr.
func (ch *Child) Pids(fifo string) []int {
	ch.c.t.Helper()
	type said struct {
		text string
		err  error
	}
	got := make(chan said, 1)
	go func() {
		f, err := os.Open(fifo) // until a writer opens it
		if err != nil {
			got <- said{err: err}
			return
		}
		defer f.Close()
		b, err := io.ReadAll(io.LimitReader(f, 4096)) // until every writer has closed it
		got <- said{string(b), err}
	}()
	var s said
	select {
	case s = <-got:
	case <-time.After(Patience):
		ch.c.t.Fatalf("no pids on %s after %s; the child's stderr: %s", fifo, Patience, ch.stderr)
	}
	if s.err != nil {
		ch.c.t.Fatalf("reading the pids: %v; the child's stderr: %s", s.err, ch.stderr)
	}
	var pids []int
	for _, f := range strings.Fields(s.text) {
		pid, err := strconv.Atoi(f)
		if err != nil || pid <= 1 {
			ch.c.t.Fatalf("%q is not a pid (the message was %q)", f, s.text)
		}
		pids = append(pids, pid)
	}
	if len(pids) == 0 {
		ch.c.t.Fatalf("the message on %s named no pid; the child's stderr: %s", fifo, ch.stderr)
	}
	return pids
}

// Procs are running processes the test did not start, watched by pidfd:
// opened while they run, a pidfd names its process for good (a recycled
// pid is another process) and becomes readable when the process ends, so
// WaitGone wakes on the ends themselves, never on a timer.
type Procs struct {
	t    testing.TB
	pids []int
	fds  []int
	gone []bool
}

// Watch starts watching pids, which must all be running now: a test whose
// processes had ended before its kill would pass for nothing. When the
// test ends any still running is killed, through its pidfd.
func Watch(t testing.TB, pids ...int) *Procs {
	t.Helper()
	p := &Procs{t: t, pids: pids, fds: make([]int, len(pids)), gone: make([]bool, len(pids))}
	for i, pid := range pids {
		fd, err := unix.PidfdOpen(pid, 0)
		if err != nil {
			for _, open := range p.fds[:i] {
				unix.Close(open)
			}
			t.Fatalf("process %d is not running: %v", pid, err)
		}
		p.fds[i] = fd
	}
	t.Cleanup(func() {
		for i, fd := range p.fds {
			if !p.gone[i] {
				_ = unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
			}
			unix.Close(fd)
		}
	})
	if ended := p.poll(0); len(ended) > 0 {
		t.Fatalf("processes %v had ended before the test's kill", ended)
	}
	return p
}

// WaitGone waits until every watched process has ended and fails the test,
// naming the survivors, when one still runs after Patience.
func (p *Procs) WaitGone() {
	p.t.Helper()
	deadline := time.Now().Add(Patience)
	for {
		p.poll(time.Until(deadline))
		var left []string
		for i, pid := range p.pids {
			if !p.gone[i] {
				left = append(left, describe(pid))
			}
		}
		if len(left) == 0 {
			return
		}
		if !time.Now().Before(deadline) {
			p.t.Fatalf("%d of %d processes outlived Quire by %s: %s", len(left), len(p.pids), Patience, strings.Join(left, "; "))
		}
	}
}

// poll waits up to wait for a watched process to end, marks those that
// have, and returns their pids.
func (p *Procs) poll(wait time.Duration) []int {
	p.t.Helper()
	var fds []unix.PollFd
	var idx []int
	for i, fd := range p.fds {
		if !p.gone[i] {
			fds = append(fds, unix.PollFd{Fd: int32(fd), Events: unix.POLLIN})
			idx = append(idx, i)
		}
	}
	if len(fds) == 0 {
		return nil
	}
	if _, err := unix.Poll(fds, int(max(wait, 0).Milliseconds())); err != nil && !errors.Is(err, unix.EINTR) {
		p.t.Fatal(err)
	}
	var ended []int
	for j, f := range fds {
		if f.Revents != 0 {
			p.gone[idx[j]] = true
			ended = append(ended, p.pids[idx[j]])
		}
	}
	return ended
}

// describe names a process by its pid and command line, for a failure.
func describe(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return strconv.Itoa(pid)
	}
	return fmt.Sprintf("%d (%s)", pid, strings.TrimSpace(strings.ReplaceAll(string(b), "\x00", " ")))
}
