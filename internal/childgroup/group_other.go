//go:build !unix

package childgroup

import (
	"os/exec"
	"sync"
)

// Group is a started child. Without Unix process groups only the child
// itself is killed, and nothing ends it when Quire is killed.
type Group struct {
	cmd  *exec.Cmd
	once sync.Once
}

// Start starts cmd by calling start; see the Unix Start.
func Start(cmd *exec.Cmd, start func() error) (*Group, error) {
	if err := start(); err != nil {
		return nil, err
	}
	return &Group{cmd: cmd}, nil
}

// Kill kills the child.
func (g *Group) Kill() {
	g.once.Do(func() {
		if g.cmd.Process != nil {
			_ = g.cmd.Process.Kill()
		}
	})
}
