package notes

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"quire/kernel/tool"
)

// Tools are the note tools on root. Changes are looked up in log for undo;
// with a nil log there is no undo tool.
func Tools(root *Root, log ChangeLog) []tool.Tool {
	ts := []tool.Tool{
		listNotes(root),
		readNote(root),
		findNotes(root),
		createNote(root),
		appendNote(root),
		editNote(root),
		moveNote(root),
		makeFolder(root),
		setTags(root),
		linkNotes(root),
	}
	if log != nil {
		ts = append(ts, undoChange(root, log))
	}
	return ts
}

const (
	readTimeout  = 10 * time.Second
	findTimeout  = 30 * time.Second
	writeTimeout = 10 * time.Second
)

// noteTool is one note tool: its spec and what it does. A failure is a
// result with a sentence for the model (and a code in Data), not a Go
// error, so the runtime passes the sentence on as it is.
type noteTool struct {
	spec tool.Spec
	run  func(ctx context.Context, call tool.Call) (tool.Result, error)
	// describe, when set, describes a call by the one id it names (undo's:
	// the change it would revert, read from the change log).
	describe func(id string) string
	// describeCall, when set, describes a call by reading the disk now
	// (move_note's: the links it would rewrite, as the notes are now).
	describeCall func(call tool.Call) string
}

func (t *noteTool) Spec() tool.Spec { return t.spec }

func (t *noteTool) Run(ctx context.Context, call tool.Call) (tool.Result, error) {
	if err := ctx.Err(); err != nil {
		return failure(err), nil
	}
	res, err := t.run(ctx, call)
	if err != nil {
		return failure(err), nil
	}
	return res, nil
}

func failure(err error) tool.Result {
	return tool.Result{Status: tool.Failure, Content: sentence(err.Error()), Data: Failure{Error: code(err)}}
}

// sentence starts msg with a capital and ends it with a full stop.
func sentence(msg string) string {
	if r, n := utf8.DecodeRuneInString(msg); unicode.IsLower(r) {
		msg = string(unicode.ToUpper(r)) + msg[n:]
	}
	if !strings.HasSuffix(msg, ".") && !strings.HasSuffix(msg, "?") {
		msg += "."
	}
	return msg
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// param is one argument of a tool.
type param struct {
	name     string
	required bool
	schema   map[string]any
}

// object is the JSON Schema of a tool's arguments.
func object(params ...param) map[string]any {
	props := map[string]any{}
	required := []string{}
	for _, p := range params {
		props[p.name] = p.schema
		if p.required {
			required = append(required, p.name)
		}
	}
	return map[string]any{"type": "object", "properties": props, "required": required, "additionalProperties": false}
}

// shape writes the arguments for a sentence: {path, depth?}.
func shape(params ...param) string {
	names := make([]string, len(params))
	for i, p := range params {
		names[i] = p.name
		if !p.required {
			names[i] += "?"
		}
	}
	return "{" + strings.Join(names, ", ") + "}"
}

func str(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }

func integer(desc string, lo, hi int) map[string]any {
	return map[string]any{"type": "integer", "description": desc, "minimum": lo, "maximum": hi}
}

// newTool builds a tool whose arguments decode into A.
func newTool[A any](spec tool.Spec, params []param, run func(ctx context.Context, call tool.Call, a A) (tool.Result, error)) tool.Tool {
	spec.Parameters = object(params...)
	want := shape(params...)
	return &noteTool{spec: spec, run: func(ctx context.Context, call tool.Call) (tool.Result, error) {
		var a A
		if err := decodeArgs(call.Arguments, &a); err != nil {
			return tool.Result{}, fail(tool.ErrInvalidArgs, "the arguments of %s must be a JSON object %s: %v", spec.Name, want, err)
		}
		return run(ctx, call, a)
	}}
}

// decodeArgs reads a call's arguments strictly: an unknown name is an
// error, so a misspelt requestID does not pass unseen.
func decodeArgs(raw json.RawMessage, dst any) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		raw = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("unexpected data after the object")
	}
	return nil
}

func readSpec(name, desc string, timeout time.Duration) tool.Spec {
	return tool.Spec{Name: name, Description: desc, Effects: tool.ReadFs, Idempotency: tool.Safe, Timeout: timeout, Parallel: true}
}

func writeSpec(name, desc string, idem tool.Idempotency) tool.Spec {
	return tool.Spec{Name: name, Description: desc, Effects: tool.WriteFs, Idempotency: idem, Timeout: writeTimeout}
}

// lockWrite takes the write lock, unless the call was cancelled meanwhile.
func (r *Root) lockWrite(ctx context.Context) (unlock func(), err error) {
	r.mu.Lock()
	if err := ctx.Err(); err != nil {
		r.mu.Unlock()
		return nil, err
	}
	return r.mu.Unlock, nil
}

// changed is the result of a write: a sentence and the change it made.
func changed(c Change, format string, args ...any) tool.Result {
	msg := fmt.Sprintf(format, args...)
	return tool.Result{Status: tool.Success, Content: fmt.Sprintf("%s (change %s; undo can revert it)", msg, c.ID), Data: c}
}

func ptr(s string) *string { return &s }
