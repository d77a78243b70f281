package host

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// Ports are the panels' back ends a page reaches by operation name (Wire):
// each field's methods are its operations, "Port.Method" (Notes.Tree). A
// nil port answers ErrNoPort. This struct and the interfaces it holds are
// the one declaration of an operation: the HTTP route (host/httpapi's
// /api/op/{name}), the window's bound Op and the page's typed client
// (internal/contract writes it into protocol.ts) are all derived from them.
type Ports struct {
	Documents     Documents
	Memory        Memory
	Notes         Notes
	Settings      Settings
	Models        Models
	Conversations Conversations
	Batches       Batches
	MCP           MCP
	Evolution     Evolution
	Skills        Skills
	Calls         Calls
	Standing      Standing
}

// Op is one operation: a port's method as a page calls it, its arguments
// a JSON array in the method's order (the context left out) and its
// result the method's first result as JSON (none for a method that returns
// only an error).
type Op struct {
	Name   string // "Port.Method"
	Port   string
	Method string
	Params []reflect.Type
	Result reflect.Type // nil: none
	// Confirm names the window's bound method that asks the user in a
	// native dialog before it does this; the window's Op refuses it, so a
	// page cannot skip the question (HTTP confirms in the page).
	Confirm string
	hasCtx  bool
	hasErr  bool
}

// offWire says why a port method is no operation ("" for one that is):
// a page never calls it, and it stays in Go.
func offWire(name string) string {
	switch name {
	case "Evolution.RecordEvaluation":
		return "it records a report made elsewhere: the evaluator's, never a page's"
	case "Evolution.Evaluate":
		return "it is synchronous and long; a page starts one (StartEvaluation)"
	case "Settings.SetNotesDir", "Settings.NotesDir":
		return "the window chooses the folder in its own dialog; quire serve has /api/settings"
	case "Models.Recommended":
		return "it is part of Models.List"
	}
	return ""
}

// confirmedBy names the window's bound method that asks the user before
// operation name ("" for none).
func confirmedBy(name string) string {
	switch name {
	case "Notes.Undo":
		return "UndoChange"
	case "Notes.UndoAll":
		return "UndoConversation"
	case "Batches.Apply":
		return "ApplyBatch"
	case "Batches.Undo":
		return "UndoBatch"
	case "MCP.Put":
		return "PutMCPServer"
	case "MCP.Import":
		return "ImportMCP"
	case "MCP.SetTool":
		return "SetMCPTool"
	case "Evolution.Approve":
		return "ApproveCandidate"
	case "Evolution.Activate":
		return "ActivateCandidate"
	case "Evolution.Rollback":
		return "RollbackCandidate"
	}
	return ""
}

// Wire dispatches operations by name over Ports. Build it once (NewWire);
// it is read-only after, so any number of requests may share it.
type Wire struct {
	ops    []Op
	byName map[string]Op
}

// NewWire derives the operations from Ports: every method of every port
// but the offWire ones and those a JSON call cannot carry (a channel, a
// function), in port then method name order.
func NewWire() *Wire {
	w := &Wire{byName: map[string]Op{}}
	pt := reflect.TypeFor[Ports]()
	for i := range pt.NumField() {
		f := pt.Field(i)
		for j := range f.Type.NumMethod() {
			m := f.Type.Method(j)
			op, ok := opOf(f.Name, m)
			if !ok {
				continue
			}
			w.ops = append(w.ops, op)
			w.byName[op.Name] = op
		}
	}
	return w
}

func opOf(port string, m reflect.Method) (Op, bool) {
	op := Op{Name: port + "." + m.Name, Port: port, Method: m.Name}
	if offWire(op.Name) != "" {
		return op, false
	}
	op.Confirm = confirmedBy(op.Name)
	mt := m.Type
	for i := range mt.NumIn() {
		in := mt.In(i)
		if i == 0 && in == reflect.TypeFor[context.Context]() {
			op.hasCtx = true
			continue
		}
		if !carried(in) {
			return op, false
		}
		op.Params = append(op.Params, in)
	}
	switch {
	case mt.NumOut() > 2:
		return op, false
	case mt.NumOut() == 2 && mt.Out(1) != reflect.TypeFor[error]():
		return op, false
	}
	for i := range mt.NumOut() {
		out := mt.Out(i)
		if out == reflect.TypeFor[error]() {
			op.hasErr = true
			continue
		}
		if !carried(out) {
			return op, false
		}
		op.Result = out
	}
	return op, true
}

// carried says whether JSON can carry a value of t.
func carried(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Chan, reflect.Func, reflect.Interface, reflect.UnsafePointer:
		return false
	}
	return true
}

// Ops are every operation, in port then method name order.
func (w *Wire) Ops() []Op { return slices.Clone(w.ops) }

// Op is the operation of that name.
func (w *Wire) Op(name string) (Op, bool) {
	op, ok := w.byName[name]
	return op, ok
}

// Call runs operation name on p with args (one JSON value per parameter,
// each decoded strictly: a key its type lacks is refused). It returns the
// method's result (a []byte as a string, so it reads as text, not base64),
// nil for a method with none. An unknown name is ErrUnknownOp; arguments
// that do not fit ErrBadArgs; a nil port ErrNoPort; else the method's own
// error.
func (w *Wire) Call(ctx context.Context, p Ports, name string, args []json.RawMessage) (any, error) {
	op, ok := w.byName[name]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownOp, name)
	}
	port := reflect.ValueOf(p).FieldByName(op.Port)
	if port.IsNil() {
		return nil, fmt.Errorf("%w: %s", ErrNoPort, strings.ToLower(op.Port))
	}
	if len(args) != len(op.Params) {
		return nil, fmt.Errorf("%w: %s takes %d, not %d", ErrBadArgs, op.Name, len(op.Params), len(args))
	}
	in := make([]reflect.Value, 0, len(args)+1)
	if op.hasCtx {
		in = append(in, reflect.ValueOf(ctx))
	}
	for i, t := range op.Params {
		v := reflect.New(t)
		dec := json.NewDecoder(bytes.NewReader(args[i]))
		dec.DisallowUnknownFields()
		if err := dec.Decode(v.Interface()); err != nil {
			return nil, fmt.Errorf("%w: %s argument %d: %v", ErrBadArgs, op.Name, i+1, err)
		}
		in = append(in, v.Elem())
	}
	out := port.MethodByName(op.Method).Call(in)
	if op.hasErr {
		if err, _ := out[len(out)-1].Interface().(error); err != nil {
			return nil, err
		}
	}
	if op.Result == nil {
		return nil, nil
	}
	if b, ok := out[0].Interface().([]byte); ok {
		return string(b), nil
	}
	return out[0].Interface(), nil
}
