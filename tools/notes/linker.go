package notes

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"quire/kernel/tool"
	"quire/vault"
)

// Linker plans what a move does to the links of the notes folder (package
// vault's PlanMove): the notes index's live graph is one. read gives a
// note's text now; the plan is computed from it.
type Linker interface {
	PlanMove(from, to string, read func(path string) ([]byte, error)) (vault.Plan, error)
}

// MoveFollower is a Linker whose graph learns of changes later than they
// land (a folder watch's debounce): the root tells it, once a move has
// landed, every path the move changed, relative to the root and
// slash-separated (some gone, some new), before the next move is planned.
type MoveFollower interface {
	Moved(paths []string)
}

// WithLinker plans moves with l. Without one, a root scans its folder for
// each move (vault.Scan, bounded by vault.DefaultLimits): correct, only
// slower on a large folder.
func WithLinker(l Linker) Option { return func(r *Root) { r.linker = l } }

// scanTimeout bounds the scan of a root without a Linker.
const scanTimeout = 2 * time.Minute

// relinks are the notes whose links m rewrites, as the linker plans them
// from the notes' text now. A note in a hidden folder (.trash, .obsidian)
// is never rewritten, whatever the plan says, and every path the plan
// names goes through the root's confinement.
func (r *Root) relinks(ctx context.Context, m *relink) ([]noteEdit, error) {
	read := func(p string) ([]byte, error) {
		t, err := r.resolve(p)
		if err != nil {
			return nil, err
		}
		text, err := r.readText(t)
		return []byte(text), err
	}
	scan := func() (Linker, error) {
		ctx, cancel := context.WithTimeout(ctx, scanTimeout)
		defer cancel()
		v, _, err := vault.Scan(ctx, r.fs.FS(), vault.DefaultLimits())
		if err != nil {
			return nil, fmt.Errorf("the notes folder could not be read to find the links to %s: %w", m.from, err)
		}
		return v, nil
	}
	linker, scanned := r.linker, false
	if linker == nil {
		l, err := scan()
		if err != nil {
			return nil, err
		}
		linker, scanned = l, true
	}
	plan, err := linker.PlanMove(m.from, m.to, read)
	if (errors.Is(err, vault.ErrNotFound) || errors.Is(err, ErrGraphNotReady) || errors.Is(err, vault.ErrRead)) && !scanned {
		// The live graph has not seen it yet (just made, still being read,
		// or a note another program moved a moment ago): the disk has.
		var l Linker
		if l, err = scan(); err != nil {
			return nil, err
		}
		plan, err = l.PlanMove(m.from, m.to, read)
	}
	if errors.Is(err, vault.ErrNotFound) {
		// A file the graph does not read (over its size bound, say): no
		// link resolves to it, so there is none to keep.
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("the links to %s could not be planned: %w", m.from, err)
	}
	var edits []noteEdit
	for _, e := range plan.Edits {
		if e.Before == e.After || inHidden(e.Path) || inHidden(e.NewPath) {
			continue
		}
		if want := movedPath(e.Path, m); e.NewPath != want {
			return nil, fmt.Errorf("the plan of the links moves %s to %s, where the move puts it at %s; nothing was changed", e.Path, e.NewPath, want)
		}
		t, err := r.resolve(e.Path)
		if err != nil {
			return nil, err
		}
		if err := mustBeNote(t); err != nil {
			return nil, err
		}
		if t.real != e.Path {
			continue // a link to a note reached through a symbolic link: the note itself is planned under its own path
		}
		edits = append(edits, noteEdit{at: e.Path, moved: e.NewPath, before: e.Before, after: e.After, links: e.Links})
	}
	slices.SortFunc(edits, func(a, b noteEdit) int { return strings.Compare(a.at, b.at) })
	return edits, nil
}

// movedPath is where the note at p is once m is made.
func movedPath(p string, m *relink) string {
	switch {
	case p == m.from:
		return m.to
	case m.folder && strings.HasPrefix(p, m.from+"/"):
		return m.to + p[len(m.from):]
	}
	return p
}

// inHidden reports whether p is in, or is, a hidden file or folder.
func inHidden(p string) bool {
	for _, seg := range strings.Split(p, "/") {
		if hidden(seg) && seg != "." && seg != ".." {
			return true
		}
	}
	return false
}

// describeMove is move_note's question: the move, then how many links in
// how many notes it updates, then each rewritten note's changed lines. It
// reads the disk now, as the question is asked (the plan depends on the
// notes, not only on the call), and remembers what it showed under the
// call's id, so that the yes is held to it (shownPlans).
func (r *Root) describeMove(call tool.Call) string {
	var a moveArgs
	if err := json.Unmarshal(call.Arguments, &a); err != nil {
		return ""
	}
	head := fmt.Sprintf("Move %s → %s", a.From, a.To)
	ctx, cancel := context.WithTimeout(context.Background(), describeTimeout+scanTimeout)
	defer cancel()
	unlock, err := r.lockWrite(ctx)
	if err != nil {
		return head + "\n⚠ Quire could not read the notes to say which links this updates (" + err.Error() + "); answer No if you are not sure."
	}
	defer unlock()
	src, err := r.resolve(a.From)
	var dst target
	if err == nil {
		dst, err = r.resolve(a.To)
	}
	var m *relink
	if err == nil {
		m, err = r.planMove(ctx, src, dst)
	}
	if err == nil {
		err = r.checkWritable(m) // a read-only note is said now, not only at the yes
	}
	if err != nil {
		return head + "\n⚠ As the notes are now, Quire would refuse this: " + strings.TrimSuffix(sentence(err.Error()), ".") + "."
	}
	r.shown.put(call.ID, m)
	return relinkText(a.From, a.To, m.fileEdits())
}

// shownPlans remembers, per call id, the plan a move's question showed:
// each rewritten note with the hash of its text as shown, and the whole
// plan. The yes is to exactly that: at run the plan is made again, and a
// note changed meanwhile (in another editor) or any other difference
// refuses the whole move, so nothing is written over what the user did not
// see. A call whose question was never shown (a replay, the eval set's
// automatic yes) plans at run. Safe for concurrent use; bounded.
type shownPlans struct {
	mu    sync.Mutex
	order []string
	plans map[string]shownPlan
}

type shownPlan struct {
	notes map[string]string // path -> hash of its text as shown
	whole string            // the plan's fingerprint
}

func fingerprint(m *relink) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\x00%s\x00", m.from, m.to)
	for _, e := range m.edits {
		fmt.Fprintf(&b, "%s\x00%s\x00%s\x00%s\n", e.at, e.moved, digest(e.before), digest(e.after))
	}
	return b.String()
}

func (s *shownPlans) put(callID string, m *relink) {
	if callID == "" {
		return
	}
	p := shownPlan{notes: map[string]string{}, whole: fingerprint(m)}
	for _, e := range m.edits {
		p.notes[e.at] = digest(e.before)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.plans == nil {
		s.plans = map[string]shownPlan{}
	}
	if _, ok := s.plans[callID]; !ok {
		s.order = append(s.order, callID)
	}
	s.plans[callID] = p
	for len(s.order) > maxRequests {
		delete(s.plans, s.order[0])
		s.order = s.order[1:]
	}
}

// check holds the move m to the plan shown for callID, if one was.
func (s *shownPlans) check(callID string, m *relink) error {
	s.mu.Lock()
	p, ok := s.plans[callID]
	s.mu.Unlock()
	if !ok || callID == "" || p.whole == fingerprint(m) {
		return nil
	}
	for _, e := range m.edits {
		if h, was := p.notes[e.at]; was && h != digest(e.before) {
			return fail(ErrChanged, "%q changed after you were asked (in another program?), and moving %s would rewrite its links, so nothing was moved or changed; ask again to see the links as they are now", e.at, m.from)
		}
	}
	now := map[string]bool{}
	for _, e := range m.edits {
		now[e.at] = true
		if _, was := p.notes[e.at]; !was {
			return fail(ErrChanged, "moving %s would now also rewrite the links in %q, which the question did not show (a note changed in another program?), so nothing was moved or changed; ask again", m.from, e.at)
		}
	}
	for at := range p.notes {
		if !now[at] {
			return fail(ErrChanged, "%q no longer needs its links rewritten as the question showed (it changed in another program?), so nothing was moved or changed; ask again", at)
		}
	}
	return fail(ErrChanged, "the move of %s is no longer the one you were shown (a note changed meanwhile), so nothing was moved or changed; ask again", path.Clean(m.from))
}
