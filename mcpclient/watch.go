package mcpclient

import (
	"context"
	"sync"

	"quire/kernel/protocol"
)

// watchers hand each watcher every server's states: in order per server,
// and when a watcher is slow, the latest state of each server it has not
// taken yet (one server's state never hides another's).
type watchers struct {
	mu  sync.Mutex
	set map[*watcher]struct{}
}

type watcher struct {
	mu      sync.Mutex
	pending map[string]protocol.MCPServer
	order   []string
	wake    chan struct{}
}

func (ws *watchers) publish(s protocol.MCPServer) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	for w := range ws.set {
		w.mu.Lock()
		if _, ok := w.pending[s.Config.Name]; !ok {
			w.order = append(w.order, s.Config.Name)
		}
		w.pending[s.Config.Name] = s
		w.mu.Unlock()
		select {
		case w.wake <- struct{}{}:
		default:
		}
	}
}

// watch delivers until ctx ends, then closes the channel.
func (ws *watchers) watch(ctx context.Context) <-chan protocol.MCPServer {
	w := &watcher{pending: map[string]protocol.MCPServer{}, wake: make(chan struct{}, 1)}
	ws.mu.Lock()
	if ws.set == nil {
		ws.set = map[*watcher]struct{}{}
	}
	ws.set[w] = struct{}{}
	ws.mu.Unlock()
	out := make(chan protocol.MCPServer)
	go func() {
		defer close(out)
		defer func() {
			ws.mu.Lock()
			delete(ws.set, w)
			ws.mu.Unlock()
		}()
		for {
			w.mu.Lock()
			var next *protocol.MCPServer
			if len(w.order) > 0 {
				name := w.order[0]
				s := w.pending[name]
				w.order = w.order[1:]
				delete(w.pending, name)
				next = &s
			}
			w.mu.Unlock()
			if next == nil {
				select {
				case <-w.wake:
					continue
				case <-ctx.Done():
					return
				}
			}
			select {
			case out <- *next:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}
