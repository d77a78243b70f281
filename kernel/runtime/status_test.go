package runtime_test

import (
	"testing"

	"quire/kernel/event"
	"quire/test/ollamatest"
)

func TestStatusesAreKeptApart(t *testing.T) {
	h := newHarness(t)
	h.fake.Script(ollamatest.Turn{Content: []string{"wait"}, Fail: ollamatest.Failure{Kind: ollamatest.FailHang, After: 1}})
	s, _ := newSession(t, h.rt, "x")
	if !h.rt.Quiescent(s.ID) {
		t.Fatal("a session with no run is not quiescent")
	}
	if _, err := submit(t, h.rt, s.ID, "go"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, h, s.ID, event.AssistantDelta)
	if h.rt.Quiescent(s.ID) {
		t.Fatal("a streaming session is quiescent")
	}
	list, _ := h.rt.Sessions(t.Context())
	if list[0].Status != "attached" || list[0].RunStatus != "streaming" || !list[0].Running {
		t.Fatalf("session status %q run status %q running %v", list[0].Status, list[0].RunStatus, list[0].Running)
	}
	if st := h.rt.Status(); st.Attached != 1 || st.Streams != 1 || st.Closing {
		t.Fatalf("runtime status %+v", st)
	}
	h.rt.Close()
	if st := h.rt.Status(); !st.Closing || st.Streams != 0 {
		t.Fatalf("runtime status after close %+v", st)
	}
}
