package mcpclient

import (
	"context"
	"sync"

	"quire/internal/latest"
	"quire/kernel/protocol"
)

// watchers hand each watcher every server's states: in order per server,
// and when a watcher is slow, the latest state of each server it has not
// taken yet (one server's state never hides another's: latest.Keyed).
type watchers struct {
	mu  sync.Mutex
	set map[*latest.Keyed[protocol.MCPServer]]struct{}
}

func (ws *watchers) publish(s protocol.MCPServer) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	for w := range ws.set {
		w.Offer(s.Config.Name, s)
	}
}

// watch delivers until ctx ends, then closes the channel.
func (ws *watchers) watch(ctx context.Context) <-chan protocol.MCPServer {
	w := latest.NewKeyed[protocol.MCPServer]()
	ws.mu.Lock()
	if ws.set == nil {
		ws.set = map[*latest.Keyed[protocol.MCPServer]]struct{}{}
	}
	ws.set[w] = struct{}{}
	ws.mu.Unlock()
	return latest.Drain(ctx, w.Wake(), w.Take, func() {
		ws.mu.Lock()
		delete(ws.set, w)
		ws.mu.Unlock()
	})
}

// Settle waits until no server is starting (each answered or failed: a
// start is bounded by the handshake's deadline), or ctx ends. waited names
// the servers starting when it was called, starting those still starting
// when it returns. The runtime calls it before it freezes a run's tools
// (runtime.ToolSettler), so a run asked for just after Quire started is
// offered the servers' tools rather than frozen without them.
func (m *Client) Settle(ctx context.Context) (waited, starting []string) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	changes := m.watch.watch(ctx) // before the look, so no change falls between
	startingNow := func() []string {
		m.mu.Lock()
		defer m.mu.Unlock()
		var names []string
		for _, name := range m.namesLocked() {
			if m.servers[name].state == protocol.MCPStarting {
				names = append(names, name)
			}
		}
		return names
	}
	waited = startingNow()
	starting = waited
	if len(waited) > 0 {
		// A run held up to SettleWait says why in the log.
		m.log.Info("a run waits for mcp servers to start", "servers", waited)
	}
	for len(starting) > 0 {
		if _, ok := <-changes; !ok {
			return waited, startingNow() // ctx ended
		}
		starting = startingNow()
	}
	return waited, nil
}
