package memory

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"quire/kernel/prompt"
)

// Context is the ContextContributor of the working-memory zone: a bounded,
// structured summary of what the assistant remembers, evaluated when a run
// starts (the runtime freezes it into the run's context, so it is in the log).
type Context struct{ s *Store }

// Contributor returns the working-memory contributor of the store.
func (s *Store) Contributor() Context { return Context{s} }

// Name names the zone's part; the runtime puts it above the text.
func (Context) Name() string { return "Memory" }

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
func (c Context) Contribute(ctx context.Context, session string) (string, error) {
	s := c.s
	working, err := s.Session(ctx, session)
	if err != nil {
		return "", err
	}
	request := prompt.Request(ctx)
	prefs, err := s.relevant(ctx, request, Preference)
	if err != nil {
		return "", err
	}
	facts, err := s.relevant(ctx, request, Fact)
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

// relevant returns the kept items of a kind that matter for the request:
// the best matches, then (for preferences, which apply to any note work)
// the newest, up to perSection.
func (s *Store) relevant(ctx context.Context, request, kind string) ([]Item, error) {
	found, err := s.Search(ctx, request, perSection, kind)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(request) != "" && kind == Fact {
		return found, nil
	}
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
