package runtime_test

import (
	"strings"
	"testing"

	"quire/kernel/event"
	"quire/kernel/protocol"
	"quire/test/ollamatest"
)

// A chat created without a title is named from its first message, by a
// plain session.renamed marked auto (never projected, no model call), and
// a title the user gave is never replaced by one.
func TestAutomaticTitles(t *testing.T) {
	long := "Could you please sort my reading notes on medieval history into folders by century"
	cases := []struct {
		name       string
		created    string
		userRename string // renamed by the user before the first message
		first      string
		want       string
	}{
		{"a new chat is named by its first message", "", "", "  plan   the\nweek  ", "plan the week"},
		{"a long message is cut at a word", "", "", long, "Could you please sort my reading notes…"},
		{"cut at the last word that fits", "", "", "Summarise my notes about the garden project and the budget", "Summarise my notes about the garden…"},
		{"one long word is cut where it must be", "", "", strings.Repeat("x", 60), strings.Repeat("x", 40) + "…"},
		{"exactly the length is whole", "", "", "exactly forty characters long, no more!!", "exactly forty characters long, no more!!"},
		{"a chat created with a title keeps it", "Groceries", "", "plan the week", "Groceries"},
		{"the user's rename wins", "", "Mine", "plan the week", "Mine"},
		{"even a rename to New chat", "", "New chat", "plan the week", "New chat"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t)
			h.fake.Script(ollamatest.Turn{Content: []string{"Done."}}, ollamatest.Turn{Content: []string{"Again."}})
			s, err := newSession(t, h.rt, c.created)
			if err != nil {
				t.Fatal(err)
			}
			if c.userRename != "" {
				if _, err := protocol.Run[protocol.Session](t.Context(), h.rt, "", protocol.RenameSession,
					protocol.RenameSessionPayload{Session: s.ID, Title: c.userRename}); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := submit(t, h.rt, s.ID, c.first); err != nil {
				t.Fatal(err)
			}
			h.waitFinished(t, s.ID, 1)
			// A second message names nothing again.
			if _, err := submit(t, h.rt, s.ID, "and something else entirely"); err != nil {
				t.Fatal(err)
			}
			evs := h.waitFinished(t, s.ID, 2)
			got, err := h.rt.Sessions(t.Context())
			if err != nil || len(got) != 1 || got[0].Title != c.want {
				t.Fatalf("sessions %+v (%v), want the title %q", got, err, c.want)
			}
			autos := 0
			for _, e := range evs {
				if e.Type != event.SessionRenamed {
					continue
				}
				p, err := event.As[event.SessionRenamedPayload](e)
				if err != nil {
					t.Fatal(err)
				}
				if p.Auto {
					autos++
					if p.Title != c.want {
						t.Errorf("auto title %q, want %q", p.Title, c.want)
					}
				}
			}
			wantAutos := 0
			if c.created == "" && c.userRename == "" {
				wantAutos = 1
			}
			if autos != wantAutos {
				t.Fatalf("%d automatic renames in the log, want %d", autos, wantAutos)
			}
		})
	}
}
