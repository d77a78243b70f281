package assembly

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"quire/host"
	"quire/internal/latest"
	"quire/kernel/protocol"
	"quire/kernel/provider"
	"quire/kernel/provider/ollama"
)

// recommended is the short list of models for note work, in one place:
// a tool-capable chat model in two sizes and an embedding model. The
// download sizes are what `ollama list` reports once each is pulled, as
// published `ollama list` outputs show them with their manifest digests
// (qwen3:4b 359d7dd4bcda 2.5 GB, qwen3:8b 500a1f067a9f 5.2 GB,
// nomic-embed-text:latest 0a109f422b47 274 MB; read 2026-12-01, because
// ollama.com's library pages were not reachable from the build machine).
// Ollama's library can move a tag to new weights: the list says roughly
// what a download costs, and the pull's own figures say exactly.
var recommended = []protocol.RecommendedModel{
	{Name: "qwen3:4b", Role: protocol.RoleChat, DownloadSize: 2_500_000_000,
		Summary: "Chats, calls Quire's tools and can think before answering; the one to start with."},
	{Name: "qwen3:8b", Role: protocol.RoleChat, DownloadSize: 5_200_000_000,
		Summary: "The same, better with long notes; about twice the download and the memory."},
	{Name: "nomic-embed-text", Role: protocol.RoleEmbedding, DownloadSize: 274_000_000,
		Summary: "Finds passages by meaning for search_docs and memory."},
}

// maxListed bounds the models the screen asks /api/show about: past it,
// the rest are listed without their capabilities.
const maxListed = 200

// maxPulls bounds the pulls that may run at once: each holds a download.
const maxPulls = 4

// errPullCancelled is why a pull the user cancelled stopped.
var errPullCancelled = errors.New("the pull was cancelled")

// errTooManyPulls: maxPulls are running already.
var errTooManyPulls = fmt.Errorf("%d pulls are running already; wait for one to finish", maxPulls)

// errModelsClosed: Quire is shutting down.
var errModelsClosed = errors.New("quire is shutting down")

// models is the host.Models of the composition root, over the Ollama
// adapter. Pulls run on its own context, which Close ends; each pull's
// state changes go to every watcher (see host.Models for the delivery).
type models struct {
	ollama *ollama.Provider
	log    *slog.Logger
	now    func() time.Time
	// changed, if set, hears of a model pulled or deleted, whose cached
	// capabilities are then stale.
	changed func(name string)

	ctx  context.Context
	stop context.CancelCauseFunc
	wg   sync.WaitGroup

	mu       sync.Mutex
	running  map[string]context.CancelCauseFunc // by ollama.ModelKey
	last     map[string]protocol.PullProgress   // each name's latest state
	order    []string                           // keys of last, first pull first
	watchers map[*pullWatcher]struct{}
}

func newModels(p *ollama.Provider, log *slog.Logger, now func() time.Time) *models {
	ctx, stop := context.WithCancelCause(context.Background())
	return &models{ollama: p, log: log, now: now, ctx: ctx, stop: stop,
		running: map[string]context.CancelCauseFunc{}, last: map[string]protocol.PullProgress{},
		watchers: map[*pullWatcher]struct{}{}}
}

var _ host.Models = (*models)(nil)

// Recommended is the list for note work; Installed is left false (List
// sets it).
func (m *models) Recommended() []protocol.RecommendedModel {
	return append([]protocol.RecommendedModel(nil), recommended...)
}

// List asks Ollama for the installed models, their details and which are
// loaded. Ollama being unreachable is not an error of List: the state
// says why in Error, with the recommended list and the pulls. It fails
// only when ctx ends.
func (m *models) List(ctx context.Context) (protocol.ModelsState, error) {
	st := protocol.ModelsState{Installed: []protocol.ModelInfo{}, Recommended: m.Recommended(), Pulls: m.pulls()}
	list, err := m.ollama.Installed(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return st, context.Cause(ctx)
		}
		st.Error = sentence(err)
		return st, nil
	}
	loaded, err := m.ollama.Loaded(ctx)
	if err != nil {
		m.log.Warn("listing the loaded models", "err", err)
	}
	names := make([]string, 0, len(list))
	for i, in := range list {
		names = append(names, in.Name)
		info := protocol.ModelInfo{Name: in.Name, Size: in.Size, Family: in.Family, ParameterSize: in.ParameterSize,
			Quantization: in.Quantization, Capabilities: []string{}, ModifiedMs: in.Modified.UnixMilli()}
		_, info.Loaded = ollama.FindModel(loaded, in.Name)
		if i < maxListed {
			switch details, err := m.ollama.ModelInfo(ctx, in.Name); {
			case ctx.Err() != nil:
				return st, context.Cause(ctx)
			case err != nil:
				info.Error = sentence(err)
			default:
				info.Capabilities = append(info.Capabilities, details.Capabilities...)
				info.ContextLength = details.ContextLength
			}
		}
		st.Installed = append(st.Installed, info)
	}
	for i, r := range st.Recommended {
		_, st.Recommended[i].Installed = ollama.FindModel(names, r.Name)
	}
	return st, nil
}

// Delete removes an installed model.
func (m *models) Delete(ctx context.Context, name string) error {
	if err := m.ollama.Delete(ctx, name); err != nil {
		if kind := kindOf(err); kind != nil {
			return protocol.Classify(kind, errors.New(sentence(err)))
		}
		return errors.New(sentence(err))
	}
	m.notify(name)
	return nil
}

func (m *models) notify(name string) {
	if m.changed != nil {
		m.changed(name)
	}
}

// Pull starts a pull of name in the background; a pull of the same model
// already running is joined.
func (m *models) Pull(ctx context.Context, name string) error {
	if err := ollama.CheckModelName(name); err != nil {
		return protocol.Classify(protocol.ErrBadPayload, err)
	}
	key := ollama.ModelKey(name)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.ctx.Err() != nil {
		return errModelsClosed
	}
	if _, ok := m.running[key]; ok {
		return nil
	}
	if len(m.running) >= maxPulls {
		return protocol.Classify(protocol.ErrConflict, errTooManyPulls)
	}
	pctx, cancel := context.WithCancelCause(m.ctx)
	m.running[key] = cancel
	now := m.now().UnixMilli()
	start := protocol.PullProgress{Model: name, State: protocol.PullRunning, Status: "starting", AtMs: now, StartedMs: now}
	m.publishLocked(key, start)
	m.wg.Go(func() { m.run(pctx, key, start) })
	return nil
}

// run pulls one model to its end and publishes every step.
func (m *models) run(ctx context.Context, key string, p protocol.PullProgress) {
	var total ollama.PullTotal
	err := m.ollama.Pull(ctx, p.Model, func(step ollama.Progress) error {
		total.Add(step)
		p.Status = step.Status
		p.Completed, p.Total = total.Bytes()
		p.AtMs = m.now().UnixMilli()
		m.publish(key, p)
		return nil
	})
	p.AtMs = m.now().UnixMilli()
	switch {
	case err == nil:
		p.State = protocol.PullDone
		m.notify(p.Model)
	case errors.Is(err, errPullCancelled), errors.Is(err, errModelsClosed):
		// Stopped by the user, or by Quire closing: Ollama keeps the
		// bytes, and the next pull of the name resumes.
		p.State = protocol.PullCancelled
	default:
		p.State, p.Error = protocol.PullFailed, pullSentence(p.Model, err)
		switch {
		case errors.Is(err, ollama.ErrRegistryUnreachable):
			p.Problem = protocol.PullOffline
		case errors.Is(err, provider.ErrModelMissing):
			p.Problem = protocol.PullUnknown
		}
		m.log.Warn("pull failed", "model", p.Model, "err", err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.running, key)
	m.publishLocked(key, p)
}

// CancelPull stops the pull of name, if one runs.
func (m *models) CancelPull(name string) {
	m.mu.Lock()
	cancel := m.running[ollama.ModelKey(name)]
	m.mu.Unlock()
	if cancel != nil {
		cancel(errPullCancelled)
	}
}

// close stops every pull and waits for them to end.
func (m *models) close() {
	m.stop(errModelsClosed)
	m.wg.Wait()
}

// maxEnded bounds the ended pulls the screen is told of: a page that asks
// for thousands of names that fail would otherwise grow every listing.
const maxEnded = 32

// forgetOldLocked drops the oldest ended pulls past maxEnded; running ones
// are always kept. The caller holds m.mu.
func (m *models) forgetOldLocked() {
	ended := 0
	for _, k := range m.order {
		if m.last[k].State != protocol.PullRunning {
			ended++
		}
	}
	if ended <= maxEnded {
		return
	}
	kept := m.order[:0]
	for _, k := range m.order {
		if ended > maxEnded && m.last[k].State != protocol.PullRunning {
			delete(m.last, k)
			ended--
			continue
		}
		kept = append(kept, k)
	}
	m.order = kept
}

// pulls is the latest state of each ended pull (the latest maxEnded) and
// of each running one since start, first pull first.
func (m *models) pulls() []protocol.PullProgress {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]protocol.PullProgress, 0, len(m.order))
	for _, k := range m.order {
		out = append(out, m.last[k])
	}
	return out
}

func (m *models) publish(key string, p protocol.PullProgress) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.publishLocked(key, p)
}

// publishLocked records p as key's latest state and hands it to every
// watcher; the caller holds m.mu, so watchers see one pull's states in
// the order they happened.
func (m *models) publishLocked(key string, p protocol.PullProgress) {
	if _, ok := m.last[key]; !ok {
		m.order = append(m.order, key)
	}
	m.last[key] = p
	m.forgetOldLocked()
	for w := range m.watchers {
		w.put(p)
	}
}

// Watch delivers pull states from now on until ctx ends, then closes the
// channel.
func (m *models) Watch(ctx context.Context) <-chan protocol.PullProgress {
	w := &pullWatcher{wake: make(chan struct{}, 1)}
	m.mu.Lock()
	m.watchers[w] = struct{}{}
	m.mu.Unlock()
	return latest.Drain(ctx, w.wake, w.take, func() {
		m.mu.Lock()
		delete(m.watchers, w)
		m.mu.Unlock()
	})
}

// maxPending bounds what a watcher that does not read holds: past it the
// oldest state is dropped (a running figure first, since a later one of
// the same pull says more).
const maxPending = 256

// pullWatcher is one watcher's queue: a pull's state replaces its running
// figure still queued last (a later figure, or its end, says more); an end
// is never replaced.
type pullWatcher struct {
	mu      sync.Mutex
	pending []protocol.PullProgress
	wake    chan struct{}
}

func (w *pullWatcher) put(p protocol.PullProgress) {
	w.mu.Lock()
	defer w.mu.Unlock()
	replaced := false
	if n := len(w.pending); n > 0 {
		if q := w.pending[n-1]; q.Model == p.Model && q.State == protocol.PullRunning {
			w.pending[n-1], replaced = p, true
		}
	}
	if !replaced {
		if len(w.pending) >= maxPending {
			w.pending = w.pending[1:]
		}
		w.pending = append(w.pending, p)
	}
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

func (w *pullWatcher) take() []protocol.PullProgress {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.pending
	w.pending = nil
	return out
}

// sentence is the user's part of an adapter error: its Message when it
// is a *provider.Error, else the whole text.
func sentence(err error) string {
	if pe, ok := errors.AsType[*provider.Error](err); ok && pe.Message != "" {
		return pe.Message
	}
	return err.Error()
}

// pullSentence says why a pull of model failed and what to do.
func pullSentence(model string, err error) string {
	switch {
	case errors.Is(err, ollama.ErrRegistryUnreachable):
		return "Ollama could not reach the model registry: check the internet connection, then pull " + model + " again (what was downloaded is kept)."
	case errors.Is(err, provider.ErrModelMissing):
		return fmt.Sprintf("The Ollama library has no model %q: check the name at https://ollama.com/library.", model)
	}
	return sentence(err)
}

// kindOf maps an adapter error to the protocol's error kinds, for hosts'
// status codes; an Ollama that failed is neither (a host's 500s).
func kindOf(err error) error {
	switch {
	case errors.Is(err, ollama.ErrBadModelName):
		return protocol.ErrBadPayload
	case errors.Is(err, provider.ErrModelMissing):
		return protocol.ErrNotFound
	}
	return nil
}
