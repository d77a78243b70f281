package doctor

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"quire/test/testkit/rofs"
	"quire/test/testkit/smalldisk"
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
	if c := checkDataDir(base); !c.OK || !strings.Contains(c.Detail, "(writable") {
		t.Fatalf("an existing writable folder: %+v", c)
	}
	if entries, _ := os.ReadDir(base); len(entries) != 0 {
		t.Fatalf("the check of an existing folder left %v behind", entries)
	}
}

func TestDatabaseCheckSaysWhatToDo(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "quire.db")
	if err := os.WriteFile(db, []byte("a database"), 0o600); err != nil {
		t.Fatal(err)
	}
	backups := []string{db + ".backup-v0", db + ".backup-v1"}
	tests := []struct {
		name    string
		problem DatabaseProblem
		err     error
		backups []string
		ok      bool
		detail  string
		remedy  []string
	}{
		{"fine", DatabaseFine, nil, nil, true, db, nil},
		{"not created", DatabaseNotCreated, nil, nil, true, "not created yet", nil},
		{"damaged, no backup", DatabaseDamaged, errors.New("quire.db: the database file is damaged"), nil, false, "damaged",
			[]string{"will not write to it", "move quire.db (with quire.db-wal and quire.db-shm", "starts a new one", "No backup"}},
		{"damaged, with backups", DatabaseDamaged, errors.New("quire.db: the database file is damaged: row not in PRIMARY KEY order"), backups, false, "PRIMARY KEY",
			[]string{"move quire.db", "copy the backup " + backups[1] + " to " + db, backups[0]}},
		{"needs upgrade", DatabaseNeedsUpgrade, errors.New("written by an older version"), nil, false, "older version", []string{"Start Quire"}},
		{"read-only", DatabaseReadOnly, errors.New(dir + ": the database is read-only"), nil, false, "Quire cannot write to " + db + ": it is read-only",
			[]string{"Make it writable (chmod u+w " + db, "pick another data folder with -data-dir"}},
		{"refused", DatabaseRefused, errors.New("written by a newer version"), nil, false, "newer version", []string{"update Quire"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Database(DatabaseState{Path: db, Problem: tt.problem, Err: tt.err, Backups: tt.backups})
			if c.Name != "Database" || c.OK != tt.ok || !strings.Contains(c.Detail, tt.detail) || (tt.ok && c.Remedy != "") {
				t.Fatalf("%+v", c)
			}
			for _, want := range tt.remedy {
				if !strings.Contains(c.Remedy, want) {
					t.Errorf("remedy %q lacks %q", c.Remedy, want)
				}
			}
			if tt.problem != DatabaseReadOnly && strings.Contains(c.Remedy, "read-only") {
				t.Errorf("remedy %q speaks of read-only", c.Remedy)
			}
			if tt.problem == DatabaseReadOnly && strings.Contains(c.Remedy, "move") {
				t.Errorf("a read-only file is told to move: %q", c.Remedy)
			}
			r := Report{OK: true}
			r.Add(c)
			if r.OK != tt.ok || len(r.Checks) != 1 {
				t.Fatalf("report %+v", r)
			}
		})
	}
}

func TestPartSaysItIsOff(t *testing.T) {
	if c := Part("Memory", "memory", nil); !c.OK || c.Remedy != "" {
		t.Fatalf("a part that opened: %+v", c)
	}
	c := Part("Documents", "the document index", errors.New("rag: schema 9 is newer"))
	if c.OK || !strings.Contains(c.Detail, "off: the document index could not be opened: rag: schema 9 is newer") || c.Remedy == "" {
		t.Fatalf("a part that is off: %+v", c)
	}
}

// TestReadOnlyDatabaseFileIsReported: a database file that opened (a
// reader reads a read-only file) but cannot be written is reported as
// read-only, with the remedy, not as fine.
func TestReadOnlyDatabaseFileIsReported(t *testing.T) {
	dir, readOnly := rofs.Folder(t)
	db := filepath.Join(dir, "quire.db")
	if err := os.WriteFile(db, []byte("a database"), 0o600); err != nil {
		t.Fatal(err)
	}
	if c := Database(DatabaseState{Path: db, Problem: DatabaseFine}); !c.OK {
		t.Fatalf("a writable file: %+v", c)
	}
	readOnly()
	c := Database(DatabaseState{Path: db, Problem: DatabaseFine})
	if c.OK || !strings.Contains(c.Detail, "Quire cannot write to "+db+": it is read-only") || !strings.Contains(c.Remedy, "-data-dir") {
		t.Fatalf("a read-only file: %+v", c)
	}
	if d := checkDataDir(dir); d.OK || !strings.Contains(d.Detail, "not writable") {
		t.Fatalf("the read-only data folder: %+v", d)
	}
}

// TestAFullDiskIsReported: a data folder Quire may write is still no use
// on a disk with no room left; the check says the disk is full and what to
// do, and passes again once the room is back.
func TestAFullDiskIsReported(t *testing.T) {
	disk := smalldisk.Mount(t, "16m")
	if c := checkDataDir(disk); !c.OK || !strings.Contains(c.Detail, "free)") {
		t.Fatalf("an empty 16 MiB disk: %+v", c)
	}
	free := smalldisk.Fill(t, filepath.Join(disk, "ballast"))
	c := checkDataDir(disk)
	if c.OK || !strings.Contains(c.Detail, "disk that is full") || !strings.Contains(c.Remedy, "Free some space") {
		t.Fatalf("a full disk: %+v", c)
	}
	free()
	if c := checkDataDir(disk); !c.OK {
		t.Fatalf("the disk with its room back: %+v", c)
	}
}

// toolsOf is a fake Ollama whose installed models each have their own
// capabilities.
type toolsOf struct {
	down bool
	caps map[string][]string
}

func (f toolsOf) Version(context.Context) (string, error) {
	if f.down {
		return "", errors.New("connection refused")
	}
	return "0.17.4", nil
}
func (f toolsOf) Models(context.Context) ([]string, error) {
	var out []string
	for n := range f.caps {
		out = append(out, n)
	}
	slices.Sort(out)
	return out, nil
}
func (f toolsOf) Capabilities(_ context.Context, m string) ([]string, error) { return f.caps[m], nil }

func TestTheWindowIsOfferedWhatItCanDo(t *testing.T) {
	cases := []struct {
		name      string
		ollama    toolsOf
		model     string
		check     string // the failing check
		action    string
		hint      string // a part of its hint
		cliRemedy string // a part of the terminal's remedy, kept
	}{
		{"no ollama", toolsOf{down: true}, "qwen3:4b", "Ollama", ActionInstall, "Install Ollama", "--ollama-host or OLLAMA_HOST"},
		{"nothing installed", toolsOf{caps: map[string][]string{}}, "qwen3:4b", "Chat model", ActionDownload, "download one in one click", "ollama pull qwen3:4b"},
		{"only models without tools", toolsOf{caps: map[string][]string{"gemma:2b": {"completion"}}}, "qwen3:4b", "Chat model", ActionDownload, "No installed model can use tools", "--model or QUIRE_MODEL"},
		{"another model has tools", toolsOf{caps: map[string][]string{"llama3.2:latest": {"completion", "tools"}, "gemma:2b": {"completion"}}}, "qwen3:4b", "Chat model", ActionSettings, "installed: llama3.2:latest)", "ollama pull qwen3:4b"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := OllamaChecks(t.Context(), Inputs{OllamaHost: "http://127.0.0.1:11434", Model: tc.model}, tc.ollama)
			if r.OK {
				t.Fatalf("the report passed: %v", r.Lines())
			}
			var found bool
			for _, c := range r.Checks {
				if c.OK {
					if c.Hint != "" || c.Action != "" {
						t.Errorf("check %s passed and still offers %q (%s)", c.Name, c.Action, c.Hint)
					}
					continue
				}
				if c.Name != tc.check {
					t.Errorf("check %s failed too: %+v", c.Name, c)
					continue
				}
				found = true
				if c.Action != tc.action || !strings.Contains(c.Hint, tc.hint) {
					t.Errorf("check %s offers %q with %q, want %q with %q", c.Name, c.Action, c.Hint, tc.action, tc.hint)
				}
				for _, flag := range []string{"--", "QUIRE_", "OLLAMA_HOST", "`"} {
					if strings.Contains(c.Hint, flag) {
						t.Errorf("the window's hint names %q, which the window cannot apply: %s", flag, c.Hint)
					}
				}
				if !strings.Contains(c.Remedy, tc.cliRemedy) {
					t.Errorf("the terminal's remedy lost %q: %s", tc.cliRemedy, c.Remedy)
				}
			}
			if !found {
				t.Fatalf("no failing check %s in %v", tc.check, r.Lines())
			}
		})
	}
}

// TestRunGivesTheWindowItsHints: the whole report carries the same hints
// as the watcher's quick one.
func TestRunGivesTheWindowItsHints(t *testing.T) {
	r := Run(t.Context(), Inputs{DataDir: t.TempDir(), Model: "qwen3:4b"}, toolsOf{down: true}, goodSQLite)
	for _, c := range r.Checks {
		if c.Name == "Ollama" && c.Action == ActionInstall {
			return
		}
	}
	t.Fatalf("no install action in %+v", r.Checks)
}

// TestChatModelUsesTheGivenMatcher: the installed list is searched with
// Inputs.SameModel (the composition root passes Ollama's own matching),
// and the report says under which name the model was found.
func TestChatModelUsesTheGivenMatcher(t *testing.T) {
	foldCase := func(a, b string) bool { return strings.EqualFold(canonical(a), canonical(b)) }
	cases := []struct {
		name   string
		same   func(a, b string) bool
		model  string
		ok     bool
		detail string
	}{
		{"the matcher finds another spelling", foldCase, "Tiny-Text", true, "Tiny-Text is installed (as tiny-text:latest)"},
		{"no matcher: exact or :latest only", nil, "Tiny-Text", false, "Tiny-Text is not installed"},
		{"no matcher: the implicit tag", nil, "tiny-text", true, "tiny-text is installed (as tiny-text:latest)"},
		{"the same spelling says nothing more", foldCase, "tiny-text:latest", true, "tiny-text:latest is installed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := fakeOllama{version: "0.17.4", models: []string{"qwen3:4b", "tiny-text:latest"}, caps: []string{"tools"}}
			r := Run(t.Context(), Inputs{DataDir: t.TempDir(), OllamaHost: "http://127.0.0.1:11434", Model: tc.model, SameModel: tc.same}, o, goodSQLite)
			for _, c := range r.Checks {
				if c.Name == "Chat model" {
					if c.OK != tc.ok || c.Detail != tc.detail {
						t.Errorf("Chat model: ok=%v %q; want ok=%v %q", c.OK, c.Detail, tc.ok, tc.detail)
					}
					return
				}
			}
			t.Fatalf("no Chat model check in %v", r.Lines())
		})
	}
}

// TestEmbeddingLineSaysWhatSearchUses: the line always passes (search works
// by keywords without a model) and says what search uses, with the remedy
// when something can be done.
func TestEmbeddingLineSaysWhatSearchUses(t *testing.T) {
	tests := []struct {
		name   string
		in     EmbeddingState
		detail string
		remedy string // "" for none
	}{
		{"installed", EmbeddingState{Model: "nomic-embed-text", Dimensions: 768, InUse: "ollama:nomic-embed-text"},
			"nomic-embed-text is installed, 768 dimensions", ""},
		{"installed, switching", EmbeddingState{Model: "nomic-embed-text", Dimensions: 768, InUse: "built-in offline embedder (h)", Offline: true, Target: "ollama:nomic-embed-text"},
			"search uses built-in offline embedder (h) until that is done", ""},
		{"none", EmbeddingState{Problem: EmbeddingNone, InUse: "built-in offline embedder (h)", Offline: true},
			"none: search uses keywords only", ""},
		{"missing, nothing made", EmbeddingState{Model: "nomic-embed-text", Problem: EmbeddingMissing, InUse: "built-in offline embedder (h)", Offline: true},
			"nomic-embed-text is chosen but not installed: search uses keywords only", "ollama pull nomic-embed-text"},
		{"missing, its vectors kept", EmbeddingState{Model: "nomic-embed-text", Problem: EmbeddingMissing, InUse: "ollama:nomic-embed-text"},
			"search uses keywords and the vectors ollama:nomic-embed-text made before", "choose another embedding model in the Documents panel"},
		{"not an embedder", EmbeddingState{Model: "qwen3:4b", Problem: EmbeddingNotEmbedder, Offline: true},
			"qwen3:4b is chosen but is not an embedding model", "Choose an embedding model in the Documents panel"},
		{"unreachable", EmbeddingState{Model: "nomic-embed-text", Problem: EmbeddingUnreachable, Offline: true, Err: errors.New("connection refused")},
			"Ollama is not answering: search uses keywords only until it does (Quire checks again on a later search, without a restart) (connection refused)", ""},
		{"not checked in time", EmbeddingState{Model: "nomic-embed-text", Problem: EmbeddingUnchecked, Offline: true, Err: errors.New("context deadline exceeded")},
			"nomic-embed-text was not checked: search uses keywords only meanwhile (context deadline exceeded)", "Run `quire doctor` again"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Embedding(tt.in)
			if c.Name != "Embedding model" || !c.OK || !strings.Contains(c.Detail, tt.detail) || !strings.Contains(c.Remedy, tt.remedy) || (tt.remedy == "") != (c.Remedy == "") {
				t.Errorf("Embedding(%+v) = %+v", tt.in, c)
			}
			// A terminal shows the remedy under the passing line.
			if lines := (Report{OK: true, Checks: []Check{c}}).Lines(); tt.remedy != "" && (len(lines) != 2 || !strings.Contains(lines[1], tt.remedy)) {
				t.Errorf("Lines() = %q", lines)
			}
		})
	}
}

// TestAModelThatChatsWithoutToolsIsAWarning: a chat model that cannot use
// tools still chats (Quire answers without them and says so), so doctor
// passes it with a warning instead of failing it (issue 32), and suggests
// a model already installed that can use tools before a download.
func TestAModelThatChatsWithoutToolsIsAWarning(t *testing.T) {
	cases := []struct {
		name      string
		ollama    toolsOf
		remedy    string
		notRemedy string
	}{
		{"another installed model can", toolsOf{caps: map[string][]string{"gemma:2b": {"completion"}, "qwen3:4b": {"completion", "tools"}}}, "installed model that supports tools: qwen3:4b", "ollama pull"},
		{"none installed can", toolsOf{caps: map[string][]string{"gemma:2b": {"completion"}}}, "ollama pull qwen3:4b", "installed model"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := OllamaChecks(t.Context(), Inputs{OllamaHost: "http://127.0.0.1:11434", Model: "gemma:2b"}, tc.ollama)
			if !r.OK {
				t.Fatalf("the report failed: %v", r.Lines())
			}
			var tools Check
			for _, c := range r.Checks {
				if c.Name == "Tool use" {
					tools = c
				}
			}
			if !tools.OK || !tools.Warn || !strings.Contains(tools.Detail, "chats but cannot use tools") ||
				!strings.Contains(tools.Remedy, tc.remedy) || strings.Contains(tools.Remedy, tc.notRemedy) {
				t.Fatalf("Tool use = %+v; want a warning whose remedy says %q, not %q", tools, tc.remedy, tc.notRemedy)
			}
			if tools.Action != "" || tools.Hint != "" {
				t.Errorf("a passing check offers the window %q (%s)", tools.Action, tools.Hint)
			}
			if !slices.Contains(r.Lines(), "warn Tool use        "+tools.Detail) {
				t.Errorf("the terminal's lines do not mark it a warning: %q", r.Lines())
			}
		})
	}
}
