package protocol

import (
	"errors"
	"testing"
)

func TestAWorkflowsTaskText(t *testing.T) {
	w := WorkflowArtifact{Task: "File the notes of {folder} by my rules, newest {n} first.",
		Params: []WorkflowParam{{Name: "folder", Default: "inbox"}, {Name: "n"}}}
	for _, c := range []struct {
		name   string
		values map[string]string
		want   string
		err    bool
	}{
		{"every value given", map[string]string{"folder": "later", "n": "5"}, "File the notes of later by my rules, newest 5 first.", false},
		{"a default used", map[string]string{"n": "3"}, "File the notes of inbox by my rules, newest 3 first.", false},
		{"a value missing with no default", map[string]string{"folder": "x"}, "", true},
		{"a parameter the workflow has not", map[string]string{"n": "1", "approve": "all"}, "", true},
	} {
		got, err := w.Fill(c.values)
		if (err != nil) != c.err || got != c.want {
			t.Errorf("%s: %q, %v", c.name, got, err)
		}
		if c.err && !errors.Is(err, ErrBadPayload) {
			t.Errorf("%s: refused as %v", c.name, err)
		}
	}
}
