package window

import (
	"errors"
	"fmt"

	wailsrt "github.com/wailsapp/wails/v2/pkg/runtime"

	"quire/export"
	"quire/host"
	"quire/kernel/protocol"
)

// Conversations: list, start, rename, delete, read, send (with an intent),
// branch, continue, search, export and stop; each a protocol command.

// ListSessions lists conversations, most recent first.
func (h *Host) ListSessions() ([]protocol.Session, error) {
	if err := h.ready(); err != nil {
		return nil, err
	}
	list, err := h.kernel.Sessions(h.callCtx())
	if list == nil && err == nil {
		list = []protocol.Session{}
	}
	return list, err
}

// NewSession starts an empty conversation.
func (h *Host) NewSession(title string) (protocol.Session, error) {
	if err := h.ready(); err != nil {
		return protocol.Session{}, err
	}
	s, err := protocol.Run[protocol.Session](h.callCtx(), h.kernel, "", protocol.CreateSession, protocol.CreateSessionPayload{Title: title})
	return s, host.Spoken(err)
}

// RenameSession retitles a conversation.
func (h *Host) RenameSession(id, title string) (protocol.Session, error) {
	if err := h.ready(); err != nil {
		return protocol.Session{}, err
	}
	s, err := protocol.Run[protocol.Session](h.callCtx(), h.kernel, "", protocol.RenameSession, protocol.RenameSessionPayload{Session: id, Title: title})
	return s, host.Spoken(err)
}

// DeleteSession removes a conversation; the frontend has asked the user first.
func (h *Host) DeleteSession(id string) error {
	if err := h.ready(); err != nil {
		return err
	}
	_, err := protocol.Run[struct{}](h.callCtx(), h.kernel, "", protocol.DeleteSession, protocol.SessionRef{Session: id})
	return host.Spoken(err)
}

// Events returns a conversation's events from seq on.
func (h *Host) Events(id string, from int64) ([]protocol.Event, error) {
	if err := h.ready(); err != nil {
		return nil, err
	}
	evs, err := h.kernel.Events(h.callCtx(), id, from)
	if err != nil {
		return nil, err
	}
	return protocol.Filter(evs, audience), nil
}

// Send stores the user's message and starts the reply; it returns the run
// id. key is the idempotency key: sending again with it has no second effect.
func (h *Host) Send(id, text, key string) (string, error) {
	if err := h.ready(); err != nil {
		return "", err
	}
	r, err := protocol.Run[protocol.SendResult](h.callCtx(), h.kernel, key, protocol.SendMessage, protocol.SendMessagePayload{Session: id, Text: text})
	return r.RunID, host.Spoken(err)
}

// SendWith is Send with an intent: "follow_up" (the next request), "steer"
// (joins the request that is going, at its next step) or "inject".
func (h *Host) SendWith(id, text, intent, key string) (string, error) {
	if err := h.ready(); err != nil {
		return "", err
	}
	r, err := protocol.Run[protocol.SendResult](h.callCtx(), h.kernel, key, protocol.SendMessage,
		protocol.SendMessagePayload{Session: id, Text: text, Intent: intent})
	return r.RunID, host.Spoken(err)
}

// EditMessage resends the user message at seq of conversation id with text
// instead, as a new branch; it returns the branch and its run. key is the
// idempotency key, as for Send.
func (h *Host) EditMessage(id string, seq int64, text, key string) (protocol.BranchResult, error) {
	if err := h.ready(); err != nil {
		return protocol.BranchResult{}, err
	}
	r, err := protocol.Run[protocol.BranchResult](h.callCtx(), h.kernel, key, protocol.EditMessage,
		protocol.EditMessagePayload{Session: id, Seq: seq, Text: text})
	return r, host.Spoken(err)
}

// Regenerate asks again for the reply at seq of conversation id, as a new
// branch; it returns the branch and its run.
func (h *Host) Regenerate(id string, seq int64, key string) (protocol.BranchResult, error) {
	if err := h.ready(); err != nil {
		return protocol.BranchResult{}, err
	}
	r, err := protocol.Run[protocol.BranchResult](h.callCtx(), h.kernel, key, protocol.Regenerate,
		protocol.RegeneratePayload{Session: id, Seq: seq})
	return r, host.Spoken(err)
}

// ContinueRun asks the model to continue the conversation's reply that was
// cut off; it returns the run id.
func (h *Host) ContinueRun(id, key string) (string, error) {
	if err := h.ready(); err != nil {
		return "", err
	}
	r, err := protocol.Run[protocol.SendResult](h.callCtx(), h.kernel, key, protocol.ContinueRun, protocol.SessionRef{Session: id})
	return r.RunID, host.Spoken(err)
}

// ExportSession saves a conversation as Markdown ("md") or its public
// events as JSON lines ("jsonl") where the user picks in the native save
// dialog. It returns the file written, or "" when the user cancelled.
func (h *Host) ExportSession(id, format string) (string, error) {
	if err := h.ready(); err != nil {
		return "", err
	}
	window := h.window.Load()
	if window == nil {
		return "", errors.New("the window is not ready yet; try again in a moment")
	}
	doc, err := export.Conversation(h.callCtx(), h.kernel, id, format)
	if err != nil {
		return "", host.Spoken(err)
	}
	kind := map[string]wailsrt.FileFilter{
		export.FormatJSONL: {DisplayName: "JSON lines (*.jsonl)", Pattern: "*.jsonl"},
	}[format]
	if kind.Pattern == "" {
		kind = wailsrt.FileFilter{DisplayName: "Markdown (*.md)", Pattern: "*.md"}
	}
	notes := ""
	if h.settings != nil {
		notes = h.settings.NotesDir()
	}
	path, err := h.saveDialog(*window, wailsrt.SaveDialogOptions{Title: "Export the conversation", DefaultFilename: doc.Name,
		DefaultDirectory: dialogStart(notes), CanCreateDirectories: true, Filters: []wailsrt.FileFilter{kind}})
	if err != nil || path == "" {
		return "", err
	}
	if err := export.WriteFile(path, doc.Body); err != nil {
		return "", fmt.Errorf("could not save %s: %w; choose another folder", path, err)
	}
	return path, nil
}

// Cancel stops the conversation's reply.
func (h *Host) Cancel(id string) error {
	if err := h.ready(); err != nil {
		return err
	}
	_, err := protocol.Run[struct{}](h.callCtx(), h.kernel, "", protocol.CancelRun, protocol.SessionRef{Session: id})
	return host.Spoken(err)
}
