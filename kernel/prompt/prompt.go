// Package prompt assembles the system text the model sees from fragments
// that several parts contribute (seed 000 §4, seed 002 decision 4). A
// fragment has an explicit numeric priority (identity -100, deployment 0,
// tools 100 and up); lower comes first. It is static text or a function
// evaluated at every assembly. Registering returns the function that
// unregisters. A take-over fragment drops every fragment after it.
//
// It owns ordering and assembly only; what is assembled is recorded in the
// log by the runtime. It imports only the standard library and must never
// import a database driver, a model client, Wails, memory/, rag/ or tools/.
package prompt

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Priorities of the usual fragments.
const (
	Identity   = -100
	Deployment = 0
	Tools      = 100
)

type sessionKey struct{}

// WithSession tells dynamic fragments which session they assemble for.
func WithSession(ctx context.Context, session string) context.Context {
	return context.WithValue(ctx, sessionKey{}, session)
}

// Session is the session being assembled for ("" when none was given).
func Session(ctx context.Context) string {
	s, _ := ctx.Value(sessionKey{}).(string)
	return s
}

type aboutUserKey struct{}

// WithAboutUser gives the about-you fragment (AboutUserFragment) the text
// the user wrote for "what Quire should know about you", as the run froze
// it: the runtime sets it at every assembly, so a change in Settings
// reaches the next run and never the one in progress.
func WithAboutUser(ctx context.Context, text string) context.Context {
	return context.WithValue(ctx, aboutUserKey{}, text)
}

// AboutUser is the about-you text being assembled ("" when none was given).
func AboutUser(ctx context.Context) string {
	s, _ := ctx.Value(aboutUserKey{}).(string)
	return s
}

// Zone is a part of the context with its own lifetime and compaction policy
// (seed 002 decision 4). Zones are sent in this order, before the history:
// the system zone (who the assistant is, rules; never compacted), the task
// zone (what this request is about), the working-memory zone (conclusions,
// open sub-tasks, paths tried).
type Zone string

const (
	SystemZone  Zone = "system"
	TaskZone    Zone = "task"
	WorkingZone Zone = "working-memory"
)

// Zones lists the zones in the order they are sent.
var Zones = []Zone{SystemZone, TaskZone, WorkingZone}

// Fragment is one contribution to the system text.
type Fragment struct {
	Name     string
	Zone     Zone // empty means SystemZone
	Priority int
	Text     string
	// Dynamic, when set, is called at every assembly instead of using Text.
	Dynamic func(ctx context.Context) (string, error)
	// TakeOver drops every fragment that comes after this one.
	TakeOver bool
}

// Assembler holds the registered fragments. It is safe for concurrent use.
type Assembler struct {
	mu    sync.Mutex
	next  int
	frags map[int]Fragment
}

// New returns an empty Assembler.
func New() *Assembler { return &Assembler{frags: map[int]Fragment{}} }

// Register adds f; the returned func removes it again.
func (a *Assembler) Register(f Fragment) (unregister func()) {
	a.mu.Lock()
	id := a.next
	a.next++
	a.frags[id] = f
	a.mu.Unlock()
	return func() {
		a.mu.Lock()
		delete(a.frags, id)
		a.mu.Unlock()
	}
}

// Part is an assembled fragment.
type Part struct {
	Name string `json:"name"`
	Zone Zone   `json:"zone"`
	Text string `json:"text"`
}

// Assembly is the result: the parts in zone order (then priority), the text
// of each non-empty zone, and all of it joined (what Hash addresses).
type Assembly struct {
	Parts []Part     `json:"parts"`
	Zones []ZoneText `json:"zones"`
	Text  string     `json:"text"`
}

// ZoneText is the assembled text of one zone.
type ZoneText struct {
	Zone Zone   `json:"zone"`
	Text string `json:"text"`
}

// Hash addresses the assembled text, so an unchanged system text is stored
// once however often it is sent.
func (a Assembly) Hash() string {
	h := sha256.New()
	for _, z := range a.Zones {
		h.Write([]byte(string(z.Zone) + "\x00" + z.Text + "\x00"))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Assemble evaluates the fragments in priority order (registration order
// among equals), stopping after a take-over fragment. Empty texts are left
// out. A failing dynamic fragment fails the assembly: sending a prompt with a
// silent hole in it would be worse.
func (a *Assembler) Assemble(ctx context.Context) (Assembly, error) {
	a.mu.Lock()
	type entry struct {
		id int
		f  Fragment
	}
	entries := make([]entry, 0, len(a.frags))
	for id, f := range a.frags {
		entries = append(entries, entry{id, f})
	}
	a.mu.Unlock()
	zoneOf := func(f Fragment) int {
		z := f.Zone
		if z == "" {
			z = SystemZone
		}
		return slices.Index(Zones, z)
	}
	slices.SortFunc(entries, func(x, y entry) int {
		if zx, zy := zoneOf(x.f), zoneOf(y.f); zx != zy {
			return zx - zy
		}
		if x.f.Priority != y.f.Priority {
			return x.f.Priority - y.f.Priority
		}
		return x.id - y.id
	})
	var out Assembly
	var texts []string
	byZone := map[Zone][]string{}
	for _, e := range entries {
		zone := e.f.Zone
		if zone == "" {
			zone = SystemZone
		}
		if !slices.Contains(Zones, zone) {
			return Assembly{}, fmt.Errorf("prompt fragment %q: unknown zone %q", e.f.Name, zone)
		}
		text := e.f.Text
		if e.f.Dynamic != nil {
			t, err := e.f.Dynamic(ctx)
			if err != nil {
				return Assembly{}, fmt.Errorf("prompt fragment %q: %w", e.f.Name, err)
			}
			text = t
		}
		if text = strings.TrimSpace(text); text != "" {
			out.Parts = append(out.Parts, Part{Name: e.f.Name, Zone: zone, Text: text})
			texts = append(texts, text)
			byZone[zone] = append(byZone[zone], text)
		}
		if e.f.TakeOver {
			break
		}
	}
	for _, z := range Zones {
		if len(byZone[z]) > 0 {
			out.Zones = append(out.Zones, ZoneText{Zone: z, Text: strings.Join(byZone[z], "\n\n")})
		}
	}
	out.Text = strings.Join(texts, "\n\n")
	return out, nil
}
