package memory_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"quire/kernel/prompt"
	"quire/kernel/tool"
	"quire/memory"
)

func TestWorkingZoneCarriesThisSessionsMemoryAndRelevantLongTermItems(t *testing.T) {
	r := newRig(t, rigOptions{mem: []memory.Option{memory.WithApproval(false)}})
	ctx := t.Context()
	a, b := r.chat(t), r.chat(t)
	if err := r.mem.NoteWorking(ctx, a, []memory.WorkingItem{
		{Note: memory.Conclusion, Text: "The budget note is Finance/2026.md."},
		{Note: memory.OpenTask, Text: "Tag the budget note."},
		{Note: memory.Attempt, Text: `find_notes {"query":"budget"} → success: 1 match`},
	}, nil); err != nil {
		t.Fatal(err)
	}
	if err := r.mem.NoteWorking(ctx, b, []memory.WorkingItem{{Note: memory.Conclusion, Text: "Only in session b."}}, nil); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"The garden project is led by Anna.", "The dentist is on Tuesdays.", "Invoices go to the accountant, Mr Berg."} {
		if _, err := r.mem.Remember(ctx, b, memory.Fact, "", f, memory.ByUser, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := r.mem.Remember(ctx, b, memory.Preference, "", "Tags are lower-case.", memory.ByUser, nil); err != nil {
		t.Fatal(err)
	}
	r.mem.SetApproval(true)
	if _, err := r.mem.Remember(ctx, b, memory.Fact, "", "Pending: the garden has roses.", memory.ByProposal, nil); err != nil {
		t.Fatal(err)
	}

	r.k.Ollama.Script(saying("ok"))
	r.say(t, a, "Who leads the garden project?")
	zone := workingZone(t, r.k.Ollama, -1)
	for _, want := range []string{"Open sub-tasks", "Tag the budget note.", "Conclusions", "Finance/2026.md", "Already tried", `find_notes {"query":"budget"}`,
		"preferences", "Tags are lower-case.", "Facts", "The garden project is led by Anna."} {
		if !strings.Contains(zone, want) {
			t.Errorf("working zone lacks %q:\n%s", want, zone)
		}
	}
	for _, not := range []string{"Only in session b.", "Pending: the garden"} {
		if strings.Contains(zone, not) {
			t.Errorf("working zone has %q:\n%s", not, zone)
		}
	}
	// Long-term memory is shared: session b sees the fact remembered in b and a's conclusions stay in a.
	r.k.Ollama.Script(saying("ok"))
	r.say(t, b, "When is the dentist?")
	zone = workingZone(t, r.k.Ollama, -1)
	if !strings.Contains(zone, "The dentist is on Tuesdays.") || strings.Contains(zone, "Finance/2026.md") {
		t.Errorf("session b's zone:\n%s", zone)
	}
}

func TestWorkingZoneStaysWithinItsBudgetAndKeepsTheRelevantFact(t *testing.T) {
	const budget = 150 // tokens: 600 characters
	r := newRig(t, rigOptions{mem: []memory.Option{memory.WithBudget(budget), memory.WithApproval(false)}})
	ctx := t.Context()
	s := r.chat(t)
	for i := range 200 {
		if _, err := r.mem.Remember(ctx, s, memory.Fact, "", fmt.Sprintf("Shelf %d holds the folder of project number %d.", i, i*7), memory.ByUser, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := r.mem.Remember(ctx, s, memory.Fact, "", "The passport scan is in the vault folder.", memory.ByUser, nil); err != nil {
		t.Fatal(err)
	}
	var open []memory.WorkingItem
	for i := range 40 {
		open = append(open, memory.WorkingItem{Note: memory.OpenTask, Text: fmt.Sprintf("Sub-task %d: rename the files of batch %d.", i, i)})
	}
	if err := r.mem.NoteWorking(ctx, s, open, nil); err != nil {
		t.Fatal(err)
	}
	text, err := r.mem.Contributor().Contribute(prompt.WithRequest(ctx, "where is my passport scan?"), s)
	if err != nil {
		t.Fatal(err)
	}
	if len(text) > budget*4 {
		t.Errorf("the summary is %d characters, over its budget of %d", len(text), budget*4)
	}
	for _, want := range []string{"passport scan is in the vault", "Sub-task 39", "more items did not fit"} {
		if !strings.Contains(text, want) {
			t.Errorf("summary lacks %q:\n%s", want, text)
		}
	}
}

func TestForgetToolRemovesAnItemFromTheNextRequest(t *testing.T) {
	r := newRig(t, rigOptions{mem: []memory.Option{memory.WithApproval(false)}})
	s := r.chat(t)
	it, err := r.mem.Remember(t.Context(), s, memory.Preference, "", "Titles are in German.", memory.ByUser, nil)
	if err != nil {
		t.Fatal(err)
	}
	r.k.Ollama.Script(calling("c1", "forget", fmt.Sprintf(`{"id":%q}`, it.ID)), saying("Forgotten."), saying("ok"))
	r.say(t, s, "That German titles thing is wrong.")
	if z := workingZone(t, r.k.Ollama, 0); !strings.Contains(z, it.ID) {
		t.Fatalf("the first request did not show the item:\n%s", z)
	}
	if _, err := r.mem.Get(t.Context(), it.ID); err == nil {
		t.Fatal("the item is still there after forget")
	}
	r.say(t, s, "next")
	if z := workingZone(t, r.k.Ollama, -1); strings.Contains(z, "German") {
		t.Errorf("the forgotten item is still sent:\n%s", z)
	}
}

func TestToolsOutsideARunHaveNoSession(t *testing.T) {
	// A remember without a calling session cannot land in any log.
	r := newRig(t, rigOptions{mem: []memory.Option{memory.WithApproval(false)}})
	var rem tool.Tool
	for _, tl := range r.mem.Tools() {
		if tl.Spec().Name == "remember" {
			rem = tl
		}
	}
	res, err := rem.Run(context.Background(), tool.Call{ID: "x", Name: "remember", Arguments: []byte(`{"kind":"fact","text":"x"}`)})
	if err != nil || res.Status != tool.Failure || !strings.Contains(res.Content, "inside a conversation") {
		t.Fatalf("res = %+v, %v; want a failure", res, err)
	}
}
