package skills

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
)

// shipped holds the skills that come with Quire, one folder each.
//
//go:embed builtin
var shipped embed.FS

// Builtin is the folder of the skills shipped in the binary.
func Builtin() fs.FS {
	sub, err := fs.Sub(shipped, "builtin")
	if err != nil {
		panic(fmt.Sprintf("skills: the embedded folder is missing: %v", err)) // a build fault, not input
	}
	return sub
}

// Source says where a skill comes from.
type Source string

const (
	FromBuiltin Source = "builtin" // shipped in the binary
	FromUser    Source = "user"    // a folder in <data dir>/skills
	// FromEvolution is a skill candidate the user approved and activated
	// in the Evolution panel: its SKILL.md alone, kept in the log.
	FromEvolution Source = "evolution"
)

// Evolved is where the activated skill candidates come from (evolve's
// store; assembly wires it). It is asked whenever the catalog is, so
// an activation reaches the next run and a rollback leaves it out of the
// next run, as a folder dropped in or removed does.
type Evolved interface {
	ActiveSkills(ctx context.Context) []Skill
}

// MaxUserSkills bounds how many folders of the user's skills folder are read.
const MaxUserSkills = 64

// Servers is what the catalog needs of the MCP client: whether a server is
// running now. assembly wires it to the MCP client; nil, no server is.
type Servers interface {
	ServerRunning(name string) bool
}

// State is what availability is judged against, read when it is asked.
type State struct {
	Disabled []string // names the user turned off (settings.json)
	NotesDir string   // "" when no notes folder is chosen
	// ModelCaps are the chat model's capabilities as Ollama names them;
	// nil when they are not known (Ollama is down), in which case a model
	// requirement is not held against the skill (the run finds out).
	ModelCaps []string
	Servers   Servers
}

// Entry is one skill as Settings and the model see it.
type Entry struct {
	Skill
	Source Source
	// Replaces is true for a user skill named like a shipped one: the
	// user's wins, so a shipped skill can be changed by copying its folder
	// into the skills folder and editing it.
	Replaces bool
	Enabled  bool
	// Unavailable says why an enabled skill is not offered ("" when it is).
	Unavailable string
	read        func(name string) ([]byte, error)
}

// Broken is a folder of the user's skills folder that is not a valid skill,
// with the sentence saying what to fix.
type Broken struct {
	Folder string
	Reason string
}

// Catalog is where skills live: the shipped ones and the user's folder,
// read afresh each time it is asked, so a folder dropped in is seen by the
// next run without a restart.
type Catalog struct {
	builtin []Skill
	bfs     fs.FS
	userDir string
	state   func(context.Context) State
	log     *slog.Logger
	evolved atomic.Pointer[Evolved]
}

// SetEvolved lists the activated skill candidates among the skills: each
// wins over a shipped or user skill of its name (Replaces), since the user
// activated that version by name, and is turned off in Settings like any
// other.
func (c *Catalog) SetEvolved(e Evolved) { c.evolved.Store(&e) }

// New reads the shipped skills of builtin (a fault in one is an error: they
// are tested) and keeps userDir for the user's. state is asked for the
// settings and the world whenever availability is judged.
func New(builtin fs.FS, userDir string, state func(context.Context) State, log *slog.Logger) (*Catalog, error) {
	c := &Catalog{bfs: builtin, userDir: userDir, state: state, log: log}
	dirs, err := fs.ReadDir(builtin, ".")
	if err != nil {
		return nil, fmt.Errorf("read the shipped skills: %w", err)
	}
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		sub, err := fs.Sub(builtin, d.Name())
		if err != nil {
			return nil, err
		}
		sk, err := Parse(sub)
		if err != nil {
			return nil, fmt.Errorf("the shipped skill %s: %w", d.Name(), err)
		}
		if sk.Name != d.Name() {
			return nil, fmt.Errorf("the shipped skill in %s is named %s", d.Name(), sk.Name)
		}
		c.builtin = append(c.builtin, sk)
	}
	return c, nil
}

// UserDir is the folder the user's skills live in.
func (c *Catalog) UserDir() string { return c.userDir }

// List is every skill (shipped and the user's, by name), with whether it is
// enabled and why it is unavailable, and the user's folders that are not
// valid skills.
func (c *Catalog) List(ctx context.Context) ([]Entry, []Broken) {
	st := c.state(ctx)
	byName := map[string]Entry{}
	for _, sk := range c.builtin {
		sub, _ := fs.Sub(c.bfs, sk.Name)
		byName[sk.Name] = Entry{Skill: sk, Source: FromBuiltin, read: embedFS(sub)}
	}
	user, broken := c.readUser()
	for _, e := range user {
		_, e.Replaces = byName[e.Name]
		byName[e.Name] = e
	}
	if ev := c.evolved.Load(); ev != nil {
		for _, sk := range (*ev).ActiveSkills(ctx) {
			_, replaces := byName[sk.Name]
			byName[sk.Name] = Entry{Skill: sk, Source: FromEvolution, Replaces: replaces, read: noFiles}
		}
	}
	out := make([]Entry, 0, len(byName))
	for _, e := range byName {
		e.Enabled = !slices.Contains(st.Disabled, e.Name)
		e.Unavailable = unavailable(e.Skill, st)
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b Entry) int { return strings.Compare(a.Name, b.Name) })
	return out, broken
}

// Offered is the skills the model is offered now: enabled and available.
func (c *Catalog) Offered(ctx context.Context) []Entry {
	all, _ := c.List(ctx)
	return slices.DeleteFunc(all, func(e Entry) bool { return !e.Enabled || e.Unavailable != "" })
}

// Find is the skill of that name, as List has it.
func (c *Catalog) Find(ctx context.Context, name string) (Entry, bool) {
	all, _ := c.List(ctx)
	i := slices.IndexFunc(all, func(e Entry) bool { return e.Name == name })
	if i < 0 {
		return Entry{}, false
	}
	return all[i], true
}

// readUser reads the user's skills folder: each sub-folder is a skill,
// at most MaxUserSkills of them (by name); a missing folder is none.
func (c *Catalog) readUser() ([]Entry, []Broken) {
	if c.userDir == "" {
		return nil, nil
	}
	dirs, err := os.ReadDir(c.userDir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			c.log.Warn("reading the skills folder", "dir", c.userDir, "err", err)
		}
		return nil, nil
	}
	var out []Entry
	var broken []Broken
	n := 0
	for _, d := range dirs {
		if !d.IsDir() || strings.HasPrefix(d.Name(), ".") {
			continue // a symlinked folder is not a folder here: not followed
		}
		if n++; n > MaxUserSkills {
			broken = append(broken, Broken{Folder: d.Name(), Reason: fmt.Sprintf("Quire reads at most %d skills from its skills folder: remove ones you do not use.", MaxUserSkills)})
			continue
		}
		dir := filepath.Join(c.userDir, d.Name())
		sk, err := ParseDir(dir)
		if err != nil {
			broken = append(broken, Broken{Folder: d.Name(), Reason: err.Error()})
			continue
		}
		out = append(out, Entry{Skill: sk, Source: FromUser, read: userFS(dir)})
	}
	return out, broken
}

// userFS reads a user skill's files through an os.Root opened for each
// read, so no symlink leads out of the folder and no handle stays open.
func userFS(dir string) func(string) ([]byte, error) {
	return func(name string) ([]byte, error) {
		root, err := os.OpenRoot(dir)
		if err != nil {
			return nil, err
		}
		defer root.Close()
		return readRegular(root.FS(), name, MaxFileSize)
	}
}

// noFiles reads an evolved skill's files: it has none (a skill candidate
// is its SKILL.md alone, evolve.checkSkill).
func noFiles(string) ([]byte, error) { return nil, fs.ErrNotExist }

func embedFS(fsys fs.FS) func(string) ([]byte, error) {
	return func(name string) ([]byte, error) { return readRegular(fsys, name, MaxFileSize) }
}

// unavailable says why a skill cannot be offered now, as a sentence saying
// what to do; "" when it can.
func unavailable(sk Skill, st State) string {
	for _, c := range sk.Requires.Model {
		if st.ModelCaps != nil && !slices.Contains(st.ModelCaps, string(c)) {
			switch c {
			case CapTools:
				return "Needs a model that takes tools: choose one in Settings → Model."
			default:
				return fmt.Sprintf("Needs a model with %s: choose one in Settings → Model.", c)
			}
		}
	}
	for _, s := range sk.Requires.MCP {
		if st.Servers == nil || !st.Servers.ServerRunning(s) {
			return fmt.Sprintf("Needs the MCP server '%s', which is not running: start it in Settings → Extensions.", s)
		}
	}
	if sk.Requires.Notes && st.NotesDir == "" {
		return "Needs a notes folder: choose one in Settings."
	}
	return ""
}
