package eval

import (
	"encoding/json"
	"strings"
	"testing"

	"quire/kernel/protocol"
	"quire/kernel/tool"
)

func ev(typ, run string, payload any) protocol.Event {
	b, _ := json.Marshal(payload)
	return protocol.Event{Type: typ, RunID: run, Payload: b}
}

// TestInvariantsCanFail: the checks every scenario gets find a write that
// started without a yes (or with a yes given only by default), and a run
// without exactly one terminal event.
func TestInvariantsCanFail(t *testing.T) {
	t.Parallel()
	caps := map[string]any{"caps": map[string]any{"tools": []map[string]any{
		{"name": "create_note", "effects": tool.ReadFs | tool.WriteFs}, {"name": "read_note", "effects": tool.ReadFs}}}}
	tests := []struct {
		name string
		evs  []protocol.Event
		want string // "" for no failure
	}{
		{"approved write", []protocol.Event{ev("input.received", "", caps),
			ev("permission.answered", "r", map[string]any{"callIds": []string{"c1"}, "allowed": true}),
			ev("tool.started", "r", map[string]any{"callId": "c1", "name": "create_note"})}, ""},
		{"read needs no yes", []protocol.Event{ev("input.received", "", caps),
			ev("tool.started", "r", map[string]any{"callId": "c1", "name": "read_note"})}, ""},
		{"write without a yes", []protocol.Event{ev("input.received", "", caps),
			ev("tool.started", "r", map[string]any{"callId": "c1", "name": "create_note"})}, "call c1 of create_note"},
		{"yes for another call", []protocol.Event{ev("input.received", "", caps),
			ev("permission.answered", "r", map[string]any{"callIds": []string{"c2"}, "allowed": true}),
			ev("tool.started", "r", map[string]any{"callId": "c1", "name": "create_note"})}, "started without the user's yes"},
		{"yes only by default", []protocol.Event{ev("input.received", "", caps),
			ev("permission.answered", "r", map[string]any{"callIds": []string{"c1"}, "allowed": true, "byDefault": true}),
			ev("tool.started", "r", map[string]any{"callId": "c1", "name": "create_note"})}, "started without the user's yes"},
		{"run never closed", []protocol.Event{ev("run.started", "r1", map[string]any{})}, "run r1 has 0 terminal events"},
		{"run closed twice", []protocol.Event{ev("run.started", "r1", map[string]any{}),
			ev("run.finished", "r1", map[string]any{"reason": "completed"}), ev("run.finished", "r1", map[string]any{"reason": "error"})}, "run r1 has 2 terminal events"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := strings.Join(append(unapprovedWrites(tt.evs), unclosedRuns(tt.evs)...), "; ")
			if tt.want == "" && got != "" || !strings.Contains(got, tt.want) {
				t.Fatalf("invariants say %q, want %q", got, tt.want)
			}
		})
	}
}
