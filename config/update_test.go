package config

import (
	"errors"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func ptr[T any](v T) *T { return &v }

// screen is a Config as a start resolves it, with every screen setting valid.
func screen(dir string) Config {
	return Config{DataDir: dir, OllamaHost: DefaultOllamaHost, Model: DefaultModel, EmbedModel: DefaultEmbedModel,
		NumCtx: DefaultNumCtx, Profile: DefaultProfile, Theme: DefaultTheme}
}

// TestUpdateBoundsEverySetting: each screen setting inside its bound is
// saved and published; one outside is a *FieldError naming the setting,
// and nothing is saved or published.
func TestUpdateBoundsEverySetting(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(*Config)
		field  string // "" when the change is valid
		reason string // part of the refusal
	}{
		{"an address", func(c *Config) { c.OllamaHost = "http://10.0.0.2:11434" }, "", ""},
		{"an empty address", func(c *Config) { c.OllamaHost = "" }, "ollamaHost", "empty"},
		{"an address with a space", func(c *Config) { c.OllamaHost = "http://host :1" }, "ollamaHost", "spaces"},
		{"a long address", func(c *Config) { c.OllamaHost = "http://" + strings.Repeat("a", MaxHost) }, "ollamaHost", "at most 512"},
		{"a chat model", func(c *Config) { c.Model = "llama3.2:1b" }, "", ""},
		{"LM Studio on this machine", func(c *Config) { c.Runner, c.RunnerURL = RunnerOpenAI, "http://127.0.0.1:1234/v1" }, "", ""},
		{"llama.cpp at localhost", func(c *Config) { c.Runner, c.RunnerURL = RunnerOpenAI, "localhost:8080" }, "", ""},
		{"a runner on another machine", func(c *Config) { c.Runner, c.RunnerURL = RunnerOpenAI, "http://10.0.0.2:8000/v1" },
			"runnerUrl", "not on this machine: your conversations"},
		{"a runner on another machine, chosen", func(c *Config) {
			c.Runner, c.RunnerURL, c.RunnerRemote = RunnerOpenAI, "http://10.0.0.2:8000/v1", true
		}, "", ""},
		{"an OpenAI-compatible runner without an address", func(c *Config) { c.Runner = RunnerOpenAI }, "runnerUrl", "empty"},
		{"a runner address without a port", func(c *Config) { c.Runner, c.RunnerURL = RunnerOpenAI, "http://127.0.0.1/v1" }, "runnerUrl", "host:port"},
		{"a runner address of another scheme", func(c *Config) { c.Runner, c.RunnerURL = RunnerOpenAI, "ftp://127.0.0.1:21" }, "runnerUrl", "host:port"},
		{"an unknown runner", func(c *Config) { c.Runner = "vllm" }, "runner", `"ollama" or "openai"`},
		{"a chat model with a newline", func(c *Config) { c.Model = "qwen3\n" }, "model", "control"},
		{"a long chat model", func(c *Config) { c.Model = strings.Repeat("m", MaxModelName+1) }, "model", "at most 256"},
		{"an embedding model", func(c *Config) { c.EmbedModel = "mxbai-embed-large" }, "", ""},
		{"an embedding model with a tab", func(c *Config) { c.EmbedModel = "a\tb" }, "embedModel", "spaces"},
		{"the shortest context", func(c *Config) { c.NumCtx = MinNumCtx }, "", ""},
		{"a context too short", func(c *Config) { c.NumCtx = MinNumCtx - 1 }, "numCtx", "between 1024 and 1048576"},
		{"a context too long", func(c *Config) { c.NumCtx = MaxNumCtx + 1 }, "numCtx", "between"},
		{"temperature 0", func(c *Config) { c.Temperature = ptr(0.0) }, "", ""},
		{"temperature 2", func(c *Config) { c.Temperature = ptr(2.0) }, "", ""},
		{"temperature below 0", func(c *Config) { c.Temperature = ptr(-0.1) }, "temperature", "between 0 and 2"},
		{"temperature above 2", func(c *Config) { c.Temperature = ptr(2.01) }, "temperature", "between 0 and 2"},
		{"temperature NaN", func(c *Config) { c.Temperature = ptr(math.NaN()) }, "temperature", "between 0 and 2"},
		{"thinking off", func(c *Config) { c.Think = ptr(false) }, "", ""},
		{"text about the user", func(c *Config) { c.AboutYou = "I keep my notes in French.\nCall me Ada." }, "", ""},
		{"the longest text about the user", func(c *Config) { c.AboutYou = strings.Repeat("é", MaxAboutYou) }, "", ""},
		{"too long a text about the user", func(c *Config) { c.AboutYou = strings.Repeat("é", MaxAboutYou+1) }, "aboutYou", "at most 2000 characters; it has 2001"},
		{"text about the user that is not UTF-8", func(c *Config) { c.AboutYou = "\xff" }, "aboutYou", "UTF-8"},
		{"text about the user with a tab", func(c *Config) { c.AboutYou = "Name:\tAda" }, "", ""},
		{"text about the user with a NUL", func(c *Config) { c.AboutYou = "Ada\x00" }, "aboutYou", "U+0000"},
		{"text about the user with an escape sequence", func(c *Config) { c.AboutYou = "\x1b[2JAda" }, "aboutYou", "U+001B"},
		{"text about the user with a right-to-left override", func(c *Config) { c.AboutYou = "Ada \u202egnp.exe" }, "aboutYou", "U+202E"},
		{"the write profile", func(c *Config) { c.Profile = "write" }, "", ""},
		{"an unknown profile", func(c *Config) { c.Profile = "yolo" }, "profile", "minimal, ask, write"},
		{"the dark theme", func(c *Config) { c.Theme = "dark" }, "", ""},
		{"an unknown theme", func(c *Config) { c.Theme = "Dark" }, "theme", "system, light, dark"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			s := NewStore(screen(dir))
			published := 0
			s.OnChange(func(Config) { published++ })
			err := s.Update(func(cfg *Config) error { c.change(cfg); return nil })
			_, statErr := os.Stat(filepath.Join(dir, SettingsFile))
			if c.field == "" {
				if err != nil || published != 1 || statErr != nil {
					t.Fatalf("Update: %v; published %d times; settings file: %v", err, published, statErr)
				}
				want := screen(dir)
				c.change(&want)
				saved, err := ReadSettings(dir)
				if err != nil {
					t.Fatal(err)
				}
				if got := s.Get(); got.Validate() != nil || !sameScreen(got, want) || !sameScreen(merge(saved, screen(dir)), want) {
					t.Errorf("in use %+v, saved %+v, want %+v", got, saved, want)
				}
				return
			}
			var fe *FieldError
			if !errors.As(err, &fe) || !errors.Is(err, ErrInvalidSetting) || fe.Field != c.field || !strings.Contains(fe.Reason, c.reason) {
				t.Fatalf("Update: %v, want a %s error saying %q", err, c.field, c.reason)
			}
			if published != 0 || !errors.Is(statErr, os.ErrNotExist) || !sameScreen(s.Get(), screen(dir)) {
				t.Errorf("a refused change was published %d times or saved (%v)", published, statErr)
			}
		})
	}
}

// sameScreen compares the screen's settings of two Configs.
func sameScreen(a, b Config) bool {
	return a.OllamaHost == b.OllamaHost && a.Model == b.Model && a.EmbedModel == b.EmbedModel && a.NumCtx == b.NumCtx &&
		equalPtr(a.Temperature, b.Temperature) && equalPtr(a.Think, b.Think) && a.AboutYou == b.AboutYou &&
		a.Profile == b.Profile && a.Theme == b.Theme && a.Runner == b.Runner && a.RunnerURL == b.RunnerURL && a.RunnerRemote == b.RunnerRemote
}

// merge fills what the file leaves unset with base's values, as a start does.
func merge(saved, base Config) Config {
	pick := func(a, b string) string { return first(a, b) }
	base.OllamaHost, base.Model, base.EmbedModel = pick(saved.OllamaHost, base.OllamaHost), pick(saved.Model, base.Model), pick(saved.EmbedModel, base.EmbedModel)
	base.Profile, base.Theme, base.AboutYou = pick(saved.Profile, base.Profile), pick(saved.Theme, base.Theme), saved.AboutYou
	base.Runner, base.RunnerURL, base.RunnerRemote = pick(saved.Runner, base.Runner), saved.RunnerURL, saved.RunnerRemote
	if saved.NumCtx > 0 {
		base.NumCtx = saved.NumCtx
	}
	base.Temperature, base.Think = saved.Temperature, saved.Think
	return base
}

// TestUpdateSavesOnlyWhatItChanged: a model given by a flag stays out of
// the file when the user changes something else; keys this Quire does not
// know are kept; the change is saved before any user hears of it.
func TestUpdateSavesOnlyWhatItChanged(t *testing.T) {
	dir := t.TempDir()
	file := `{"model": "saved-model", "futureSetting": {"x": 1}, "notesDir": "/notes"}`
	if err := os.WriteFile(filepath.Join(dir, SettingsFile), []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(flag.NewFlagSet("t", flag.ContinueOnError), []string{"-model", "flag-model"}, envOf(map[string]string{"QUIRE_DATA_DIR": dir}))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Pinned["model"] != "-model" || cfg.Pinned["ollamaHost"] != "" {
		t.Fatalf("pinned %v, want model by -model only", cfg.Pinned)
	}
	s := NewStore(cfg)
	s.OnChange(func(c Config) {
		if saved, _ := ReadSettings(dir); saved.Theme != c.Theme {
			t.Errorf("published theme %q before it was saved (file: %q)", c.Theme, saved.Theme)
		}
	})
	if err := s.Update(func(c *Config) error { c.Theme = "dark"; return nil }); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, SettingsFile))
	for _, want := range []string{`"model": "saved-model"`, `"futureSetting"`, `"x": 1`, `"theme": "dark"`, `"notesDir": "/notes"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("settings.json lost %s:\n%s", want, b)
		}
	}
	if strings.Contains(string(b), "flag-model") {
		t.Errorf("the flag's model was saved:\n%s", b)
	}
	// Unsetting a setting removes its key.
	if err := s.Update(func(c *Config) error { c.Temperature = ptr(0.5); return nil }); err != nil {
		t.Fatal(err)
	}
	if err := s.Update(func(c *Config) error { c.Temperature = nil; return nil }); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, SettingsFile)); strings.Contains(string(b), "temperature") {
		t.Errorf("an unset temperature is still in the file:\n%s", b)
	}
}

// TestABadSettingsFileLosesNothing: a settings.json that is not JSON, or
// holds a value out of bounds, stops the start with a sentence naming the
// file and the setting, and an Update over a file that went bad refuses to
// save, leaving the file as it was and publishing nothing.
func TestABadSettingsFileLosesNothing(t *testing.T) {
	for _, c := range []struct{ file, want string }{
		{`{"model": "x",`, "not valid JSON"},
		{`{"temperature": 7}`, "temperature: the temperature must be between 0 and 2"},
		{`{"theme": "neon"}`, `theme: the theme must be one of system, light, dark; "neon" is not`},
		{`{"numCtx": 12}`, "numCtx"},
		{`{"aboutYou": "` + strings.Repeat("a", MaxAboutYou+1) + `"}`, "aboutYou"},
	} {
		dir := t.TempDir()
		path := filepath.Join(dir, SettingsFile)
		if err := os.WriteFile(path, []byte(c.file), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := Load(flag.NewFlagSet("t", flag.ContinueOnError), nil, envOf(map[string]string{"QUIRE_DATA_DIR": dir}))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: Load = %v, want an error naming %s and saying %q", c.file, err, path, c.want)
		}
		if b, _ := os.ReadFile(path); string(b) != c.file {
			t.Errorf("%s: the file became %s", c.file, b)
		}
	}

	_, err := Load(flag.NewFlagSet("t", flag.ContinueOnError), []string{"-num-ctx", "100"}, envOf(map[string]string{"QUIRE_DATA_DIR": t.TempDir()}))
	if err == nil || !strings.HasPrefix(err.Error(), "-num-ctx: numCtx: the context length must be between") {
		t.Errorf("-num-ctx 100: Load = %v, want the flag named", err)
	}

	dir := t.TempDir()
	s := NewStore(screen(dir))
	published := false
	s.OnChange(func(Config) { published = true })
	path := filepath.Join(dir, SettingsFile)
	bad := []byte(`{"model": "mine", oops`)
	if err := os.WriteFile(path, bad, 0o600); err != nil {
		t.Fatal(err)
	}
	err = s.Update(func(c *Config) error { c.Theme = "light"; return nil })
	if !errors.Is(err, ErrBadSettings) || published || s.Get().Theme != DefaultTheme {
		t.Errorf("Update over a bad file: %v (published %v, theme %q)", err, published, s.Get().Theme)
	}
	if b, _ := os.ReadFile(path); string(b) != string(bad) {
		t.Errorf("the bad file became %s", b)
	}
}

// TestUpdateLeavesOtherOwnersSettingsAlone: the notes folder and the memory
// switches have their own setters (with their own rules), so an Update
// that touches them is refused.
func TestUpdateLeavesOtherOwnersSettingsAlone(t *testing.T) {
	for name, change := range map[string]func(*Config){
		"notes folder": func(c *Config) { c.NotesDir = "/elsewhere" },
		"memory":       func(c *Config) { c.MemoryWithoutAsking = true },
		"data folder":  func(c *Config) { c.DataDir = "/tmp" },
		"tool list":    func(c *Config) { c.DisabledTools = []string{"x"} },
	} {
		s := NewStore(screen(t.TempDir()))
		if err := s.Update(func(c *Config) error { change(c); return nil }); !errors.Is(err, ErrNotUpdated) {
			t.Errorf("%s: Update = %v, want ErrNotUpdated", name, err)
		}
	}
	// The change's own error comes back as it is.
	stop := errors.New("no")
	if err := NewStore(screen(t.TempDir())).Update(func(*Config) error { return stop }); err != stop {
		t.Errorf("Update = %v, want the change's error", err)
	}
}

// TestUpdatesAndNotesFolderChangesInterleaveSafely: many Updates and
// folder changes at once lose no change, and the users hear the changes in
// the order they were saved.
func TestUpdatesAndNotesFolderChangesInterleaveSafely(t *testing.T) {
	dir := t.TempDir()
	s := NewStore(screen(dir))
	var mu sync.Mutex
	var heard []int
	s.OnChange(func(c Config) {
		mu.Lock()
		heard = append(heard, c.NumCtx)
		mu.Unlock()
	})
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			if err := s.Update(func(c *Config) error { c.NumCtx = c.NumCtx + 1; return nil }); err != nil {
				t.Error(err)
			}
		})
		wg.Go(func() {
			if err := s.SetNotesDir("/notes"); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	for i, n := range heard {
		if n != DefaultNumCtx+i+1 {
			t.Fatalf("heard %v, want each change once, in order", heard)
		}
	}
	saved, err := ReadSettings(dir)
	if err != nil || saved.NumCtx != DefaultNumCtx+20 || saved.NotesDir != "/notes" || len(heard) != 20 {
		t.Errorf("saved %+v (%v) after 20 updates; heard %d", saved, err, len(heard))
	}
}
