package provider

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
)

// The adapters class transport failures the same way whatever the runner,
// so these live here once; each adapter words its own sentence.

// DialFailed reports whether err means nothing accepted the connection: the
// runner is not running there, or the name does not resolve.
func DialFailed(err error) bool {
	if op, ok := errors.AsType[*net.OpError](err); ok && op.Op == "dial" {
		return true
	}
	if _, ok := errors.AsType[*net.DNSError](err); ok {
		return true
	}
	return errors.Is(err, syscall.ECONNREFUSED)
}

// ConnectionCut reports whether the server hung up before it answered.
func ConnectionCut(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// RunnerStopped recognises Ollama 0.17's words (llm/server.go; served at /v1
// too) for a model runner that died: at load, "llama runner process has
// terminated" or "…no longer running" (a 500); found dead, "model runner has
// unexpectedly stopped"; dying mid-reply, "an error was encountered while
// running the model: unexpected EOF". Ollama starts a new runner on the next
// request, so the kernel retries once (ErrRunnerStopped).
func RunnerStopped(err error) bool {
	msg := err.Error()
	for _, s := range []string{"llama runner process has terminated", "llama runner process no longer running", "model runner has unexpectedly stopped",
		"an error was encountered while running the model: unexpected EOF"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// Stopped is the error of a call whose context ended, wrapping its cause
// (and the context's own error when the cause is another).
func Stopped(ctx context.Context, server string) error {
	cause, err := context.Cause(ctx), ctx.Err()
	if errors.Is(cause, err) {
		return fmt.Errorf("request to %s stopped: %w", server, cause)
	}
	return fmt.Errorf("request to %s stopped: %w (%w)", server, cause, err)
}
