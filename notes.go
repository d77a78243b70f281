package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"quire/kernel/event"
	"quire/kernel/store"
	"quire/kernel/tool"
	"quire/tools/notes"
	"quire/tools/todo"
)

// notesTools offers the note tools for the folder the user chose; the folder
// can be set or changed while Quire runs, and later runs see the change.
type notesTools struct {
	store *store.Store
	log   *slog.Logger

	mu   sync.Mutex
	root *notes.Root
}

// Tools is the runtime's ToolProvider facet.
func (n *notesTools) Tools() []tool.Tool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.root == nil {
		return nil
	}
	return notes.Tools(n.root, changeLog{n.store})
}

// SetDir points the tools at dir ("" turns them off).
func (n *notesTools) SetDir(dir string) error {
	var root *notes.Root
	if dir != "" {
		r, err := notes.Open(dir)
		if err != nil {
			return fmt.Errorf("the notes folder %s cannot be used: %w", dir, err)
		}
		root = r
	}
	n.mu.Lock()
	old := n.root
	n.root = root
	n.mu.Unlock()
	if old != nil {
		old.Close()
	}
	return nil
}

func (n *notesTools) Close() { n.SetDir("") }

// changeLog finds a note change in the event log: every write's result
// carries its Change, so undo needs no store of its own.
type changeLog struct{ store *store.Store }

var errNoChange = errors.New("no change with that id in the log")

func (c changeLog) Change(ctx context.Context, id string) (notes.Change, error) {
	sessions, err := c.store.Sessions(ctx)
	if err != nil {
		return notes.Change{}, err
	}
	for _, s := range sessions {
		evs, err := c.store.EventsOfType(ctx, s.ID, event.ToolResult)
		if err != nil {
			return notes.Change{}, err
		}
		for i := len(evs) - 1; i >= 0; i-- {
			p, err := event.As[event.ToolResultPayload](evs[i])
			if err != nil {
				continue
			}
			if ch, ok := notes.DecodeChange(p.Data); ok && ch.ID == id {
				return ch, nil
			}
		}
	}
	return notes.Change{}, fmt.Errorf("%w: %s", errNoChange, id)
}

// todoTools offers the plan and self-report tools.
type todoTools struct{}

func (todoTools) Tools() []tool.Tool { return todo.Tools() }

// planReminder is the pre-close checkpoint hook: when the session's latest
// plan still has open items, the run gets one more step with a reminder —
// once per run, so a model that will not finish cannot loop on it.
type planReminder struct {
	store *store.Store

	mu       sync.Mutex
	reminded map[string]bool
}

func (p *planReminder) Hook(ctx context.Context, session, runID string) ([]string, error) {
	p.mu.Lock()
	if p.reminded == nil {
		p.reminded = map[string]bool{}
	}
	done := p.reminded[runID]
	p.mu.Unlock()
	if done {
		return nil, nil
	}
	evs, err := p.store.EventsOfType(ctx, session, event.ToolResult)
	if err != nil {
		return nil, err
	}
	for i := len(evs) - 1; i >= 0; i-- {
		r, err := event.As[event.ToolResultPayload](evs[i])
		if err != nil || r.Name != "update_todos" {
			continue
		}
		plan, ok := todo.DecodePlan(r.Data)
		if !ok {
			return nil, nil
		}
		text := todo.Reminder(plan)
		if text == "" {
			return nil, nil
		}
		p.mu.Lock()
		p.reminded[runID] = true
		p.mu.Unlock()
		return []string{text}, nil
	}
	return nil, nil
}
