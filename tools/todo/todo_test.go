package todo

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"quire/kernel/tool"
	"quire/kernel/tool/registry"
)

func TestUpdateTodosKeepsTheWholePlan(t *testing.T) {
	reg, err := registry.New(Tools()...)
	if err != nil {
		t.Fatalf("the tools' specs are invalid: %v", err)
	}
	args := tool.ParseArgs(`{"items":[{"text":"read plan.md","done":true},{"text":"file the note"}]}`)
	if err := reg.Validate("update_todos", args); err != nil {
		t.Fatal(err)
	}
	up, _ := reg.Get("update_todos")
	res, err := up.Run(context.Background(), tool.Call{Name: "update_todos", Arguments: args.JSON()})
	if err != nil || !strings.Contains(res.Content, "2 items, 1 still open") {
		t.Fatalf("%+v %v", res, err)
	}
	// As it comes back from the log.
	b, _ := json.Marshal(res.Data)
	var logged any
	json.Unmarshal(b, &logged)
	p, ok := DecodePlan(logged)
	if !ok || len(p.Open()) != 1 || p.Open()[0].Text != "file the note" {
		t.Fatalf("decoded %+v %v", p, ok)
	}
	if r := Reminder(p); !strings.Contains(r, "1 open item") || !strings.Contains(r, "file the note") {
		t.Fatalf("reminder %q", r)
	}
	if Reminder(Plan{Items: []Item{{Text: "x", Done: true}}}) != "" {
		t.Fatal("a finished plan still reminds")
	}
	for _, bad := range []string{`{"items":[{"done":true}]}`, `{"items":"x"}`, `{}`, `{"items":[],"extra":1}`} {
		if err := reg.Validate("update_todos", tool.ParseArgs(bad)); err == nil {
			t.Errorf("%s was accepted", bad)
		}
	}
}

func TestReportState(t *testing.T) {
	reg, err := registry.New(Tools()...)
	if err != nil {
		t.Fatal(err)
	}
	if err := reg.Validate("report_state", tool.ParseArgs(`{"plan":"x"}`)); err == nil {
		t.Fatal("a report without a state was accepted")
	}
	rs, _ := reg.Get("report_state")
	res, err := rs.Run(context.Background(), tool.Call{Arguments: []byte(`{"state":"I cannot find plan.md","confusion":"two notes share the name"}`)})
	if err != nil || res.Status != tool.Success || res.Data.(Report).Confusion != "two notes share the name" {
		t.Fatalf("%+v %v", res, err)
	}
}
