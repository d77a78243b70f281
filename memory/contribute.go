package memory

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"quire/kernel/prompt"
)

// WorkingZone is the ContextContributor of the working-memory zone: a bounded,
// structured summary of what the assistant remembers, evaluated when a run
// starts (the runtime freezes it into the run's context, so it is in the log).
type WorkingZone struct{ s *Store }

// Contributor returns the working-memory contributor of the store.
func (s *Store) Contributor() WorkingZone { return WorkingZone{s} }

// Name names the zone's part; the runtime puts it above the text.
func (WorkingZone) Name() string { return "Memory" }

// perSection bounds how many long-term items of each kind are considered.
const perSection = 8

// section is one heading of the summary and its lines, best first.
type section struct {
	title string
	lines []string
}

// Contribute renders this session's working memory and the long-term items
// relevant to the request (prompt.Request) within the store's token budget
// (four characters a token). What is cut is counted, never silently lost.
func (c WorkingZone) Contribute(ctx context.Context, session string) (string, error) {
	s := c.s
	working, err := s.Session(ctx, session)
	if err != nil {
		return "", err
	}
	prefs, facts, err := s.relevant(ctx, prompt.Request(ctx))
	if err != nil {
		return "", err
	}
	sections := []section{
		{title: "Open sub-tasks of this conversation:"},
		{title: "Conclusions reached in this conversation:"},
		{title: "Already tried in this conversation (do not repeat; use the outcome):"},
		{title: "The user's preferences:"},
		{title: "Facts about the user's world:"},
	}
	// Working memory newest first: when the budget is short, the latest
	// state of the task wins.
	for _, it := range slices.Backward(working) {
		i := map[string]int{OpenTask: 0, Conclusion: 1, Attempt: 2}[it.Note]
		sections[i].lines = append(sections[i].lines, line(it))
	}
	for _, it := range prefs {
		sections[3].lines = append(sections[3].lines, line(it))
	}
	for _, it := range facts {
		sections[4].lines = append(sections[4].lines, line(it))
	}
	return render(sections, s.budget*4), nil
}

func line(it Item) string { return fmt.Sprintf("- [%s] %s", it.ID, it.Text) }

// relevant returns the kept preferences and facts that matter for the
// request (one search for both), up to perSection of each. Preferences,
// which apply to any work on notes, are topped up with the newest; with no
// request, facts are the newest too.
func (s *Store) relevant(ctx context.Context, request string) (prefs, facts []Item, err error) {
	found, err := s.Search(ctx, request, 2*perSection, Fact, Preference)
	if err != nil {
		return nil, nil, err
	}
	for _, it := range found {
		if it.Kind == Preference && len(prefs) < perSection {
			prefs = append(prefs, it)
		} else if it.Kind == Fact && len(facts) < perSection {
			facts = append(facts, it)
		}
	}
	if prefs, err = s.topUp(ctx, prefs, Preference); err != nil {
		return nil, nil, err
	}
	if strings.TrimSpace(request) == "" {
		if facts, err = s.topUp(ctx, facts, Fact); err != nil {
			return nil, nil, err
		}
	}
	return prefs, facts, nil
}

// topUp adds the newest kept items of a kind to found, up to perSection.
func (s *Store) topUp(ctx context.Context, found []Item, kind string) ([]Item, error) {
	more, err := s.recent(ctx, kind, perSection)
	if err != nil {
		return nil, err
	}
	for _, it := range more {
		if len(found) == perSection {
			break
		}
		if !slices.ContainsFunc(found, func(f Item) bool { return f.ID == it.ID }) {
			found = append(found, it)
		}
	}
	return found, nil
}

// render lays the sections out within limit characters. Lines are taken
// round-robin across sections in priority order, so one long section cannot
// starve the others; what does not fit is counted at the end.
func render(sections []section, limit int) string {
	const header = "Ids are in brackets; forget an item that is wrong with the forget tool."
	used := len(header)
	taken := make([]int, len(sections))
	left := 0
	for _, sec := range sections {
		left += len(sec.lines)
	}
	if left == 0 {
		return ""
	}
	total := left
	for progress := true; progress; {
		progress = false
		for i, sec := range sections {
			if taken[i] == len(sec.lines) {
				continue
			}
			cost := len(sec.lines[taken[i]]) + 1
			if taken[i] == 0 {
				cost += len(sec.title) + 2
			}
			if used+cost > limit-len("\n\n(99999 more items did not fit.)") {
				continue
			}
			used += cost
			taken[i]++
			progress = true
		}
	}
	var b strings.Builder
	b.WriteString(header)
	shown := 0
	for i, sec := range sections {
		if taken[i] == 0 {
			continue
		}
		b.WriteString("\n\n" + sec.title)
		for _, l := range sec.lines[:taken[i]] {
			b.WriteString("\n" + l)
		}
		shown += taken[i]
	}
	if shown < total {
		fmt.Fprintf(&b, "\n\n(%d more items did not fit.)", total-shown)
	}
	return b.String()
}
