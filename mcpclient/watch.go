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
