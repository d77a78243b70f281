package window

import (
	"encoding/json"
	"fmt"

	"quire/host"
)

// Op runs a port's operation by name (host.Wire, derived from host.Ports):
// the page's one call for every operation, so a method added to a port
// reaches the window with no bound method of its own. An operation the
// window asks about first (Op.Confirm) is refused here: the page calls its
// bound method, which asks, so no page can skip the question.
func (h *Host) Op(name string, args []any) (any, error) {
	if err := h.ready(); err != nil {
		return nil, err
	}
	wire := host.NewWire()
	if op, ok := wire.Op(name); ok && op.Confirm != "" {
		return nil, fmt.Errorf("%w: %s (use %s)", errAsksFirst, name, op.Confirm)
	}
	// Wails hands the arguments over decoded; the wire decodes each again
	// into its parameter's type, strictly.
	raw := make([]json.RawMessage, len(args))
	for i, v := range args {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", host.ErrBadArgs, err)
		}
		raw[i] = b
	}
	res, err := wire.Call(h.callCtx(), h.ports(), name, raw)
	return res, host.Spoken(err)
}

// ports are the window's back ends as the wire dispatches them.
func (h *Host) ports() host.Ports {
	return host.Ports{
		Documents: h.docs, Memory: h.memory, Notes: h.notes, Settings: h.settings,
		Models: h.models, Conversations: h.conversations, Batches: h.batches, MCP: h.mcp,
		Evolution: h.evolution, Skills: h.skills, Calls: h.calls, Standing: h.standing,
	}
}
