package assembly

import (
	"context"
	"net"
	"net/url"
	"os"
	"os/exec"
	"time"

	"quire/internal/childgroup"
)

// ollamaReady bounds how long opening waits for an `ollama serve` it
// started to answer: long enough for a cold start, short enough that a
// runner that never answers costs one pause, not a hung window.
const ollamaReady = 8 * time.Second

// ollamaChild is an `ollama serve` this process started; done is closed
// once it has been reaped.
type ollamaChild struct {
	group *childgroup.Group
	done  chan struct{}
}

// serveOllama starts an installed but stopped Ollama, as Alpaca and LM
// Studio run theirs (issue 31: without it the first screen was a dead
// end). Only when the address is this machine's, nothing answers there
// and an `ollama` program is on PATH: a remote or already running Ollama
// is the user's. The child serves the configured address, dies with
// Quire however Quire ends (childgroup), and opening waits for it to
// answer, so the model and embedder checks that follow see it.
func (p *Parts) serveOllama(ctx context.Context, host *url.URL) {
	if !loopback(host) {
		return
	}
	probe, cancel := context.WithTimeout(ctx, time.Second)
	_, err := p.ollama.Version(probe)
	cancel()
	if err == nil {
		return
	}
	bin, err := exec.LookPath("ollama")
	if err != nil {
		return // not installed: the first screen says how to install it
	}
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(), "OLLAMA_HOST="+host.Host)
	g, err := childgroup.Start(cmd, cmd.Start)
	if err != nil {
		p.log.Warn("Ollama is installed but could not be started", "program", bin, "err", err)
		return
	}
	c := &ollamaChild{group: g, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		close(c.done)
	}()
	p.ollamaChild = c
	p.log.Info("Ollama was not running: started it; it stops with Quire", "program", bin, "address", host.Host)
	wait, cancel := context.WithTimeout(ctx, ollamaReady)
	defer cancel()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		probe, stop := context.WithTimeout(wait, time.Second)
		_, err := p.ollama.Version(probe)
		stop()
		if err == nil {
			return
		}
		select {
		case <-c.done:
			p.log.Warn("the Ollama Quire started has exited", "program", bin)
			return
		case <-wait.Done():
			p.log.Warn("the Ollama Quire started does not answer yet", "address", host.Host)
			return
		case <-tick.C:
		}
	}
}

// stop ends the child and waits until it is reaped.
func (c *ollamaChild) stop() {
	if c == nil {
		return
	}
	c.group.Kill()
	<-c.done
}

// loopback reports whether host names this machine.
func loopback(host *url.URL) bool {
	name := host.Hostname()
	if name == "localhost" {
		return true
	}
	ip := net.ParseIP(name)
	return ip != nil && ip.IsLoopback()
}
