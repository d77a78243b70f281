package main

import (
	"errors"

	"quire/kernel/protocol"
)

// The memory panel's bound methods (window.go.main.App): the same backend
// and the same sentences as `quire serve`'s /api/memory.

var errNoMemoryHere = errors.New("memory is not available in this window")

// MemoryList is every remembered item and whether new long-term items
// wait for approval.
func (a *App) MemoryList() (protocol.MemoryList, error) {
	if err := a.ready(); err != nil {
		return protocol.MemoryList{}, err
	}
	if a.memory == nil {
		return protocol.MemoryList{}, errNoMemoryHere
	}
	list, err := a.memory.MemoryList(a.callCtx())
	if list.Items == nil {
		list.Items = []protocol.MemoryItem{}
	}
	return list, err
}

// EditMemory replaces an item's text.
func (a *App) EditMemory(id, text string) (protocol.MemoryItem, error) {
	if err := a.ready(); err != nil {
		return protocol.MemoryItem{}, err
	}
	if a.memory == nil {
		return protocol.MemoryItem{}, errNoMemoryHere
	}
	return a.memory.EditMemory(a.callCtx(), id, text)
}

// ForgetMemory forgets an item; the events that made it stay in the log.
func (a *App) ForgetMemory(id string) error {
	if err := a.ready(); err != nil {
		return err
	}
	if a.memory == nil {
		return errNoMemoryHere
	}
	return a.memory.ForgetMemory(a.callCtx(), id)
}

// ReviewMemory approves (keeps) or rejects a pending item.
func (a *App) ReviewMemory(id string, approve bool) error {
	if err := a.ready(); err != nil {
		return err
	}
	if a.memory == nil {
		return errNoMemoryHere
	}
	return a.memory.ReviewMemory(a.callCtx(), id, approve)
}

// SetMemoryApproval turns approval of new long-term items on or off.
func (a *App) SetMemoryApproval(on bool) error {
	if err := a.ready(); err != nil {
		return err
	}
	if a.memory == nil {
		return errNoMemoryHere
	}
	return a.memory.SetMemoryApproval(a.callCtx(), on)
}

// SetMemoryLearning turns on or off asking the model, after each run, for
// facts and preferences worth keeping.
func (a *App) SetMemoryLearning(on bool) error {
	if err := a.ready(); err != nil {
		return err
	}
	if a.memory == nil {
		return errNoMemoryHere
	}
	return a.memory.SetMemoryLearning(a.callCtx(), on)
}
