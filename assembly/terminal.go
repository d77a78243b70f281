package assembly

import (
	"context"

	"quire/host"
	"quire/kernel/protocol"
)

// Claim is the in-process half of host.Driver: a terminal host that owns
// the data folder itself (no window or `quire serve` running) claims a
// session on its own Parts, as one reaching the owner over the local
// channel claims it there (httpapi's claim route); either way the
// session's questions reach the terminal through the same host.Claims.
func (p *Parts) Claim(ctx context.Context, session string) (<-chan []protocol.Question, error) {
	cl, err := p.claims.Claim(session)
	if err != nil {
		return nil, err
	}
	lists := host.WatchBoard(ctx, cl.Questions())
	out := make(chan []protocol.Question)
	go func() {
		defer close(out)
		defer cl.Release()
		for l := range lists {
			select {
			case out <- l:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out, nil
}

var _ host.Driver = (*Parts)(nil)
