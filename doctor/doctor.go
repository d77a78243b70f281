// Package doctor checks that Quire can work on this machine — Ollama
// reachable, the chat model installed and able to use tools, the data
// directory writable, SQLite with FTS5 — and says, for each failure, what the
// user should do. `quire doctor` prints the report; the window shows it on
// its first screen.
//
// It owns the checks and their remedies. It must never import Wails, a model
// client or a database driver: the probes arrive as interfaces.
package doctor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Check is one line of the report. Remedy says what to do when OK is false.
type Check struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
	Remedy string `json:"remedy,omitempty"`
	// Hint is the remedy as the window says it, where it differs: no flag
	// and no terminal command, only what the window offers (Action). The
	// terminal keeps Remedy (window.go).
	Hint string `json:"hint,omitempty"`
	// Action is what the window offers for a failing check: ActionInstall,
	// ActionDownload or ActionSettings; "" offers nothing.
	Action string `json:"action,omitempty"`
	// Warn marks a check that passed with a limit the user should know
	// of (a chat model that cannot use tools still chats): OK stays true,
	// the terminal prints "warn" and the Remedy.
	Warn bool `json:"warn,omitempty"`
}

// Report is the whole diagnosis; OK is true when every check passed.
type Report struct {
	OK     bool    `json:"ok"`
	Checks []Check `json:"checks"`
}

// Ollama is what the checks need to ask the model server.
type Ollama interface {
	Version(ctx context.Context) (string, error)
	Models(ctx context.Context) ([]string, error)
	Capabilities(ctx context.Context, model string) ([]string, error)
}

// SQLite reports the embedded database engine.
type SQLite func(ctx context.Context) (version string, fts5 bool, err error)

// Inputs are the settings the checks verify.
type Inputs struct {
	DataDir string
	// OllamaHost is the address Quire uses (the setting as parsed, with
	// its scheme and port), which is what the report prints.
	OllamaHost string
	Model      string
	// SameModel reports whether two names are one model the way Ollama
	// matches them (ollama.SameModel: case, the implicit library/ and
	// :latest, the registry host). Nil: Ollama's implicit ":latest" only.
	SameModel func(a, b string) bool
	// OtherRunner is set when the chat model is reached by another runner
	// than Ollama's own API (an OpenAI-compatible server): Run leaves the
	// Ollama checks out, and the caller adds RunnerChecks.
	OtherRunner bool
}

// Run performs every check. It never fails: a failure is a line of the report.
func Run(ctx context.Context, in Inputs, ollama Ollama, sqlite SQLite) Report {
	var checks []Check
	checks = append(checks, checkDataDir(in.DataDir))
	checks = append(checks, checkSQLite(ctx, sqlite))
	if !in.OtherRunner {
		checks = append(checks, OllamaChecks(ctx, in, ollama).Checks...)
	}
	r := Report{OK: true, Checks: checks}
	for _, c := range checks {
		r.OK = r.OK && c.OK
	}
	return r
}

// checkDataDir says whether Quire can keep its data in dir, and creates
// nothing to find out (doctor only reads): a folder that is not there yet
// is fine when the nearest folder above it that exists is writable, since
// Quire creates the rest on its first start.
func checkDataDir(dir string) Check {
	c := Check{Name: "Data directory", Detail: dir}
	fail := func(err error) Check {
		c.Detail = fmt.Sprintf("%s is not writable: %v", dir, err)
		c.Remedy = "Make it writable, or choose another folder with --data-dir or QUIRE_DATA_DIR."
		return c
	}
	existing := dir
	for {
		info, err := os.Stat(existing)
		if err == nil {
			if !info.IsDir() {
				return fail(fmt.Errorf("%s is a file, not a folder", existing))
			}
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return fail(err)
		}
		parent := filepath.Dir(existing)
		if parent == existing {
			return fail(err)
		}
		existing = parent
	}
	if err := writable(existing); err != nil {
		return fail(err)
	}
	// A folder Quire may write is no use on a disk with no room left: every
	// write then fails, so say it here rather than at the first one.
	room := ""
	if free, ok := freeSpace(existing); ok {
		if free < minFree {
			c.Detail = fmt.Sprintf("%s is on a disk that is full (%s free)", dir, bytesText(free))
			c.Remedy = "Free some space on that disk, or choose a folder on another disk with --data-dir or QUIRE_DATA_DIR; Quire cannot save conversations, memory or documents until then."
			return c
		}
		room = ", " + bytesText(free) + " free"
	}
	c.OK = true
	c.Detail = dir + " (writable" + room + ")"
	if existing != dir {
		c.Detail = dir + " (not created yet; Quire creates it on its first start" + room + ")"
	}
	return c
}

// minFree is the room below which the data folder's disk counts as full:
// enough for SQLite's journal and a few checkpoints of the log, so that a
// disk with less fails a write soon after Quire starts.
const minFree = 8 << 20

// bytesText says a size for people: 3.2 GiB, 512 KiB.
func bytesText(n uint64) string {
	units := []string{"bytes", "KiB", "MiB", "GiB", "TiB"}
	v, i := float64(n), 0
	for v >= 1024 && i < len(units)-1 {
		v, i = v/1024, i+1
	}
	if i == 0 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%.1f %s", v, units[i])
}

func checkSQLite(ctx context.Context, sqlite SQLite) Check {
	c := Check{Name: "SQLite"}
	version, fts5, err := sqlite(ctx)
	switch {
	case err != nil:
		c.Detail = "SQLite could not start: " + err.Error()
		c.Remedy = "This build of Quire is broken; reinstall it."
	case !fts5:
		c.Detail = "SQLite " + version + " without FTS5"
		c.Remedy = "This build of Quire lacks full-text search; reinstall it."
	default:
		c.OK = true
		c.Detail = "SQLite " + version + " with FTS5"
	}
	return c
}

func checkOllama(ctx context.Context, in Inputs, o Ollama) []Check {
	server := Check{Name: "Ollama"}
	version, err := o.Version(ctx)
	if err != nil {
		server.Detail = "not reachable: " + err.Error()
		server.Remedy = "Install Ollama (https://ollama.com/download) and start it with `ollama serve`, or point Quire at it with --ollama-host or OLLAMA_HOST (include the port, e.g. http://127.0.0.1:11434)."
		return []Check{server}
	}
	server.OK = true
	server.Detail = fmt.Sprintf("version %s at %s", version, in.OllamaHost)

	model := Check{Name: "Chat model"}
	names, err := o.Models(ctx)
	if err != nil {
		model.Detail = "could not list installed models: " + err.Error()
		model.Remedy = "Check that Ollama is healthy (`ollama list`)."
		return []Check{server, model}
	}
	same := in.SameModel
	if same == nil {
		same = func(a, b string) bool { return canonical(a) == canonical(b) }
	}
	i := slices.IndexFunc(names, func(n string) bool { return same(n, in.Model) })
	if i < 0 {
		model.Detail = fmt.Sprintf("%s is not installed", in.Model)
		model.Remedy = fmt.Sprintf("Run `ollama pull %s`, or choose an installed model with --model or QUIRE_MODEL.", in.Model)
		return []Check{server, model}
	}
	model.OK = true
	model.Detail = in.Model + " is installed"
	if names[i] != in.Model {
		model.Detail += " (as " + names[i] + ")"
	}

	tools := Check{Name: "Tool use"}
	caps, err := o.Capabilities(ctx, in.Model)
	switch {
	case err != nil:
		tools.Detail = "could not read the model's capabilities: " + err.Error()
		tools.Remedy = fmt.Sprintf("Run `ollama show %s` to see what is wrong.", in.Model)
	case !slices.Contains(caps, "tools"):
		// It chats: Quire answers without tools (the chat says so once).
		// What it cannot do is a limit to know of, not a failure.
		tools.OK, tools.Warn = true, true
		tools.Detail = fmt.Sprintf("%s chats but cannot use tools (capabilities: %s): it cannot read or change your notes", in.Model, strings.Join(caps, ", "))
		tools.Remedy = "To work with your notes, choose a model that supports tools, e.g. `ollama pull qwen3:4b`."
	default:
		tools.OK = true
		tools.Detail = in.Model + " supports tools"
	}
	return []Check{server, model, tools}
}

// canonical adds Ollama's implicit ":latest" tag.
func canonical(model string) string {
	if strings.Contains(filepath.Base(model), ":") {
		return model
	}
	return model + ":latest"
}

// Lines renders the report for a terminal: one line per check, and for each
// one with a remedy (every failure) one more line that says what to do.
func (r Report) Lines() []string {
	var out []string
	for _, c := range r.Checks {
		mark := "ok  "
		switch {
		case !c.OK:
			mark = "FAIL"
		case c.Warn:
			mark = "warn"
		}
		out = append(out, fmt.Sprintf("%s %-15s %s", mark, c.Name, c.Detail))
		if c.Remedy != "" { // a passing line may have one too (Embedding)
			out = append(out, "     → "+c.Remedy)
		}
	}
	return out
}
