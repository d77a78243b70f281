package config

import (
	"errors"
	"fmt"
	"path/filepath"
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
	mu    sync.Mutex // held across save and publish, so changes never interleave
	cfg   Config
	notes []func(dir string) (finish func(publish bool), err error)
}

// NewStore owns cfg; its DataDir is where settings.json is saved.
func NewStore(cfg Config) *Store { return &Store{cfg: cfg} }

// Get is the settings in use.
func (s *Store) Get() Config {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.cfg
	c.DisabledTools = append([]string(nil), c.DisabledTools...)
	return c
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
	return WriteSettings(s.cfg.DataDir, saved)
}
