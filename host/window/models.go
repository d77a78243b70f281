package window

import (
	"context"

	"quire/host"
	"quire/kernel/protocol"
)

// The models screen: bound methods and pull progress.

// eventPull carries a protocol.PullProgress whenever a pull changes
// (docs/PROTOCOL.md): each pull's terminal state always, running figures
// coalesced to the latest.
const eventPull = "quire:pull"

// startModels runs with the window: it forwards every pull's progress.
func (h *Host) startModels(ctx context.Context) {
	if h.models == nil {
		return
	}
	go func() {
		for p := range h.models.Watch(ctx) {
			h.emit(ctx, eventPull, p)
		}
	}()
}

func (h *Host) modelsPort() (host.Models, error) {
	if err := h.ready(); err != nil {
		return nil, err
	}
	if h.models == nil {
		return nil, errNoModels
	}
	return h.models, nil
}

// Models lists the installed models with what each can do, which are
// loaded, the recommended list and the pulls since start; an Ollama that
// does not answer is said in the state's error, not as a failure.
func (h *Host) Models() (protocol.ModelsState, error) {
	m, err := h.modelsPort()
	if err != nil {
		return protocol.ModelsState{}, err
	}
	return m.List(h.callCtx())
}

// PullModel starts pulling a model by name (or joins its running pull);
// progress arrives as quire:pull events.
func (h *Host) PullModel(name string) error {
	m, err := h.modelsPort()
	if err != nil {
		return err
	}
	return m.Pull(h.callCtx(), name)
}

// CancelPull stops a running pull; what was downloaded is kept, and
// pulling the name again resumes it.
func (h *Host) CancelPull(name string) error {
	m, err := h.modelsPort()
	if err != nil {
		return err
	}
	m.CancelPull(name)
	return nil
}

// DeleteModel removes an installed model (the page asks the user first).
func (h *Host) DeleteModel(name string) error {
	m, err := h.modelsPort()
	if err != nil {
		return err
	}
	return m.Delete(h.callCtx(), name)
}
