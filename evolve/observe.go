package evolve

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"quire/kernel/event"
	"quire/kernel/protocol"
	"quire/kernel/tool"
)

// Observer is the post-run step (a LifecycleSubscriber): when a run
// finishes it reads the run (and the turn before it) and appends what it
// saw as evolution.signal events to the same session, each citing the seqs
// it was read from, plus one evolution.observed naming the candidates that
// were active for the run. Nothing leaves the machine. The runtime calls it
// in its own goroutine after the run's terminal event.
type Observer struct {
	s *Store
	// Searches are the tools whose empty results count as failed searches.
	Searches []string
	// propose, when set, is asked for candidates after a run that gave
	// signals (only while learning is on).
	propose func(ctx context.Context, session, runID string)
}

// DefaultSearches are the tools whose empty results are failed searches.
var DefaultSearches = []string{"search_docs", "find_notes"}

// Observer returns the post-run step.
func (s *Store) Observer() *Observer { return &Observer{s: s, Searches: DefaultSearches} }

// recentSessions bounds how many other sessions (the most recently
// updated) are read to tell that a search failed before or a preference
// was said before.
const recentSessions = 20

// RunFinished observes the run. Failures are logged: evolution is a help,
// never a reason for a run to fail.
func (o *Observer) RunFinished(ctx context.Context, session, runID, reason string) {
	n, err := o.observe(ctx, session, runID)
	if err != nil {
		// Quire closing meanwhile (a `quire run` that ended) is no fault
		// to warn a user about: like any work in hand, it ends with Quire.
		if ctx.Err() == nil {
			o.s.logger.Warn("evolve: observe the finished run", "session", session, "run", runID, "err", err)
		}
		return
	}
	if n > 0 && o.propose != nil && o.s.Learning() {
		o.propose(ctx, session, runID)
	}
}

// observe appends the run's signals and returns how many there were.
func (o *Observer) observe(ctx context.Context, session, runID string) (int, error) {
	sentIDs, sent := o.s.versionsOf(runID) // first, so every finished run is forgotten
	if evoID, err := o.s.findSession(ctx); err != nil || evoID == session {
		return 0, err
	}
	evs, err := o.turn(ctx, session, runID)
	if err != nil || len(evs) == 0 {
		return 0, err
	}
	prior, err := o.s.log.EventsOfType(ctx, session, event.EvolutionSignal)
	if err != nil {
		return 0, err
	}
	var found []found
	found = append(found, denials(evs, runID)...)
	found = append(found, undos(evs, prior)...)
	found = append(found, corrections(evs, runID)...)
	fs, err := o.failedSearches(ctx, session, evs, runID)
	if err != nil {
		return 0, err
	}
	found = append(found, fs...)
	rs, err := o.restated(ctx, session, evs, runID)
	if err != nil {
		return 0, err
	}
	found = append(found, rs...)

	st, err := o.s.read(ctx)
	if err != nil {
		return 0, err
	}
	// Credit the versions the run was sent (resolved when it opened), not
	// those active now: an activation or rollback mid-run is not the run's.
	// A run opened before this process started falls back to the set now.
	versions := sentIDs
	if !sent {
		versions = o.s.applicable(st)
	}
	var drafts []event.Draft
	for _, f := range found {
		drafts = append(drafts, event.Draft{Type: event.EvolutionSignal, RunID: runID, Sources: f.seqs, Time: o.s.now(),
			Payload: event.EvolutionSignalPayload{Kind: f.kind, Seqs: f.seqs, Text: clip(f.text), Tool: f.tool, Versions: versions}})
	}
	if len(versions) > 0 {
		drafts = append(drafts, event.Draft{Type: event.EvolutionObserved, RunID: runID, Time: o.s.now(),
			Payload: event.EvolutionObservedPayload{Versions: versions}})
	}
	if len(drafts) == 0 {
		return 0, nil
	}
	w := o.s.writer.Load()
	if w == nil {
		return 0, errNoWriter
	}
	if _, err := (*w).AppendPlain(ctx, session, drafts...); err != nil {
		return 0, err
	}
	return len(found), nil
}

// turn is the session's events from the run before runID (so a correction
// can be read against what that run wrote, and an undo made between runs is
// seen) to the end.
func (o *Observer) turn(ctx context.Context, session, runID string) ([]event.Event, error) {
	starts, err := o.s.log.EventsOfType(ctx, session, event.RunStarted)
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(starts, func(e event.Event) bool { return e.RunID == runID })
	if i < 0 {
		return nil, nil
	}
	from := starts[i].Seq
	if i > 0 {
		from = starts[i-1].Seq
	}
	return o.s.log.Events(ctx, session, from)
}

// found is a signal before it is an event.
type found struct {
	kind, text, tool string
	seqs             []int64
}

// denials are the user's no answers in the run, with the reason given. A
// No made by default (the deadline passed, the asking client went away) is
// not the user's and is not counted.
func denials(evs []event.Event, runID string) []found {
	asked := map[string]struct {
		seq  int64
		name string
	}{}
	var out []found
	for _, e := range evs {
		if e.RunID != runID {
			continue
		}
		switch e.Type {
		case event.PermissionRequested:
			p, err := event.As[event.PermissionRequestedPayload](e)
			if err != nil {
				continue
			}
			for _, c := range p.Calls {
				asked[c.ID] = struct {
					seq  int64
					name string
				}{e.Seq, c.Name}
			}
		case event.PermissionAnswered:
			p, err := event.As[event.PermissionAnsweredPayload](e)
			if err != nil || p.Allowed || p.ByDefault {
				continue
			}
			var seqs []int64
			var names []string
			for _, id := range p.CallIDs {
				if a, ok := asked[id]; ok {
					if !slices.Contains(seqs, a.seq) {
						seqs = append(seqs, a.seq)
					}
					if !slices.Contains(names, a.name) {
						names = append(names, a.name)
					}
				}
			}
			text := strings.TrimSpace(p.Feedback)
			if text == "" {
				text = "no reason given"
			}
			out = append(out, found{kind: protocol.SignalDenied, text: text, tool: strings.Join(names, ","), seqs: append(seqs, e.Seq)})
		}
	}
	return out
}

// undos are the note.undone events of the turn not already a signal.
func undos(evs, prior []event.Event) []found {
	seen := map[int64]bool{}
	for _, e := range prior {
		if p, err := event.As[event.EvolutionSignalPayload](e); err == nil && p.Kind == protocol.SignalUndone {
			for _, s := range p.Seqs {
				seen[s] = true
			}
		}
	}
	var out []found
	for _, e := range evs {
		if e.Type != event.NoteUndone || seen[e.Seq] {
			continue
		}
		p, err := event.As[event.NoteUndonePayload](e)
		if err != nil {
			continue
		}
		out = append(out, found{kind: protocol.SignalUndone, text: p.Text, seqs: []int64{e.Seq}})
	}
	return out
}

// correctionCue is how a correction reads: the message opens with a no
// ("no,", "wrong", "actually") or says where something should be instead.
// It is read only right after a run that changed a note, so "no" there
// answers that change. Compiled on first use (namePattern).
var correctionCue = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^\s*(no|nope|wrong|actually|not there|not that)\b|\b(instead|should (go|be|live|have gone)|belongs? (in|under|to)|wrong (folder|place|path|name)|not in)\b`)
})

// IsCorrection reports whether a user message reads as correcting what the
// assistant just did (correctionCue).
func IsCorrection(text string) bool { return correctionCue().MatchString(text) }

// corrections is the run's first user message when it reads as a
// correction of a note change the run before made.
func corrections(evs []event.Event, runID string) []found {
	// The effects are the frozen capabilities' (input.received, which
	// comes before its run.started: the turn holds this run's, not always
	// the one before's; the tools are declared the same in both).
	effects := map[string]tool.Effect{}
	for _, e := range evs {
		if e.Type != event.InputReceived {
			continue
		}
		if in, err := event.As[event.InputReceivedPayload](e); err == nil && in.Caps != nil {
			for _, d := range in.Caps.Tools {
				effects[d.Name] |= tool.Effect(d.Effects)
			}
		}
	}
	var wrote *event.Event
	var wroteTool string
	for i, e := range evs {
		switch e.Type {
		case event.ToolResult:
			if e.RunID == runID {
				continue
			}
			p, err := event.As[event.ToolResultPayload](e)
			if err == nil && p.Status == string(tool.Success) && effects[p.Name]&tool.WriteFs != 0 {
				wrote, wroteTool = &evs[i], p.Name
			}
		case event.UserMessage:
			if e.RunID != runID {
				continue
			}
			p, err := event.As[event.UserMessagePayload](e)
			if err != nil || wrote == nil || !IsCorrection(p.Text) {
				return nil
			}
			return []found{{kind: protocol.SignalCorrection, text: p.Text, tool: wroteTool, seqs: []int64{wrote.Seq, e.Seq}}}
		}
	}
	return nil
}

// failedSearches are the run's searches that found nothing and found
// nothing before too (the same tool and the same answer, which names the
// query), in this session or one of the recent others.
func (o *Observer) failedSearches(ctx context.Context, session string, evs []event.Event, runID string) ([]found, error) {
	key := func(e event.Event) (string, bool) {
		p, err := event.As[event.ToolResultPayload](e)
		if err != nil || p.Status != string(tool.Empty) || !slices.Contains(o.Searches, p.Name) {
			return "", false
		}
		return p.Name + "\x00" + strings.TrimSpace(p.Content), true
	}
	var mine []event.Event
	for _, e := range evs {
		if e.Type == event.ToolResult && e.RunID == runID {
			if _, ok := key(e); ok {
				mine = append(mine, e)
			}
		}
	}
	if len(mine) == 0 {
		return nil, nil
	}
	before := map[string]bool{}
	err := o.eachRecent(ctx, session, event.ToolResult, func(_ string, e event.Event) {
		if e.RunID != runID {
			if k, ok := key(e); ok {
				before[k] = true
			}
		}
	})
	if err != nil {
		return nil, err
	}
	var out []found
	done := map[string]bool{}
	for _, e := range mine {
		k, _ := key(e)
		if before[k] && !done[k] {
			done[k] = true
			name, text, _ := strings.Cut(k, "\x00")
			out = append(out, found{kind: protocol.SignalFailedSearch, text: text, tool: name, seqs: []int64{e.Seq}})
		}
	}
	return out, nil
}

// restated are the run's remembered preferences that were remembered
// before in near the same words. Memory writes carry no run, so the run's
// are those after its run.started.
func (o *Observer) restated(ctx context.Context, session string, evs []event.Event, runID string) ([]found, error) {
	start := int64(-1)
	for _, e := range evs {
		if e.Type == event.RunStarted && e.RunID == runID {
			start = e.Seq
		}
	}
	pref := func(e event.Event) (string, bool) {
		p, err := event.As[event.MemoryRememberPayload](e)
		if err != nil || p.Kind != "preference" {
			return "", false
		}
		return p.Text, true
	}
	var mine []event.Event
	for _, e := range evs {
		if e.Type == event.MemoryRemember && start >= 0 && e.Seq > start {
			if _, ok := pref(e); ok {
				mine = append(mine, e)
			}
		}
	}
	if len(mine) == 0 {
		return nil, nil
	}
	var before []string
	err := o.eachRecent(ctx, session, event.MemoryRemember, func(in string, e event.Event) {
		if in != session || e.Seq <= start {
			if t, ok := pref(e); ok {
				before = append(before, t)
			}
		}
	})
	if err != nil {
		return nil, err
	}
	var out []found
	for _, e := range mine {
		t, _ := pref(e)
		if slices.ContainsFunc(before, func(b string) bool { return NearSame(t, b) }) {
			out = append(out, found{kind: protocol.SignalRestated, text: t, seqs: []int64{e.Seq}})
		}
	}
	return out, nil
}

// eachRecent calls f on the events of type typ of session and of the
// recentSessions most recently updated other sessions (not the evolution
// log's).
func (o *Observer) eachRecent(ctx context.Context, session string, typ event.Type, f func(session string, e event.Event)) error {
	all, err := o.s.log.Sessions(ctx)
	if err != nil {
		return err
	}
	slices.SortFunc(all, func(a, b event.SessionSummary) int { return b.UpdatedAt.Compare(a.UpdatedAt) })
	ids := []string{session}
	for _, s := range all {
		if len(ids) > recentSessions {
			break
		}
		if s.ID != session && s.Kind != event.SessionEvolution {
			ids = append(ids, s.ID)
		}
	}
	for _, id := range ids {
		evs, err := o.s.log.EventsOfType(ctx, id, typ)
		if err != nil {
			return err
		}
		for _, e := range evs {
			f(id, e)
		}
	}
	return nil
}

// NearSame reports whether two texts say nearly the same: at least four in
// five of their distinct words (lowercased, letters and digits) shared.
func NearSame(a, b string) bool {
	wa, wb := words(a), words(b)
	if len(wa) == 0 || len(wb) == 0 {
		return false
	}
	shared := 0
	for w := range wa {
		if wb[w] {
			shared++
		}
	}
	union := len(wa) + len(wb) - shared
	return shared*5 >= union*4
}

func words(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		out[w] = true
	}
	return out
}

// clip bounds a signal's text.
func clip(s string) string {
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) <= protocol.MaxSignalText {
		return s
	}
	return string([]rune(s)[:protocol.MaxSignalText-1]) + "…"
}
