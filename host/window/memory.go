package window

import (
	"quire/kernel/protocol"
)

// The memory panel's bound methods (window.go.main.App): the same backend
// and the same sentences as `quire serve`'s /api/memory.

// MemoryList is every remembered item and whether new long-term items
// wait for approval.
func (h *Host) MemoryList() (protocol.MemoryList, error) {
	if err := h.ready(); err != nil {
		return protocol.MemoryList{}, err
	}
	if h.memory == nil {
		return protocol.MemoryList{}, errNoMemoryHere
	}
	list, err := h.memory.MemoryList(h.callCtx())
	if list.Items == nil {
		list.Items = []protocol.MemoryItem{}
	}
	return list, err
}

// EditMemory replaces an item's text.
func (h *Host) EditMemory(id, text string) (protocol.MemoryItem, error) {
	if err := h.ready(); err != nil {
		return protocol.MemoryItem{}, err
	}
	if h.memory == nil {
		return protocol.MemoryItem{}, errNoMemoryHere
	}
	return h.memory.EditMemory(h.callCtx(), id, text)
}

// ForgetMemory forgets an item; the events that made it stay in the log.
func (h *Host) ForgetMemory(id string) error {
	if err := h.ready(); err != nil {
		return err
	}
	if h.memory == nil {
		return errNoMemoryHere
	}
	return h.memory.ForgetMemory(h.callCtx(), id)
}

// ReviewMemory approves (keeps) or rejects a pending item.
func (h *Host) ReviewMemory(id string, approve bool) error {
	if err := h.ready(); err != nil {
		return err
	}
	if h.memory == nil {
		return errNoMemoryHere
	}
	return h.memory.ReviewMemory(h.callCtx(), id, approve)
}

// SetMemoryApproval turns approval of new long-term items on or off.
func (h *Host) SetMemoryApproval(on bool) error {
	if err := h.ready(); err != nil {
		return err
	}
	if h.memory == nil {
		return errNoMemoryHere
	}
	return h.memory.SetMemoryApproval(h.callCtx(), on)
}

// SetMemoryLearning turns on or off asking the model, after each run, for
// facts and preferences worth keeping.
func (h *Host) SetMemoryLearning(on bool) error {
	if err := h.ready(); err != nil {
		return err
	}
	if h.memory == nil {
		return errNoMemoryHere
	}
	return h.memory.SetMemoryLearning(h.callCtx(), on)
}
