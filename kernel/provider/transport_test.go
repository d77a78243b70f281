package provider_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"

	"quire/kernel/provider"
)

func TestTransportFailuresAreClassed(t *testing.T) {
	dial := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	read := &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}
	cases := []struct {
		name               string
		err                error
		dial, cut, stopped bool
	}{
		{"nothing listens", fmt.Errorf("post: %w", dial), true, false, false},
		{"name not found", &net.DNSError{Err: "no such host", Name: "ollama.local"}, true, false, false},
		{"refused, bare", syscall.ECONNREFUSED, true, false, false},
		{"reset mid-reply", fmt.Errorf("read: %w", read), false, true, false},
		{"cut short", io.ErrUnexpectedEOF, false, true, false},
		{"runner died at load", errors.New("llama runner process has terminated: signal: killed"), false, false, true},
		{"runner died mid-reply", errors.New("an error was encountered while running the model: unexpected EOF"), false, false, true},
		{"a model error", errors.New("model \"x\" not found"), false, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := provider.DialFailed(c.err); got != c.dial {
				t.Errorf("DialFailed = %v, want %v", got, c.dial)
			}
			if got := provider.ConnectionCut(c.err); got != c.cut {
				t.Errorf("ConnectionCut = %v, want %v", got, c.cut)
			}
			if got := provider.RunnerStopped(c.err); got != c.stopped {
				t.Errorf("RunnerStopped = %v, want %v", got, c.stopped)
			}
		})
	}
}

func TestStoppedKeepsTheCause(t *testing.T) {
	why := errors.New("the user pressed Stop")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(why)
	err := provider.Stopped(ctx, "Ollama")
	if !errors.Is(err, why) || !errors.Is(err, context.Canceled) {
		t.Fatalf("Stopped = %v: want both the cause and context.Canceled", err)
	}
	plain, stop := context.WithCancel(context.Background())
	stop()
	if got := provider.Stopped(plain, "Ollama").Error(); got != "request to Ollama stopped: context canceled" {
		t.Fatalf("Stopped without a cause = %q", got)
	}
}
