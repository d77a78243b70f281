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

// Fragment is one contribution to the system text.
type Fragment struct {
	Name     string
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
	Text string `json:"text"`
}

// Assembly is the result: the parts in order and their joined text.
type Assembly struct {
	Parts []Part `json:"parts"`
	Text  string `json:"text"`
}

// Hash addresses the assembled text, so an unchanged system text is stored
// once however often it is sent.
func (a Assembly) Hash() string {
	sum := sha256.Sum256([]byte(a.Text))
	return hex.EncodeToString(sum[:])
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
	slices.SortFunc(entries, func(x, y entry) int {
		if x.f.Priority != y.f.Priority {
			return x.f.Priority - y.f.Priority
		}
		return x.id - y.id
	})
	var out Assembly
	var texts []string
	for _, e := range entries {
		text := e.f.Text
		if e.f.Dynamic != nil {
			t, err := e.f.Dynamic(ctx)
			if err != nil {
				return Assembly{}, fmt.Errorf("prompt fragment %q: %w", e.f.Name, err)
			}
			text = t
		}
		if text = strings.TrimSpace(text); text != "" {
			out.Parts = append(out.Parts, Part{Name: e.f.Name, Text: text})
			texts = append(texts, text)
		}
		if e.f.TakeOver {
			break
		}
	}
	out.Text = strings.Join(texts, "\n\n")
	return out, nil
}
