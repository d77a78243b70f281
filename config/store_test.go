package config

import (
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"
)

// TestStoreSavesThenPublishesOneChangeAtATime: many writers at once (the
// notes folder and the memory panel) lose no change, a folder a user
// refuses is neither saved nor published, and a change that cannot be
// saved is not published either.
func TestStoreSavesThenPublishesOneChangeAtATime(t *testing.T) {
	dir := t.TempDir()
	if err := WriteSettings(dir, Config{Model: "kept-model"}); err != nil {
		t.Fatal(err)
	}
	// The flag's value is in use but is not the user's saved choice.
	s := NewStore(Config{DataDir: dir, Model: "flag-model"})
	var mu sync.Mutex
	var published, dropped []string
	s.OnNotesDir(func(d string) (func(bool), error) {
		return func(publish bool) {
			mu.Lock()
			defer mu.Unlock()
			if !publish {
				dropped = append(dropped, d)
				return
			}
			// Saved before it is published.
			if saved, _ := ReadSettings(dir); saved.NotesDir != d {
				t.Errorf("%s published before it was saved (file has %q)", d, saved.NotesDir)
			}
			published = append(published, d)
		}, nil
	})
	// A second user refuses one folder: the first lets its readied one go.
	s.OnNotesDir(func(d string) (func(bool), error) {
		if d == "/refused" {
			return nil, errors.New("not a folder")
		}
		return func(bool) {}, nil
	})
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			if err := s.SetNotesDir(fmt.Sprintf("/notes/%d", i)); err != nil {
				t.Error(err)
			}
		})
		wg.Go(func() {
			if err := s.SetMemory(true, i%2 == 0); err != nil {
				t.Error(err)
			}
			_ = s.Get()
		})
	}
	wg.Wait()
	if len(published) != 20 {
		t.Fatalf("%d folders published, want 20", len(published))
	}
	saved, err := ReadSettings(dir)
	if err != nil {
		t.Fatal(err)
	}
	last := published[len(published)-1]
	if saved.NotesDir != last || s.NotesDir() != last || !saved.MemoryWithoutAsking || saved.Model != "kept-model" {
		t.Fatalf("saved %+v, in use %q, last published %q", saved, s.NotesDir(), last)
	}
	if got := s.Get(); got.Model != "flag-model" || !got.MemoryWithoutAsking || got.MemoryLearn != saved.MemoryLearn {
		t.Fatalf("in use %+v, saved %+v", got, saved)
	}

	if err := s.SetNotesDir("notes"); !errors.Is(err, ErrRelativeNotesDir) || s.NotesDir() != last {
		t.Errorf("a relative folder: %v; in use %q, want %q kept", err, s.NotesDir(), last)
	}
	if err := s.SetNotesDir("/refused"); err == nil || s.NotesDir() != last {
		t.Fatalf("a refused folder: %v, in use %q", err, s.NotesDir())
	}
	if saved, _ := ReadSettings(dir); saved.NotesDir != last {
		t.Fatalf("a refused folder was saved: %q", saved.NotesDir)
	}
	if !slices.Equal(dropped, []string{"/refused"}) {
		t.Fatalf("readied folders let go: %v, want the refused one once", dropped)
	}

	gone := NewStore(Config{DataDir: filepath.Join(dir, "missing")})
	var finished []bool
	gone.OnNotesDir(func(string) (func(bool), error) { return func(p bool) { finished = append(finished, p) }, nil })
	if err := gone.SetNotesDir("/notes/x"); err == nil || !slices.Equal(finished, []bool{false}) || gone.NotesDir() != "" {
		t.Fatalf("an unsaved folder: %v, finished %v (want let go once), in use %q", err, finished, gone.NotesDir())
	}
	if err := gone.SetMemory(true, true); err == nil || gone.Get().MemoryWithoutAsking {
		t.Fatalf("unsaved memory settings: %v, in use %+v", err, gone.Get())
	}
}

func TestSetEmbedModelIsSavedAndReadBack(t *testing.T) {
	for _, tc := range []struct{ set, want string }{
		{"all-minilm", "all-minilm"},
		{"", NoEmbedModel}, // none, not the default
		{NoEmbedModel, NoEmbedModel},
	} {
		dir := t.TempDir()
		c, err := Load(flag.NewFlagSet("t", flag.ContinueOnError), nil, envOf(map[string]string{"QUIRE_DATA_DIR": dir}))
		if err != nil {
			t.Fatal(err)
		}
		s := NewStore(c)
		if err := s.SetEmbedModel(tc.set); err != nil {
			t.Fatal(err)
		}
		again, err := Load(flag.NewFlagSet("t", flag.ContinueOnError), nil, envOf(map[string]string{"QUIRE_DATA_DIR": dir}))
		if err != nil {
			t.Fatal(err)
		}
		if s.Get().EmbedModel != tc.want || again.EmbedModel != tc.want {
			t.Errorf("SetEmbedModel(%q): now %q, read back %q; want %q", tc.set, s.Get().EmbedModel, again.EmbedModel, tc.want)
		}
	}
}
