// Package config decides Quire's settings — data directory, Ollama host, chat
// model, context length — from, in increasing precedence: built-in defaults,
// the settings file in the data directory, environment variables, flags.
//
// It owns that precedence and the defaults, in one place, and (Store) the
// settings while Quire runs: the one writer of settings.json, which saves a
// change before it publishes it. It must never import the kernel, Wails, a
// model client or a database driver.
package config

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
)

// Defaults. The chat model is small enough for a laptop and supports tools.
const (
	DefaultModel      = "qwen3:4b"
	DefaultOllamaHost = "http://127.0.0.1:11434"
	DefaultNumCtx     = 8192
	DefaultEmbedModel = "nomic-embed-text"
	DefaultProfile    = "ask"
	DefaultTheme      = "system"
	SettingsFile      = "settings.json"
	DatabaseFile      = "quire.db"
)

// NoEmbedModel is the embedModel that chooses no model: the built-in
// offline embedder (an empty one would read back as the default).
const NoEmbedModel = "none"

// Default bounds on one document, each raisable in settings.json
// ("documents": {"maxBytes": ...}). They fit a laptop: a 2,000-page book
// has about 6 MB of text (3,000 bytes a page); the SciFact corpus (5,183
// abstracts, 7.6 MB of text) makes 7,598 chunks, about 1 per 1,000 bytes,
// so 16 MiB of text makes about 16,000 chunks and 20,000 leaves room for
// documents of many short sections. A document at every bound costs a few
// hundred MB of database, not the gigabytes an unbounded one did.
const (
	DefaultDocMaxBytes     = 64 << 20
	DefaultDocMaxPages     = 2000
	DefaultDocMaxTextBytes = 16 << 20
	DefaultDocMaxChunks    = 20000
)

// DocumentLimits bound what one indexed document may cost; a document
// over any of them is listed with the reason and not indexed. Zero or
// absent fields take the defaults.
type DocumentLimits struct {
	MaxBytes     int64 `json:"maxBytes,omitempty"`     // size of the file
	MaxPages     int   `json:"maxPages,omitempty"`     // pages of a PDF
	MaxTextBytes int64 `json:"maxTextBytes,omitempty"` // bytes of text extracted
	MaxChunks    int   `json:"maxChunks,omitempty"`    // chunks stored
}

// withDefaults fills the fields that are not positive.
func (l DocumentLimits) withDefaults() DocumentLimits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultDocMaxBytes
	}
	if l.MaxPages <= 0 {
		l.MaxPages = DefaultDocMaxPages
	}
	if l.MaxTextBytes <= 0 {
		l.MaxTextBytes = DefaultDocMaxTextBytes
	}
	if l.MaxChunks <= 0 {
		l.MaxChunks = DefaultDocMaxChunks
	}
	return l
}

// Batch workers: the default and the bounds of batch.workers.
const (
	DefaultBatchWorkers = 2
	MinBatchWorkers     = 1
	MaxBatchWorkers     = 8
)

// DefaultStandingMinBattery is the battery percent below which standing
// tasks wait for the charger, unless the settings say another.
const DefaultStandingMinBattery = 20

// BatchSettings are the task queue's settings.
type BatchSettings struct {
	Workers int `json:"workers,omitempty"` // agent workers claiming tasks at once
	// StandingMinBattery is the percent below which no standing task fires
	// while the computer runs on its battery (1..100).
	StandingMinBattery int `json:"standingMinBattery,omitempty"`
}

// withDefaults fills a workers count and a battery floor nobody set.
func (b BatchSettings) withDefaults() BatchSettings {
	if b.Workers == 0 {
		b.Workers = DefaultBatchWorkers
	}
	if b.StandingMinBattery == 0 {
		b.StandingMinBattery = DefaultStandingMinBattery
	}
	return b
}

// MCP bounds of the settings file's mcp field (the servers themselves are
// in mcp.json, the mcpclient package's).
const (
	DefaultMCPCallSeconds = 60
	MaxMCPCallSeconds     = 600
	MaxMCPTools           = 1024 // tool choices kept (16 servers of 64 tools)
)

// MCPSettings are Quire's own part of the MCP servers' settings: the
// deadline of one tool call and the user's choice per tool. They live in
// settings.json, not in mcp.json, so pasting a server's config again (or
// editing mcp.json by hand) never loses them.
type MCPSettings struct {
	CallTimeoutSeconds int              `json:"callTimeoutSeconds,omitempty"`
	Tools              []MCPToolSetting `json:"tools,omitempty"`
}

// MCPToolSetting is the user's choice for one tool of one server; a tool
// with none is enabled with the effects its server declared.
type MCPToolSetting struct {
	Server   string `json:"server"`
	Tool     string `json:"tool"` // the server's own name for it
	Disabled bool   `json:"disabled,omitempty"`
	Effects  string `json:"effects,omitempty"` // "" = as declared; else kernel/tool's spelling
	// Pinned is the fingerprint of the tool's declaration (description,
	// input schema, hints) when the choice was made: a "don't ask" holds
	// only while the server declares that same tool (mcpclient).
	Pinned string `json:"pinned,omitempty"`
}

// withDefaults fills a call deadline nobody set.
func (m MCPSettings) withDefaults() MCPSettings {
	if m.CallTimeoutSeconds == 0 {
		m.CallTimeoutSeconds = DefaultMCPCallSeconds
	}
	return m
}

func (m MCPSettings) clone() MCPSettings {
	m.Tools = slices.Clone(m.Tools)
	return m
}

// SkillSettings are the skill packages' settings: every installed skill is
// enabled unless its name is in Disabled.
type SkillSettings struct {
	Disabled []string `json:"disabled,omitempty"`
}

// Bounds of the skills' settings: a name as skills.Check allows it.
const (
	MaxDisabledSkills = 256
	MaxSkillName      = 64
)

// Config is the resolved configuration.
type Config struct {
	DataDir    string `json:"-"`
	OllamaHost string `json:"ollamaHost,omitempty"`
	Model      string `json:"model,omitempty"`
	NumCtx     int    `json:"numCtx,omitempty"`
	// NotesDir is the folder of notes the assistant may read and, with the
	// user's yes, change. Empty until the user chooses one.
	NotesDir string `json:"notesDir,omitempty"`
	// EmbedModel embeds documents for search; NoEmbedModel for none. When
	// Ollama does not have it, the documents panel and doctor say so, and
	// the index keeps what it has (its offline embedder, or the vectors
	// the model made before) until the model is back.
	EmbedModel string `json:"embedModel,omitempty"`
	// DisabledTools are never offered to the model (settings file only).
	DisabledTools []string `json:"disabledTools,omitempty"`
	// MemoryWithoutAsking is the memory panel's "remember without asking":
	// remember runs with no question while a conversation has read no
	// document or note, and such a conversation's proposals are kept at once.
	// Off by default (settings file only; the panel sets it). It replaces
	// memoryApproval, whose "off" kept everything unasked: a file that still
	// holds that name is read as the default, so no old file widens what
	// Quire does without asking.
	MemoryWithoutAsking bool `json:"memoryWithoutAsking,omitempty"`
	// MemoryLearn asks the model after each run for facts and preferences
	// worth remembering (settings file only; the panel sets it).
	MemoryLearn bool `json:"memoryLearn,omitempty"`
	// EvolveLearn asks the model, after a run that gave evolution signals
	// (denials, undos, corrections…), for a candidate improvement: only
	// proposed, never active without the user (settings file only; the
	// Evolution panel sets it). Off by default.
	EvolveLearn bool `json:"evolveLearn,omitempty"`
	// Documents bounds each indexed document (settings file only).
	Documents DocumentLimits `json:"documents,omitzero"`
	// Batch is the task queue's (settings file only): how many workers
	// work through an "organise this folder" batch at once.
	Batch BatchSettings `json:"batch,omitzero"`
	// MCP is the MCP tools' call deadline and the user's choice per tool
	// (SetMCPTool; the call deadline in the settings file).
	MCP MCPSettings `json:"mcp,omitzero"`
	// Skills are the skill packages' settings (the Settings screen's Skills
	// section sets them through SetSkillEnabled).
	Skills SkillSettings `json:"skills,omitzero"`

	// Runner is which API the chat model is reached by: "ollama" (the
	// default; Ollama's own API at OllamaHost) or "openai" (an
	// OpenAI-compatible server at RunnerURL: llama.cpp, LM Studio, Jan,
	// vLLM, or Ollama's /v1). RunnerURL must be on this machine unless
	// RunnerRemote is set: the user's explicit choice that the
	// conversation, and the notes it reads, leave the laptop.
	Runner       string `json:"runner,omitempty"`
	RunnerURL    string `json:"runnerUrl,omitempty"`
	RunnerRemote bool   `json:"runnerRemote,omitempty"`

	// The Settings screen's choices (validate.go has each one's bound).
	// Temperature, when set, is the model's sampling temperature (0–2);
	// unset, the model's own default.
	Temperature *float64 `json:"temperature,omitempty"`
	// Think, when set, turns a thinking model's reasoning on or off; unset,
	// the model decides. Only sent to a model that can think.
	Think *bool `json:"think,omitempty"`
	// AboutYou is "what Quire should know about you": the user's words, put
	// in the system text of every later run.
	AboutYou string `json:"aboutYou,omitempty"`
	// Profile is how much the assistant may do without asking: "minimal",
	// "ask" (the default) or "write" (kernel/tool's profiles).
	Profile string `json:"profile,omitempty"`
	// Theme is the window's look: "system" (the default), "light" or "dark".
	Theme string `json:"theme,omitempty"`

	// Pinned names the settings this start was given by a flag or an
	// environment variable (setting -> "-model", "QUIRE_MODEL"...): they win
	// over settings.json at every start that gives them again, which the
	// Settings screen says. Never saved.
	Pinned map[string]string `json:"-"`
}

// DatabasePath is where the SQLite file lives.
func (c Config) DatabasePath() string { return filepath.Join(c.DataDir, DatabaseFile) }

var ErrBadSettings = errors.New("the settings file is not valid JSON")

// Env looks up an environment variable (os.LookupEnv in production).
type Env func(key string) (string, bool)

// Load resolves the configuration. fs receives the flags -data-dir,
// -ollama-host, -model, -notes-dir and -num-ctx; args are parsed by it.
func Load(fs *flag.FlagSet, args []string, env Env) (Config, error) {
	f := Register(fs)
	if err := fs.Parse(args); err != nil {
		return Config{}, err
	}
	return f.Resolve(env)
}

// Flags are the configuration's flags on a FlagSet the caller parses.
type Flags struct{ c Config }

// Register adds the flags -data-dir, -ollama-host, -model, -notes-dir and
// -num-ctx to fs; once fs is parsed, Resolve gives the configuration.
func Register(fs *flag.FlagSet) *Flags {
	f := &Flags{}
	fs.StringVar(&f.c.DataDir, "data-dir", "", "where Quire keeps its database and settings (env QUIRE_DATA_DIR)")
	fs.StringVar(&f.c.OllamaHost, "ollama-host", "", "Ollama's address (env OLLAMA_HOST, default "+DefaultOllamaHost+")")
	fs.StringVar(&f.c.Model, "model", "", "chat model (env QUIRE_MODEL, default "+DefaultModel+")")
	fs.StringVar(&f.c.NotesDir, "notes-dir", "", "the folder of notes the assistant works on (env QUIRE_NOTES_DIR)")
	fs.IntVar(&f.c.NumCtx, "num-ctx", 0, "context length sent to Ollama (env QUIRE_NUM_CTX, default "+strconv.Itoa(DefaultNumCtx)+")")
	return f
}

// Resolve applies the precedence: defaults < settings.json < env < flags.
func (f *Flags) Resolve(env Env) (Config, error) {
	flags := f.c
	c := Config{OllamaHost: DefaultOllamaHost, Model: DefaultModel, NumCtx: DefaultNumCtx}
	c.DataDir = first(flags.DataDir, lookup(env, "QUIRE_DATA_DIR"))
	if c.DataDir == "" {
		dir, err := defaultDataDir(env)
		if err != nil {
			return Config{}, err
		}
		c.DataDir = dir
	}
	saved, err := ReadSettings(c.DataDir)
	if err != nil {
		return Config{}, err
	}
	c.Pinned = pinned(flags, env)
	c.OllamaHost = first(flags.OllamaHost, lookup(env, "OLLAMA_HOST"), saved.OllamaHost, c.OllamaHost)
	c.Model = first(flags.Model, lookup(env, "QUIRE_MODEL"), saved.Model, c.Model)
	c.Runner = first(lookup(env, "QUIRE_RUNNER"), saved.Runner, RunnerOllama)
	c.RunnerURL = first(lookup(env, "QUIRE_RUNNER_URL"), saved.RunnerURL)
	c.RunnerRemote = saved.RunnerRemote
	c.NotesDir = first(flags.NotesDir, lookup(env, "QUIRE_NOTES_DIR"), saved.NotesDir)
	if given := first(flags.NotesDir, lookup(env, "QUIRE_NOTES_DIR")); given != "" && !filepath.IsAbs(given) {
		// Typed in a shell, a relative folder means the shell's; it is kept
		// whole, since the window and `quire serve` have no such folder.
		if c.NotesDir, err = filepath.Abs(given); err != nil {
			return Config{}, fmt.Errorf("the notes folder %q: %w", given, err)
		}
	}
	c.DisabledTools = saved.DisabledTools
	c.Documents = saved.Documents.withDefaults()
	c.Batch = saved.Batch.withDefaults()
	c.MCP = saved.MCP.withDefaults()
	c.Skills = saved.Skills
	c.MemoryWithoutAsking, c.MemoryLearn = saved.MemoryWithoutAsking, saved.MemoryLearn
	c.EvolveLearn = saved.EvolveLearn
	c.EmbedModel = first(lookup(env, "QUIRE_EMBED_MODEL"), saved.EmbedModel, DefaultEmbedModel)
	c.Temperature, c.Think, c.AboutYou = saved.Temperature, saved.Think, saved.AboutYou
	c.Profile, c.Theme = first(saved.Profile, DefaultProfile), first(saved.Theme, DefaultTheme)
	envCtx := 0
	if v := lookup(env, "QUIRE_NUM_CTX"); v != "" {
		if envCtx, err = strconv.Atoi(v); err != nil || envCtx <= 0 {
			return Config{}, fmt.Errorf("QUIRE_NUM_CTX=%q: want a positive whole number", v)
		}
	}
	for _, n := range []int{flags.NumCtx, envCtx, saved.NumCtx} {
		if n > 0 {
			c.NumCtx = n
			break
		}
	}
	if err := c.Validate(); err != nil {
		// The file is kept as it is: the user fixes the one value, where
		// it came from.
		var fe *FieldError
		if errors.As(err, &fe) && c.Pinned[fe.Field] != "" {
			return Config{}, fmt.Errorf("%s: %w", c.Pinned[fe.Field], err)
		}
		return Config{}, fmt.Errorf("%s: %w; fix it or delete the line", filepath.Join(c.DataDir, SettingsFile), err)
	}
	return c, nil
}

// pinned names the settings a flag or an environment variable gave.
func pinned(flags Config, env Env) map[string]string {
	out := map[string]string{}
	for _, p := range []struct{ setting, flag, flagName, env string }{
		{"ollamaHost", flags.OllamaHost, "-ollama-host", "OLLAMA_HOST"},
		{"model", flags.Model, "-model", "QUIRE_MODEL"},
		{"notesDir", flags.NotesDir, "-notes-dir", "QUIRE_NOTES_DIR"},
		{"embedModel", "", "", "QUIRE_EMBED_MODEL"},
		{"runner", "", "", "QUIRE_RUNNER"},
		{"runnerUrl", "", "", "QUIRE_RUNNER_URL"},
		{"numCtx", numFlag(flags.NumCtx), "-num-ctx", "QUIRE_NUM_CTX"},
	} {
		switch {
		case p.flag != "":
			out[p.setting] = p.flagName
		case lookup(env, p.env) != "":
			out[p.setting] = p.env
		}
	}
	return out
}

func numFlag(n int) string {
	if n > 0 {
		return strconv.Itoa(n)
	}
	return ""
}

func lookup(env Env, key string) string {
	v, _ := env(key)
	return v
}

func first(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// defaultDataDir follows XDG on Linux ($XDG_DATA_HOME/quire, else
// ~/.local/share/quire) and the platform's convention elsewhere. Never the
// working directory.
func defaultDataDir(env Env) (string, error) {
	if runtime.GOOS == "linux" || runtime.GOOS == "freebsd" || runtime.GOOS == "openbsd" {
		if x := lookup(env, "XDG_DATA_HOME"); x != "" && filepath.IsAbs(x) {
			return filepath.Join(x, "quire"), nil
		}
		home := lookup(env, "HOME")
		if home == "" {
			return "", errors.New("cannot find your home directory: set HOME or QUIRE_DATA_DIR")
		}
		return filepath.Join(home, ".local", "share", "quire"), nil
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("cannot find a data directory: %w; set QUIRE_DATA_DIR", err)
	}
	return filepath.Join(dir, "Quire"), nil
}

// ReadSettings reads the settings file; a missing file means no settings.
func ReadSettings(dataDir string) (Config, error) {
	var c Config
	b, err := os.ReadFile(filepath.Join(dataDir, SettingsFile))
	if errors.Is(err, os.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, err
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return c, fmt.Errorf("%s: %w (%v); fix or delete it", filepath.Join(dataDir, SettingsFile), ErrBadSettings, err)
	}
	return c, nil
}

// WriteSettings saves the settings a user chose, atomically.
func WriteSettings(dataDir string, c Config) error {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	return writeFile(dataDir, b)
}

// writeKeeping saves c as WriteSettings does, keeping every key of the
// file this Quire does not know (a later version's setting, a hand-written
// note) but the ones it retired: a save changes the settings it was asked
// to and loses nothing.
func writeKeeping(dataDir string, c Config) error {
	b, err := os.ReadFile(filepath.Join(dataDir, SettingsFile))
	if errors.Is(err, os.ErrNotExist) {
		return WriteSettings(dataDir, c)
	}
	if err != nil {
		return err
	}
	var file map[string]json.RawMessage
	if err := json.Unmarshal(b, &file); err != nil {
		return fmt.Errorf("%w (%v)", ErrBadSettings, err)
	}
	var ours map[string]json.RawMessage
	if b, err = json.Marshal(c); err == nil {
		err = json.Unmarshal(b, &ours)
	}
	if err != nil {
		return err
	}
	for _, key := range settingKeys() {
		delete(file, key) // absent from ours when it is unset now
	}
	// A name Quire retired is dropped: it must not come back with a
	// meaning (memoryApproval's "false" once kept memory unasked).
	delete(file, "memoryApproval")
	maps.Copy(file, ours)
	if b, err = json.MarshalIndent(file, "", "  "); err != nil {
		return err
	}
	return writeFile(dataDir, b)
}

// settingKeys are the settings.json names of Config's fields.
func settingKeys() []string {
	var keys []string
	t := reflect.TypeFor[Config]()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			keys = append(keys, name)
		}
	}
	return keys
}

// writeFile replaces settings.json with b, atomically.
func writeFile(dataDir string, b []byte) error {
	tmp, err := os.CreateTemp(dataDir, ".settings-*.json")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(dataDir, SettingsFile))
}
