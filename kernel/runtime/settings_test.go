package runtime_test

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"quire/kernel/event"
	"quire/kernel/prompt"
	"quire/kernel/provider/ollama"
	"quire/kernel/runtime"
	"quire/test/ollamatest"
	"quire/test/testkit"
)

// sentOptions is what one request the fake server received carried of the
// settings: its temperature and think keys (raw JSON, "" when absent), its
// num_ctx and its system text.
type sentOptions struct {
	temperature, think string
	numCtx             string
	system             string
}

func optionsOf(t *testing.T, body []byte) sentOptions {
	t.Helper()
	var top struct {
		Options  map[string]json.RawMessage `json:"options"`
		Think    json.RawMessage            `json:"think"`
		Messages []struct{ Role, Content string }
	}
	if err := json.Unmarshal(body, &top); err != nil {
		t.Fatal(err)
	}
	o := sentOptions{temperature: string(top.Options["temperature"]), think: string(top.Think), numCtx: string(top.Options["num_ctx"])}
	for _, m := range top.Messages {
		if m.Role == "system" {
			o.system += m.Content + "\n"
		}
	}
	return o
}

// TestChangedSettingsReachTheNextRunOnly: the settings the screen changes —
// temperature, thinking, "what Quire should know about you", the context
// length — are frozen when a run starts. A change while a run waits on a
// tool leaves that run's next step as it was (its refreshed system text
// too); the next run sends the new values; a run from before the settings
// existed sends neither key; and every request, old and new, is rebuilt
// from the log byte for byte after the changes.
func TestChangedSettingsReachTheNextRunOnly(t *testing.T) {
	wait, started, unblock := waiting(t)
	k := kit(t, withTools(wait), runtime.WithPrompt(prompt.Base()))
	k.Ollama.Script(saying("before any setting"), calling("c1:wait"), saying("first settings"), saying("second settings"))
	s := chat(t, k)

	say(t, k, s, "one", "")
	waitRuns(t, k, s, 1)

	cool, off := 0.2, false
	k.Runtime.SetSettings(settings(func(st *runtime.Settings) {
		st.Temperature, st.Think, st.AboutYou = &cool, &off, "I write my notes in French."
	}))
	say(t, k, s, "two", "")
	<-started
	warm, on := 1.5, true
	k.Runtime.SetSettings(settings(func(st *runtime.Settings) {
		st.Temperature, st.Think, st.AboutYou, st.NumCtx = &warm, &on, "I am a botanist.", 4096
	}))
	unblock()
	waitRuns(t, k, s, 2)
	say(t, k, s, "three", "")
	evs := waitRuns(t, k, s, 3)

	reqs := k.Ollama.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4: %s", len(reqs), testkit.Types(evs))
	}
	french, botanist := "I write my notes in French.", "I am a botanist."
	for i, c := range []struct {
		temperature, think, numCtx string
		about, notAbout            string
	}{
		{"", "", "8192", "", "What the user wants you to know"},
		{"0.2", "false", "8192", french, botanist},
		{"0.2", "false", "8192", french, botanist}, // the same run's second step
		{"1.5", "true", "4096", botanist, french},
	} {
		got := optionsOf(t, reqs[i].Body)
		if got.temperature != c.temperature || got.think != c.think || got.numCtx != c.numCtx {
			t.Errorf("request %d sent temperature %q, think %q, num_ctx %q; want %q, %q, %q",
				i+1, got.temperature, got.think, got.numCtx, c.temperature, c.think, c.numCtx)
		}
		if !strings.Contains(got.system, c.about) || strings.Contains(got.system, c.notAbout) {
			t.Errorf("request %d's system text has %q without %q:\n%s", i+1, c.about, c.notAbout, got.system)
		}
	}
	ins := only[event.InputReceivedPayload](t, evs, event.InputReceived)
	if len(ins) != 3 || ins[0].Caps.Temperature != nil || ins[1].Caps.AboutYou != french || *ins[2].Caps.Temperature != warm {
		t.Fatalf("the runs froze %+v", ins)
	}
	rebuiltAsSent(t, k, s)
}

// TestAChangedAddressReachesTheNextRunOnly: a run started on Ollama A keeps
// sending its steps to A when the address moves to B while it waits on a
// tool (the runtime's settings and the adapter's host both change, as the
// settings screen's apply does); the next run goes to B, and a replay
// rebuilds the first run's requests unchanged.
func TestAChangedAddressReachesTheNextRunOnly(t *testing.T) {
	wait, started, unblock := waiting(t)
	k := kit(t, withTools(wait))
	k.Ollama.Script(calling("c1:wait"), saying("still on A"))
	other := ollamatest.New(t)
	other.AddModel(ollamatest.DefaultModel())
	other.Script(saying("on B"))
	hostA, hostB := parsedHost(t, k.Ollama.URL()), parsedHost(t, other.URL())
	k.Runtime.SetSettings(settings(func(st *runtime.Settings) { st.Host = hostA.String() }))
	s := chat(t, k)

	say(t, k, s, "one", "")
	<-started
	k.Model.SetHost(hostB)
	k.Runtime.SetSettings(settings(func(st *runtime.Settings) { st.Host = hostB.String() }))
	unblock()
	waitRuns(t, k, s, 1)
	if a, b := len(k.Ollama.Requests()), len(other.Requests()); a != 2 || b != 0 {
		t.Fatalf("the first run sent %d requests to A and %d to B; want both steps on A", a, b)
	}
	say(t, k, s, "two", "")
	evs := waitRuns(t, k, s, 2)
	if a, b := len(k.Ollama.Requests()), len(other.Requests()); a != 2 || b != 1 {
		t.Fatalf("after the second run A has %d requests and B %d; want 2 and 1", a, b)
	}
	if caps := capsOf(t, evs); len(caps) != 2 || caps[0].Host != hostA.String() || caps[1].Host != hostB.String() {
		t.Fatalf("frozen addresses %+v", caps)
	}
	for _, fin := range only[event.RunFinishedPayload](t, evs, event.RunFinished) {
		if fin.Reason != event.ReasonCompleted {
			t.Fatalf("run finished %+v", fin)
		}
	}
	rebuiltAsSent(t, k, s)
}

// parsedHost is raw as the adapter reads an address.
func parsedHost(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := ollama.ParseHost(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
