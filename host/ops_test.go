package host_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"quire/host"
	"quire/kernel/protocol"
)

// TestEveryPortMethodIsAnOperationOrSaysWhyNot: a method added to a port
// is an operation at once (its route, the window's Op, the page's client);
// only a stream (a channel) and the methods host lists as off the wire are
// not, so none is left out by accident.
func TestEveryPortMethodIsAnOperationOrSaysWhyNot(t *testing.T) {
	w := host.NewWire()
	pt := reflect.TypeFor[host.Ports]()
	off := map[string]bool{
		"Evolution.RecordEvaluation": true, "Evolution.Evaluate": true,
		"Settings.SetNotesDir": true, "Settings.NotesDir": true, "Models.Recommended": true,
	}
	for i := range pt.NumField() {
		f := pt.Field(i)
		for j := range f.Type.NumMethod() {
			m := f.Type.Method(j)
			name := f.Name + "." + m.Name
			_, isOp := w.Op(name)
			stream := m.Type.NumOut() > 0 && m.Type.Out(0).Kind() == reflect.Chan
			if isOp == (stream || off[name]) {
				t.Errorf("%s: operation %v, stream %v, off the wire %v", name, isOp, stream, off[name])
			}
		}
	}
}

// TestConfirmedOperationsNameTheirDialog: the operations the window asks
// about first name the bound method that asks.
func TestConfirmedOperationsNameTheirDialog(t *testing.T) {
	want := map[string]string{"Batches.Apply": "ApplyBatch", "Evolution.Approve": "ApproveCandidate", "Notes.Undo": "UndoChange", "Notes.Tree": ""}
	w := host.NewWire()
	for name, confirm := range want {
		op, ok := w.Op(name)
		if !ok || op.Confirm != confirm {
			t.Errorf("%s: %+v %v; want Confirm %q", name, op, ok, confirm)
		}
	}
}

type skills struct{ asked []string }

func (s *skills) SkillList(context.Context) (protocol.SkillList, error) {
	return protocol.SkillList{Folder: "/skills"}, nil
}
func (s *skills) SetSkillEnabled(_ context.Context, name string, on bool) error {
	s.asked = append(s.asked, name)
	if !on {
		return protocol.ErrNotFound
	}
	return nil
}
func (s *skills) InstallSkill(_ context.Context, dir string) (protocol.SkillInfo, error) {
	return protocol.SkillInfo{Name: dir}, nil
}

// TestCallDecodesArgumentsAndSaysWhatIsWrong: Call hands the method its
// arguments decoded to its parameters' types and returns its result (none
// for an error-only method); every refusal is its own error class.
func TestCallDecodesArgumentsAndSaysWhatIsWrong(t *testing.T) {
	w := host.NewWire()
	sk := &skills{}
	p := host.Ports{Skills: sk}
	raw := func(s ...string) []json.RawMessage {
		out := []json.RawMessage{}
		for _, v := range s {
			out = append(out, json.RawMessage(v))
		}
		return out
	}
	for _, c := range []struct {
		name, op string
		args     []json.RawMessage
		want     any
		err      error
	}{
		{"a result", "Skills.SkillList", nil, protocol.SkillList{Folder: "/skills"}, nil},
		{"no result", "Skills.SetSkillEnabled", raw(`"tidy"`, `true`), nil, nil},
		{"the method's error", "Skills.SetSkillEnabled", raw(`"tidy"`, `false`), nil, protocol.ErrNotFound},
		{"unknown", "Skills.Remove", nil, nil, host.ErrUnknownOp},
		{"a nil port", "Notes.Tree", raw(`""`), nil, host.ErrNoPort},
		{"too many", "Skills.SkillList", raw(`1`), nil, host.ErrBadArgs},
		{"a wrong type", "Skills.InstallSkill", raw(`{}`), nil, host.ErrBadArgs},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := w.Call(t.Context(), p, c.op, c.args)
			if !errors.Is(err, c.err) || (c.err == nil && err != nil) || !reflect.DeepEqual(got, c.want) {
				t.Errorf("got %#v, %v; want %#v, %v", got, err, c.want, c.err)
			}
		})
	}
}
