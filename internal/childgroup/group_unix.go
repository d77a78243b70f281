//go:build unix

package childgroup

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"syscall"
)

// errWatcher: the watcher (/bin/sh) or its pipe could not be made, so the
// child is not started: it would not be sure to end with Quire.
var errWatcher = errors.New("could not start the watcher that ends the program with Quire")

// watch is the watcher's script. Nothing is ever written to the pipe, so
// read returns only at its end: Quire has gone, or Kill closed it.
const watch = "read -r gone <&3; kill -KILL 0"

// Group is a started child's process group.
type Group struct {
	watcher  *exec.Cmd
	lifeline *os.File // the pipe's one write end: open while Quire wants the group
	pgid     int
	release  chan struct{} // closed by Kill: the thread that forked the child may go
	once     sync.Once
}

// Start starts cmd, by calling start (cmd.Start, or the MCP SDK's
// transport, which calls it), in a new process group that ends with
// Quire. start's error is returned as it is, so callers still tell a
// missing program from the rest. A cmd made by exec.CommandContext has its
// cancellation kill the whole group. The caller must call Kill once the
// child is done with (after Wait, on a stop): that frees the group's
// thread.
//
// The watcher leads the group rather than the child, so the group exists
// before the child runs (nothing it forks in its first instant escapes)
// and its number stays taken until Kill reaps the watcher: Kill's signal
// cannot reach a stranger's group that got a recycled number.
//
// The parent-death signal fires when the thread that forked the child
// exits, not the process (golang/go#27505), and the Go runtime ends a
// thread whose goroutine returns while locked to it, as any library may
// do. So the fork happens on a goroutine locked to its thread that stays
// parked until Kill: that thread lives as long as the group or Quire. It
// costs one parked thread per child (at most MCPMaxServers + 1).
func Start(cmd *exec.Cmd, start func() error) (*Group, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errWatcher, err)
	}
	watcher := exec.Command("/bin/sh", "-c", watch)
	watcher.ExtraFiles = []*os.File{r} // its fd 3; w is close-on-exec, so only Quire holds it
	watcher.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err = watcher.Start()
	r.Close()
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("%w: %w", errWatcher, err)
	}
	g := &Group{watcher: watcher, lifeline: w, pgid: watcher.Process.Pid, release: make(chan struct{})}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid, cmd.SysProcAttr.Pgid = true, g.pgid
	dieWithParent(cmd.SysProcAttr)
	if cmd.Cancel != nil {
		cmd.Cancel = func() error { g.Kill(); return nil }
	}
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread() // after Kill: the child is gone, the thread may serve others
		started <- start()
		<-g.release
	}()
	if err := <-started; err != nil {
		g.Kill()
		return nil, err
	}
	return g, nil
}

// Kill kills the whole group now (the child, what it started that stayed
// in its group, the watcher) and reaps the watcher. It may be called more
// than once, from any goroutine.
func (g *Group) Kill() {
	g.once.Do(func() {
		_ = syscall.Kill(-g.pgid, syscall.SIGKILL)
		_ = g.lifeline.Close()
		_ = g.watcher.Wait() // it was sent SIGKILL: this is prompt
		close(g.release)
	})
}
