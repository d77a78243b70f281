package doctor

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type fakeOllama struct {
	version    string
	versionErr error
	models     []string
	caps       []string
}

func (f fakeOllama) Version(context.Context) (string, error)  { return f.version, f.versionErr }
func (f fakeOllama) Models(context.Context) ([]string, error) { return f.models, nil }
func (f fakeOllama) Capabilities(context.Context, string) ([]string, error) {
	return f.caps, nil
}

func goodSQLite(context.Context) (string, bool, error) { return "3.54.1", true, nil }

func TestReport(t *testing.T) {
	cases := []struct {
		name       string
		ollama     fakeOllama
		sqlite     SQLite
		model      string
		wantOK     bool
		failing    string // name of the check that must fail
		remedyHint string
	}{
		{"all good", fakeOllama{version: "0.17.4", models: []string{"qwen3:4b"}, caps: []string{"completion", "tools"}}, goodSQLite, "qwen3:4b", true, "", ""},
		{"implicit latest", fakeOllama{version: "0.17.4", models: []string{"llama3.2:latest"}, caps: []string{"tools"}}, goodSQLite, "llama3.2", true, "", ""},
		{"ollama down", fakeOllama{versionErr: errors.New("connection refused")}, goodSQLite, "qwen3:4b", false, "Ollama", "ollama serve"},
		{"model missing", fakeOllama{version: "0.17.4", models: []string{"other:1b"}}, goodSQLite, "qwen3:4b", false, "Chat model", "ollama pull qwen3:4b"},
		{"no tools", fakeOllama{version: "0.17.4", models: []string{"gemma:2b"}, caps: []string{"completion"}}, goodSQLite, "gemma:2b", false, "Tool use", "supports them"},
		{"no fts5", fakeOllama{version: "0.17.4", models: []string{"qwen3:4b"}, caps: []string{"tools"}},
			func(context.Context) (string, bool, error) { return "3.0", false, nil }, "qwen3:4b", false, "SQLite", "reinstall"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := Run(t.Context(), Inputs{DataDir: t.TempDir(), OllamaHost: "http://127.0.0.1:11434", Model: tc.model}, tc.ollama, tc.sqlite)
			if r.OK != tc.wantOK {
				t.Fatalf("OK = %v, want %v: %v", r.OK, tc.wantOK, r.Lines())
			}
			if tc.failing == "" {
				return
			}
			for _, c := range r.Checks {
				if c.Name == tc.failing {
					if c.OK || !strings.Contains(c.Remedy, tc.remedyHint) {
						t.Fatalf("check %s: ok=%v remedy=%q", c.Name, c.OK, c.Remedy)
					}
					return
				}
			}
			t.Fatalf("no check named %s in %v", tc.failing, r.Lines())
		})
	}
}

func TestUnwritableDataDir(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	c := checkDataDir(filepath.Join(file, "sub"))
	if c.OK || !strings.Contains(c.Remedy, "QUIRE_DATA_DIR") {
		t.Fatalf("a data dir under a file passed: %+v", c)
	}
}

// TestDataDirCheckCreatesNothing: a folder not made yet passes when Quire
// could make it, and checking it leaves the disk as it was.
func TestDataDirCheckCreatesNothing(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "not", "yet")
	c := checkDataDir(dir)
	if !c.OK || !strings.Contains(c.Detail, "not created yet") {
		t.Fatalf("a folder Quire can create: %+v", c)
	}
	if entries, err := os.ReadDir(base); err != nil || len(entries) != 0 {
		t.Fatalf("the check left %v behind (%v)", entries, err)
	}
	if c := checkDataDir(base); !c.OK || !strings.Contains(c.Detail, "(writable)") {
		t.Fatalf("an existing writable folder: %+v", c)
	}
	if entries, _ := os.ReadDir(base); len(entries) != 0 {
		t.Fatalf("the check of an existing folder left %v behind", entries)
	}
}

func TestDatabaseCheckSaysWhatToDo(t *testing.T) {
	tests := []struct {
		problem DatabaseProblem
		err     error
		ok      bool
		detail  string
		remedy  string
	}{
		{DatabaseFine, nil, true, "/d/quire.db", ""},
		{DatabaseNotCreated, nil, true, "not created yet", ""},
		{DatabaseDamaged, errors.New("quire.db: the database file is damaged"), false, "damaged", "Move it aside (a backup may sit beside it)"},
		{DatabaseNeedsUpgrade, errors.New("written by an older version"), false, "older version", "Start Quire"},
		{DatabaseRefused, errors.New("written by a newer version"), false, "newer version", "update Quire"},
	}
	for _, tt := range tests {
		c := Database("/d/quire.db", tt.problem, tt.err)
		if c.Name != "Database" || c.OK != tt.ok || !strings.Contains(c.Detail, tt.detail) || !strings.Contains(c.Remedy, tt.remedy) || (tt.ok && c.Remedy != "") {
			t.Errorf("problem %d: %+v", tt.problem, c)
		}
		r := Report{OK: true}
		r.Add(c)
		if r.OK != tt.ok || len(r.Checks) != 1 {
			t.Errorf("problem %d: report %+v", tt.problem, r)
		}
	}
}
