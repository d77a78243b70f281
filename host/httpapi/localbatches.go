package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"

	"quire/host"
	"quire/kernel/protocol"
)

// Batches is the owner's task queue over its local channel (the
// /api/batches routes and their stream), so `quire organise` works through
// the window's or `quire serve`'s workers while one of them owns the
// folder, as `quire index` works through its index.
func (l *Local) Batches() host.Batches { return localBatches{l} }

type localBatches struct{ l *Local }

func (b localBatches) Start(ctx context.Context, folder string) (protocol.Batch, error) {
	var out protocol.Batch
	err := b.l.do(ctx, http.MethodPost, "/api/batches", folderBody{Folder: folder}, &out)
	return out, err
}

func (b localBatches) List(ctx context.Context) ([]protocol.Batch, error) {
	var out []protocol.Batch
	err := b.l.do(ctx, http.MethodGet, "/api/batches", nil, &out)
	return out, err
}

func (b localBatches) Get(ctx context.Context, id string) (protocol.BatchReview, error) {
	var out protocol.BatchReview
	err := b.l.do(ctx, http.MethodGet, "/api/batches/"+url.PathEscape(id), nil, &out)
	return out, err
}

func (b localBatches) act(ctx context.Context, id, action string, body any) (protocol.Batch, error) {
	var out protocol.Batch
	if body == nil {
		body = struct{}{}
	}
	err := b.l.do(ctx, http.MethodPost, "/api/batches/"+url.PathEscape(id)+"/"+action, body, &out)
	return out, err
}

func (b localBatches) Pause(ctx context.Context, id string) (protocol.Batch, error) {
	return b.act(ctx, id, "pause", nil)
}

func (b localBatches) Resume(ctx context.Context, id string) (protocol.Batch, error) {
	return b.act(ctx, id, "resume", nil)
}

func (b localBatches) Cancel(ctx context.Context, id string) (protocol.Batch, error) {
	return b.act(ctx, id, "cancel", nil)
}

func (b localBatches) Apply(ctx context.Context, id string, d protocol.BatchDecision) (protocol.Batch, error) {
	return b.act(ctx, id, "apply", d)
}

func (b localBatches) Undo(ctx context.Context, id string) (protocol.Batch, error) {
	return b.act(ctx, id, "undo", nil)
}

// Watch follows the owner's batch stream until ctx ends or the stream
// does (the owner went away): the channel closes then, as host.Batches'
// own Watch closes when its ctx ends.
func (b localBatches) Watch(ctx context.Context) <-chan protocol.BatchProgress {
	out := make(chan protocol.BatchProgress)
	events, _, err := b.l.stream(ctx, "/api/batches/stream")
	if err != nil {
		close(out)
		return out
	}
	go func() {
		defer close(out)
		for e := range events {
			var p protocol.BatchProgress
			if e.name != "batch" || json.Unmarshal(e.data, &p) != nil {
				continue
			}
			select {
			case out <- p:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}

var _ host.Batches = localBatches{}
