package config

import (
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func envOf(m map[string]string) Env {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestPrecedence(t *testing.T) {
	dir := t.TempDir()
	if err := WriteSettings(dir, Config{Model: "from-settings", OllamaHost: "settings:1", NumCtx: 2048}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name      string
		args      []string
		env       map[string]string
		wantModel string
		wantHost  string
		wantCtx   int
	}{
		{"settings over defaults", nil, nil, "from-settings", "settings:1", 2048},
		{"env over settings", nil, map[string]string{"QUIRE_MODEL": "env-model", "OLLAMA_HOST": "env:2", "QUIRE_NUM_CTX": "4096"}, "env-model", "env:2", 4096},
		{"flags over env", []string{"-model", "flag-model", "-ollama-host", "flag:3", "-num-ctx", "16384"},
			map[string]string{"QUIRE_MODEL": "env-model", "OLLAMA_HOST": "env:2"}, "flag-model", "flag:3", 16384},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{"QUIRE_DATA_DIR": dir}
			for k, v := range tc.env {
				env[k] = v
			}
			fs := flag.NewFlagSet("t", flag.ContinueOnError)
			c, err := Load(fs, tc.args, envOf(env))
			if err != nil {
				t.Fatal(err)
			}
			if c.Model != tc.wantModel || c.OllamaHost != tc.wantHost || c.NumCtx != tc.wantCtx {
				t.Fatalf("got model=%q host=%q ctx=%d", c.Model, c.OllamaHost, c.NumCtx)
			}
		})
	}
}

func TestDefaultsWithNoSettings(t *testing.T) {
	home := t.TempDir()
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	c, err := Load(fs, nil, envOf(map[string]string{"HOME": home}))
	if err != nil {
		t.Fatal(err)
	}
	if c.Model != DefaultModel || c.OllamaHost != DefaultOllamaHost || c.NumCtx != DefaultNumCtx {
		t.Fatalf("defaults not applied: %+v", c)
	}
	if want := filepath.Join(home, ".local", "share", "quire"); c.DataDir != want {
		t.Fatalf("data dir %q, want %q", c.DataDir, want)
	}
	xdg := t.TempDir()
	c, err = Load(flag.NewFlagSet("t", flag.ContinueOnError), nil, envOf(map[string]string{"HOME": home, "XDG_DATA_HOME": xdg}))
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(xdg, "quire"); c.DataDir != want {
		t.Fatalf("data dir %q, want %q", c.DataDir, want)
	}
}

func TestBadInputIsAnError(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, SettingsFile), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if _, err := Load(fs, nil, envOf(map[string]string{"QUIRE_DATA_DIR": dir})); err == nil {
		t.Fatal("a broken settings file was accepted")
	}
	fs = flag.NewFlagSet("t", flag.ContinueOnError)
	if _, err := Load(fs, nil, envOf(map[string]string{"QUIRE_DATA_DIR": t.TempDir(), "QUIRE_NUM_CTX": "lots"})); err == nil {
		t.Fatal("a non-numeric QUIRE_NUM_CTX was accepted")
	}
}

// TestNotesDirFromTheShellIsMadeWhole: a relative folder typed on the
// command line or in the environment is the shell's working folder's, made
// whole at start; one already whole, or saved, is kept as it is.
func TestNotesDirFromTheShellIsMadeWhole(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"relative flag", []string{"-notes-dir", "notes"}, nil, filepath.Join(wd, "notes")},
		{"relative env", nil, map[string]string{"QUIRE_NOTES_DIR": "a/b"}, filepath.Join(wd, "a", "b")},
		{"whole flag", []string{"-notes-dir", "/srv/notes"}, nil, "/srv/notes"},
		{"none", nil, nil, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{"QUIRE_DATA_DIR": t.TempDir()}
			for k, v := range tc.env {
				env[k] = v
			}
			c, err := Load(flag.NewFlagSet("t", flag.ContinueOnError), tc.args, envOf(env))
			if err != nil {
				t.Fatal(err)
			}
			if c.NotesDir != tc.want {
				t.Fatalf("notes folder %q, want %q", c.NotesDir, tc.want)
			}
		})
	}
}

func TestDocumentLimitsDefaultAndRaise(t *testing.T) {
	cases := []struct {
		name     string
		settings string
		want     DocumentLimits
	}{
		{"no settings file: defaults", "", DocumentLimits{DefaultDocMaxBytes, DefaultDocMaxPages, DefaultDocMaxTextBytes, DefaultDocMaxChunks}},
		{"raised bytes and pages, the rest default", `{"documents": {"maxBytes": 268435456, "maxPages": 5000}}`,
			DocumentLimits{256 << 20, 5000, DefaultDocMaxTextBytes, DefaultDocMaxChunks}},
		{"zero and negative mean the default", `{"documents": {"maxBytes": 0, "maxPages": -1, "maxTextBytes": 1048576, "maxChunks": 7}}`,
			DocumentLimits{DefaultDocMaxBytes, DefaultDocMaxPages, 1 << 20, 7}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := loadSettings(t, tc.settings)
			if err != nil {
				t.Fatal(err)
			}
			if c.Documents != tc.want {
				t.Fatalf("limits %+v, want %+v", c.Documents, tc.want)
			}
		})
	}
}

func TestSavingASettingKeepsUnsetLimitsOutOfTheFile(t *testing.T) {
	dir := t.TempDir()
	c, err := Load(flag.NewFlagSet("t", flag.ContinueOnError), nil, envOf(map[string]string{"QUIRE_DATA_DIR": dir}))
	if err != nil {
		t.Fatal(err)
	}
	if err := NewStore(c).SetMemory(true, false); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, SettingsFile))
	if err != nil {
		t.Fatal(err)
	}
	// The defaults stay in the code, so a later release can change them.
	if strings.Contains(string(b), "documents") {
		t.Fatalf("settings.json gained the default limits:\n%s", b)
	}
}

// TestOldMemorySettingNeverMeansRememberWithoutAsking: a settings file from
// before "remember without asking" holds memoryApproval; it still loads,
// either way it was set, as the default (ask), and is dropped at the next
// save. Only the new name turns the setting on.
func TestOldMemorySettingNeverMeansRememberWithoutAsking(t *testing.T) {
	for _, c := range []struct {
		file string
		want bool
	}{
		{`{"memoryApproval": false, "memoryLearn": true}`, false},
		{`{"memoryApproval": true}`, false},
		{`{}`, false},
		{`{"memoryWithoutAsking": true}`, true},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, SettingsFile), []byte(c.file), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := Load(flag.NewFlagSet("t", flag.ContinueOnError), nil, envOf(map[string]string{"QUIRE_DATA_DIR": dir}))
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if got.MemoryWithoutAsking != c.want {
			t.Errorf("%s: remember without asking = %v, want %v", c.file, got.MemoryWithoutAsking, c.want)
		}
		if err := NewStore(got).SetMemory(got.MemoryWithoutAsking, got.MemoryLearn); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, SettingsFile)); strings.Contains(string(b), "memoryApproval") {
			t.Errorf("%s: saved again as %s, still with the old name", c.file, b)
		}
	}
}

func TestBatchWorkersDefaultAndBounds(t *testing.T) {
	cases := []struct {
		name     string
		settings string
		want     int
		refused  string
	}{
		{"no settings file: the default", "", DefaultBatchWorkers, ""},
		{"four workers", `{"batch": {"workers": 4}}`, 4, ""},
		{"the most", `{"batch": {"workers": 8}}`, 8, ""},
		{"more than the most", `{"batch": {"workers": 9}}`, 0, "batch.workers"},
		{"negative", `{"batch": {"workers": -1}}`, 0, "batch.workers"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := loadSettings(t, tc.settings)
			if tc.refused != "" {
				var fe *FieldError
				if !errors.As(err, &fe) || fe.Field != tc.refused {
					t.Fatalf("err = %v, want a refusal of %s", err, tc.refused)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Batch.Workers != tc.want {
				t.Fatalf("workers %d, want %d", c.Batch.Workers, tc.want)
			}
		})
	}
}

// loadSettings resolves the configuration of a data folder whose
// settings.json holds settings ("": no file).
func loadSettings(t *testing.T, settings string) (Config, error) {
	t.Helper()
	dir := t.TempDir()
	if settings != "" {
		if err := os.WriteFile(filepath.Join(dir, SettingsFile), []byte(settings), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return Load(flag.NewFlagSet("t", flag.ContinueOnError), nil, envOf(map[string]string{"QUIRE_DATA_DIR": dir}))
}

// TestEvolveLearnIsOffUntilSetAndSurvivesALoad: the model is asked for
// candidate improvements only once the user turned it on, and the choice
// is the one the next start reads.
func TestEvolveLearnIsOffUntilSetAndSurvivesALoad(t *testing.T) {
	dir := t.TempDir()
	load := func() Config {
		c, err := Load(flag.NewFlagSet("t", flag.ContinueOnError), nil, envOf(map[string]string{"QUIRE_DATA_DIR": dir}))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	c := load()
	if c.EvolveLearn {
		t.Fatal("a new data folder asks the model for candidates")
	}
	for _, on := range []bool{true, false} {
		if err := NewStore(c).SetEvolveLearn(on); err != nil {
			t.Fatal(err)
		}
		if c = load(); c.EvolveLearn != on {
			t.Fatalf("saved evolveLearn %v, loaded %v", on, c.EvolveLearn)
		}
	}
}

func TestStandingMinBatteryDefaultAndBounds(t *testing.T) {
	for _, tc := range []struct {
		name, settings string
		want           int
		refused        bool
	}{
		{"no settings file: the default", "", DefaultStandingMinBattery, false},
		{"ten percent", `{"batch": {"standingMinBattery": 10}}`, 10, false},
		{"more than a hundred", `{"batch": {"standingMinBattery": 101}}`, 0, true},
		{"negative", `{"batch": {"standingMinBattery": -5}}`, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := loadSettings(t, tc.settings)
			var fe *FieldError
			if tc.refused != (errors.As(err, &fe) && fe.Field == "batch.standingMinBattery") {
				t.Fatalf("err = %v", err)
			}
			if !tc.refused && (err != nil || c.Batch.StandingMinBattery != tc.want) {
				t.Fatalf("floor %d (%v), want %d", c.Batch.StandingMinBattery, err, tc.want)
			}
		})
	}
}
