package config

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sync"
)

// ErrRelativeNotesDir: a notes folder given without its full path. A host
// has no working directory the user could mean, so Quire never guesses one.
var ErrRelativeNotesDir = errors.New("the notes folder must be given as a full path")

// Store owns the settings while Quire runs. It starts from a Config that
// Load resolved (defaults < settings.json < env < flags) and is the one
// writer of settings.json: a change is saved first and only then published
// (to Get and to the part that uses it), so what runs is never ahead of
// what the next start reads. It is safe for concurrent use; changes are
// applied one at a time.
type Store struct {
	mu      sync.Mutex // held across save and publish, so changes never interleave
	cfg     Config
	notes   []func(dir string) (finish func(publish bool), err error)
	changes []func(Config)
}

// NewStore owns cfg; its DataDir is where settings.json is saved. An
// unset profile or theme is the default (a Config built in code, not
// resolved, leaves them out).
func NewStore(cfg Config) *Store {
	cfg.Profile, cfg.Theme = first(cfg.Profile, DefaultProfile), first(cfg.Theme, DefaultTheme)
	return &Store{cfg: cfg}
}

// Get is the settings in use.
func (s *Store) Get() Config {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cfg.clone()
}

// clone copies c deep enough that the copy's changes never reach c.
func (c Config) clone() Config {
	c.DisabledTools = append([]string(nil), c.DisabledTools...)
	c.Skills.Disabled = append([]string(nil), c.Skills.Disabled...)
	c.Temperature = clonePtr(c.Temperature)
	c.Think = clonePtr(c.Think)
	c.Pinned = maps.Clone(c.Pinned)
	c.MCP = c.MCP.clone()
	return c
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// NotesDir is the notes folder in use ("" until the user chooses one).
func (s *Store) NotesDir() string { return s.Get().NotesDir }

// OnNotesDir registers a user of the notes folder. When the folder changes,
// ready is called first: it may refuse the folder (nothing is saved then)
// or return finish, which is called exactly once: finish(true) once the
// folder is saved, finish(false) when another user refused it or it could
// not be saved, so what ready opened is let go.
func (s *Store) OnNotesDir(ready func(dir string) (finish func(publish bool), err error)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.notes = append(s.notes, ready)
}

// SetNotesDir changes the notes folder: every user readies it (any may
// refuse it), then it is saved in settings.json, then published.
func (s *Store) SetNotesDir(dir string) error {
	if dir != "" && !filepath.IsAbs(dir) {
		return fmt.Errorf("%w, such as /home/you/notes; %q is relative", ErrRelativeNotesDir, dir)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var readied []func(bool)
	finish := func(publish bool) {
		for _, f := range readied {
			f(publish)
		}
	}
	for _, ready := range s.notes {
		f, err := ready(dir)
		if err != nil {
			finish(false)
			return err
		}
		readied = append(readied, f)
	}
	if err := s.save(func(saved *Config) { saved.NotesDir = dir }); err != nil {
		finish(false)
		return fmt.Errorf("the notes folder was not changed: it could not be saved: %w", err)
	}
	s.cfg.NotesDir = dir
	finish(true)
	return nil
}

// SetMemory saves the memory panel's settings: whether Quire remembers
// without asking, and whether the model is asked after each run.
func (s *Store) SetMemory(withoutAsking, learn bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.save(func(saved *Config) { saved.MemoryWithoutAsking, saved.MemoryLearn = withoutAsking, learn }); err != nil {
		return err
	}
	s.cfg.MemoryWithoutAsking, s.cfg.MemoryLearn = withoutAsking, learn
	return nil
}

// MCP is the MCP tools' settings in use: the call deadline (0 in a
// Config built in code: the default) and the user's choice per tool.
func (s *Store) MCP() MCPSettings { return s.Get().MCP.clone() }

// SetMCPTool saves the user's choice for one MCP tool (replacing the one
// for the same server and tool), checked against the bounds first.
func (s *Store) SetMCPTool(t MCPToolSetting) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	put := func(m *MCPSettings) {
		m.Tools = slices.DeleteFunc(slices.Clone(m.Tools), func(o MCPToolSetting) bool { return o.Server == t.Server && o.Tool == t.Tool })
		if t.Disabled || t.Effects != "" {
			m.Tools = append(m.Tools, t)
		}
	}
	next := s.cfg.MCP.clone()
	put(&next)
	if err := next.validate(); err != nil {
		return err
	}
	if err := s.save(func(saved *Config) { put(&saved.MCP) }); err != nil {
		return err
	}
	s.cfg.MCP = next
	return nil
}

// SetEvolveLearn saves whether the model is asked for candidate
// improvements after a run that gave signals.
func (s *Store) SetEvolveLearn(on bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.save(func(saved *Config) { saved.EvolveLearn = on }); err != nil {
		return err
	}
	s.cfg.EvolveLearn = on
	return nil
}

// SetSkillEnabled turns one skill on or off for the runs that start later
// (its name leaves or joins skills.disabled), then tells every OnChange
// user. Whether a skill of that name is installed is the caller's to check.
func (s *Store) SetSkillEnabled(name string, on bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	next := s.cfg.clone()
	next.Skills.Disabled = slices.DeleteFunc(next.Skills.Disabled, func(n string) bool { return n == name })
	if !on {
		next.Skills.Disabled = append(next.Skills.Disabled, name)
		slices.Sort(next.Skills.Disabled)
	}
	if err := next.Skills.validate(); err != nil {
		return err
	}
	if err := s.save(func(saved *Config) { saved.Skills = next.Skills }); err != nil {
		return fmt.Errorf("the skill was not changed: the settings could not be saved: %w", err)
	}
	s.cfg = next
	for _, f := range s.changes {
		f(next.clone())
	}
	return nil
}

// ErrNotUpdated: Update was asked to change what it does not own (the
// data folder, the notes folder — SetNotesDir —, the memory panel's
// settings — SetMemory —, the settings file's own lists and limits).
var ErrNotUpdated = errors.New("this setting is not changed here")

// OnChange registers a part that uses the Settings screen's choices: after
// each Update is saved, f is given the settings now in use, in the order
// the changes were made. f must not call the Store.
func (s *Store) OnChange(f func(Config)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.changes = append(s.changes, f)
}

// Update changes the Settings screen's choices (the Ollama address, the
// models, the context length, temperature, thinking, the text about the
// user, the permission profile, the theme): change edits a copy of the
// settings in use; the result is checked against every bound (Validate: a
// *FieldError), then only what change altered is saved in settings.json
// (what came from env or flags stays out of the file), then it is published
// to Get and to every OnChange user. A refused or unsaved change publishes
// nothing. The notes folder is SetNotesDir's, the memory panel's switches
// SetMemory's.
func (s *Store) Update(change func(*Config) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	next := s.cfg.clone()
	if err := change(&next); err != nil {
		return err
	}
	if err := owned(s.cfg, next); err != nil {
		return err
	}
	if err := next.Validate(); err != nil {
		return err
	}
	before := s.cfg
	if err := s.save(func(saved *Config) { copyChanged(saved, before, next) }); err != nil {
		return fmt.Errorf("the settings were not changed: they could not be saved: %w", err)
	}
	s.cfg = next
	for _, f := range s.changes {
		f(next.clone())
	}
	return nil
}

// owned refuses a change to what Update does not own.
func owned(before, after Config) error {
	same := before.DataDir == after.DataDir && before.NotesDir == after.NotesDir &&
		before.MemoryWithoutAsking == after.MemoryWithoutAsking && before.MemoryLearn == after.MemoryLearn &&
		before.Documents == after.Documents && before.Batch == after.Batch && slices.Equal(before.DisabledTools, after.DisabledTools) &&
		slices.Equal(before.MCP.Tools, after.MCP.Tools) &&
		slices.Equal(before.Skills.Disabled, after.Skills.Disabled) &&
		maps.Equal(before.Pinned, after.Pinned)
	if !same {
		return fmt.Errorf("%w: the notes folder, the memory settings and the settings file's lists have their own controls", ErrNotUpdated)
	}
	return nil
}

// copyChanged puts into saved each of the screen's settings that differs
// between before and after.
func copyChanged(saved *Config, before, after Config) {
	set := func(changed bool, apply func()) {
		if changed {
			apply()
		}
	}
	set(before.OllamaHost != after.OllamaHost, func() { saved.OllamaHost = after.OllamaHost })
	set(before.Model != after.Model, func() { saved.Model = after.Model })
	set(before.Runner != after.Runner, func() { saved.Runner = after.Runner })
	set(before.RunnerURL != after.RunnerURL, func() { saved.RunnerURL = after.RunnerURL })
	set(before.RunnerRemote != after.RunnerRemote, func() { saved.RunnerRemote = after.RunnerRemote })
	set(before.EmbedModel != after.EmbedModel, func() { saved.EmbedModel = after.EmbedModel })
	set(before.NumCtx != after.NumCtx, func() { saved.NumCtx = after.NumCtx })
	set(!equalPtr(before.Temperature, after.Temperature), func() { saved.Temperature = clonePtr(after.Temperature) })
	set(!equalPtr(before.Think, after.Think), func() { saved.Think = clonePtr(after.Think) })
	set(before.AboutYou != after.AboutYou, func() { saved.AboutYou = after.AboutYou })
	set(before.Profile != after.Profile, func() { saved.Profile = after.Profile })
	set(before.Theme != after.Theme, func() { saved.Theme = after.Theme })
	set(before.MCP.CallTimeoutSeconds != after.MCP.CallTimeoutSeconds, func() { saved.MCP.CallTimeoutSeconds = after.MCP.CallTimeoutSeconds })
}

func equalPtr[T comparable](a, b *T) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}

// SetEmbedModel saves the embedding model search_docs uses ("" or
// NoEmbedModel for none: the built-in offline embedder), then makes it the
// current setting. Re-embedding the documents is the library's, which
// calls this.
func (s *Store) SetEmbedModel(model string) error {
	if model == "" {
		model = NoEmbedModel
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.save(func(saved *Config) { saved.EmbedModel = model }); err != nil {
		return err
	}
	s.cfg.EmbedModel = model
	return nil
}

// save rewrites settings.json with one change, keeping everything else the
// file holds (and nothing that came from env or flags). s.mu is held.
func (s *Store) save(change func(*Config)) error {
	saved, err := ReadSettings(s.cfg.DataDir)
	if err != nil {
		return err
	}
	change(&saved)
	return writeKeeping(s.cfg.DataDir, saved)
}
