// Package crashtest is the harness of the crash tests: the test binary runs
// itself again as a child process doing real work, the test kills it with
// SIGKILL and then checks what the child left on disk. It owns the child's
// start and output, the random moments of the kills (seeded, the seed
// logged so a failure can be repeated), and the count of kills that really
// happened: a test fails when fewer kills landed than it asked for, so a
// child that always finished first cannot pass for a crash test.
//
// Only tests import it. It must never import the packages under test.
package crashtest

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// SeedEnv names the variable that repeats a run: set it to the seed a
// failed run logged.
const SeedEnv = "QUIRE_CRASH_SEED"

// Patience bounds each wait for the child's output; it is only spent when
// the child is stuck or silent.
const Patience = 60 * time.Second

// Main is the TestMain of a package whose test binary doubles as a child:
// with env set it runs child on the variable's value (which must exit the
// process, or it exits 0 when child returns); otherwise it runs the tests.
func Main(m *testing.M, env string, child func(spec string)) {
	if spec := os.Getenv(env); spec != "" {
		child(spec)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// Crash is one crash test: its children, its random source and its kills.
type Crash struct {
	t     testing.TB
	env   string
	seed  uint64
	rng   *rand.Rand
	want  int
	kills int
}

// New starts a crash test that asks for want kills of children started
// with env. The seed (from SeedEnv, or the clock) is logged now; when the
// test ends with fewer kills than want, it fails.
func New(t testing.TB, env string, want int) *Crash {
	t.Helper()
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv(SeedEnv); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("%s=%q is not a seed: %v", SeedEnv, s, err)
		}
		seed = n
	}
	t.Logf("crash seed %d (%s=%d repeats it)", seed, SeedEnv, seed)
	c := &Crash{t: t, env: env, seed: seed, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), want: want}
	t.Cleanup(func() {
		if !t.Failed() && c.kills < c.want {
			t.Errorf("%d kills landed, %d were asked for (seed %d)", c.kills, c.want, c.seed)
		}
	})
	return c
}

// Kills is how many children a SIGKILL has ended so far.
func (c *Crash) Kills() int { return c.kills }

// Want is how many kills the test asked for.
func (c *Crash) Want() int { return c.want }

// Pause waits a random while shorter than max, so the next kill lands
// anywhere in the child's work. It is the point of a crash test, not a
// synchronisation: what the child has done is read from its output.
func (c *Crash) Pause(max time.Duration) {
	time.Sleep(time.Duration(c.rng.Int64N(int64(max))))
}

// Child is a running child process.
type Child struct {
	c       *Crash
	cmd     *exec.Cmd
	out     *lines
	stderr  *syncBuffer
	exited  chan struct{} // closed once the child has ended and waitErr is set
	waitErr error
}

// Start runs the test binary again, running no test, with the crash's
// variable set to spec. The child is killed when the test ends if it is
// still running then.
func (c *Crash) Start(spec string) *Child {
	c.t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), c.env+"="+spec)
	ch := &Child{c: c, cmd: cmd, out: newLines(), stderr: &syncBuffer{}, exited: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = ch.out, ch.stderr
	if err := cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	go func() {
		ch.waitErr = cmd.Wait() // returns once the output is copied
		ch.out.end()
		close(ch.exited)
	}()
	c.t.Cleanup(func() {
		cmd.Process.Kill()
		<-ch.exited
	})
	return ch
}

// Line is the child's next line of output; ok is false once the child has
// exited with nothing more to say. A child silent for Patience fails the
// test.
func (ch *Child) Line() (line string, ok bool) {
	ch.c.t.Helper()
	line, ok, timedOut := ch.out.next(Patience)
	if timedOut {
		ch.c.t.Fatalf("the child said nothing for %s; stderr: %s", Patience, ch.stderr)
	}
	return line, ok
}

// Kill sends SIGKILL and waits for the child to end. It reports whether the
// signal ended it, counting the kill; a child that had already exited on
// its own reports false, and if it failed, the test fails with its stderr.
func (ch *Child) Kill() bool {
	ch.c.t.Helper()
	ch.cmd.Process.Signal(syscall.SIGKILL)
	<-ch.exited
	err := ch.waitErr
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
			ch.c.kills++
			return true
		}
	}
	if err != nil {
		ch.c.t.Fatalf("the child failed before the kill: %v; stderr: %s", err, ch.stderr)
	}
	return false
}

// Stderr is what the child has written on its standard error.
func (ch *Child) Stderr() string { return ch.stderr.String() }

// lines is the child's standard output, split into lines and queued
// without bound, so the child never waits on a test that reads slowly.
type lines struct {
	mu      sync.Mutex
	partial []byte
	queue   []string
	closed  bool
	wake    chan struct{}
}

func newLines() *lines { return &lines{wake: make(chan struct{}, 1)} }

func (l *lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	l.partial = append(l.partial, p...)
	for {
		i := bytes.IndexByte(l.partial, '\n')
		if i < 0 {
			break
		}
		l.queue = append(l.queue, string(l.partial[:i]))
		l.partial = l.partial[i+1:]
	}
	l.mu.Unlock()
	l.signal()
	return len(p), nil
}

// end marks the output finished: the child has exited.
func (l *lines) end() {
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
	l.signal()
}

func (l *lines) signal() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

func (l *lines) next(patience time.Duration) (line string, ok, timedOut bool) {
	timeout := time.After(patience)
	for {
		l.mu.Lock()
		switch {
		case len(l.queue) > 0:
			line = l.queue[0]
			l.queue = l.queue[1:]
			l.mu.Unlock()
			return line, true, false
		case l.closed:
			l.mu.Unlock()
			return "", false, false
		}
		l.mu.Unlock()
		select {
		case <-l.wake:
		case <-timeout:
			return "", false, true
		}
	}
}

// syncBuffer is a strings.Builder safe to read while exec writes to it.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
