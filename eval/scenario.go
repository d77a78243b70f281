package eval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"quire/kernel/event"
	"quire/test/ollamatest"
)

// Classes of scenarios (issue 8): the user's ordinary tasks, the corners of
// the world (empty folders, failures, timing), and an adversary (the model
// or a document) trying to make the assistant do harm.
const (
	Normal      = "normal"
	Edge        = "edge"
	Adversarial = "adversarial"
)

// Classes in report order.
var Classes = []string{Normal, Edge, Adversarial}

// Scenario is one task, read from a YAML file in evals/. Every field is
// documented in docs/EVALS.md; unknown fields are refused when loading.
type Scenario struct {
	Name        string `yaml:"name"`
	Class       string `yaml:"class"`
	Description string `yaml:"description"`
	// Real false leaves the scenario out of runs against a real model: its
	// point is a failure only the fake server can stage (Ollama down, a
	// dropped stream).
	Real *bool `yaml:"real"`
	// Timeout bounds the whole scenario; default 30s (scripted) or 5m (real).
	Timeout Duration `yaml:"timeout"`

	Setup   Setup        `yaml:"setup"`
	User    []Action     `yaml:"user"`
	Model   []ModelTurn  `yaml:"model"`
	Answers []Answer     `yaml:"answers"`
	Expect  Expectations `yaml:"expect"`
	// Candidate, when set, judges a candidate by this scenario (candidate.go).
	Candidate *CandidateCheck `yaml:"candidate"`

	File string `yaml:"-"` // where it was read from
}

// Setup is the world the scenario starts in.
type Setup struct {
	// Notes are files in the notes folder the assistant works on.
	Notes []File `yaml:"notes"`
	// Documents are files indexed for search_docs (outside the notes folder).
	Documents []File `yaml:"documents"`
	// Outside are files beside the notes folder (at ../outside/ from its
	// root), which the note tools must never reach.
	Outside []File `yaml:"outside"`
	// Links are symbolic links made in the notes folder, to stage a way out.
	Links []Link `yaml:"links"`
	// NoNotesFolder starts with no notes folder chosen: no note tools.
	NoNotesFolder bool `yaml:"no_notes_folder"`
	// Ollama is "up" (default), "down" (nothing listens at its address) or
	// "no-model" (running, but the chat model is not installed).
	Ollama string `yaml:"ollama"`
	// NumCtx is the context length asked of the model; default 8192.
	NumCtx int `yaml:"num_ctx"`
	// RememberWithoutAsking turns on the memory panel's "remember without
	// asking" (off, as for a new user, by default).
	RememberWithoutAsking bool `yaml:"remember_without_asking"`
	// Model is the chat model the scenario runs with, installed on the fake
	// server beside its default (qwen3:4b, which can call tools): a model
	// without tools, or with a small trained context. Unset: the default.
	// A scenario with a model of its own does not run against a real Ollama.
	Model *ModelSetup `yaml:"model"`
	// Tools are test fixtures offered beside Quire's own tools: "sleep"
	// (waits ms milliseconds, stops when cancelled) and "hang" (never
	// returns; its deadline is 300ms).
	Tools []string `yaml:"tools"`
	// MCP are test MCP servers plugged in for the scenario (eval/mcp.go);
	// MCPCallSeconds is their tools' call deadline (default 60).
	MCP            []MCPServer `yaml:"mcp"`
	MCPCallSeconds int         `yaml:"mcp_call_seconds"`
	// Skills are installed and turned-off skill packages (skills.go).
	Skills SkillsSetup `yaml:"skills"`
}

// ModelSetup is a model the fake server has installed, as /api/show
// describes it.
type ModelSetup struct {
	Name string `yaml:"name"`
	// Capabilities as Ollama names them; default: completion only.
	Capabilities []string `yaml:"capabilities"`
	// ContextLength is the trained context; default 40,960.
	ContextLength int `yaml:"context_length"`
}

// File is a file to create: Text written Repeat times (default once), then
// End once (a marker at the end of a huge file).
type File struct {
	Path   string `yaml:"path"`
	Text   string `yaml:"text"`
	Repeat int    `yaml:"repeat"`
	End    string `yaml:"end"`
}

// Content is the file's bytes.
func (f File) Content() string { return strings.Repeat(f.Text, max(1, f.Repeat)) + f.End }

// Link is a symbolic link at Path (in the notes folder) to Target, as
// written (relative targets resolve from the link's folder).
type Link struct {
	Path   string `yaml:"path"`
	Target string `yaml:"target"`
}

// Action is one thing the user does, in order. Exactly one of Say, Cancel,
// Restart and NewConversation is set. When says what to wait for first.
type Action struct {
	Say string `yaml:"say"`
	// Intent of a message: follow_up (default), steer or inject.
	Intent  string `yaml:"intent"`
	Cancel  bool   `yaml:"cancel"`
	Restart bool   `yaml:"restart"`
	// NewConversation starts another conversation; the actions after it
	// are in that one (what memory carries from one to the next).
	NewConversation bool `yaml:"new_conversation"`
	// Organise starts a batch over this folder of the notes (the task
	// queue: one worker, so the scripted model turns answer its tasks in
	// note order), waits until it is reviewing, and gives the batch's one
	// answer: Review, or every proposal as it is.
	Organise string  `yaml:"organise"`
	Review   *Review `yaml:"review"`
	// Standing adds a standing task and fires it now (run-now): its batch
	// only proposes, then waits for the same one answer as an organise
	// action's (Review).
	Standing *StandingAction `yaml:"standing"`
	// When is what the user waits for before acting: an event type
	// (appended since the previous action, e.g. tool.started), "idle" (every
	// run so far has finished), or empty (act at once).
	When string `yaml:"when"`
}

// StandingAction is a standing task the user adds (issue 33): an organise
// batch over Folder, each worker told Instruction.
type StandingAction struct {
	Name        string `yaml:"name"`
	Folder      string `yaml:"folder"`
	Instruction string `yaml:"instruction"`
}

// Review is the user's one answer for a batch: every proposal is ticked
// except Reject's notes, Move gives some notes another destination, and
// None answers no to all of it.
type Review struct {
	Reject []string          `yaml:"reject"`
	Move   map[string]string `yaml:"move"`
	None   bool              `yaml:"none"`
}

// BatchCheck is what must hold of the scenario's last batch afterwards.
type BatchCheck struct {
	State   string `yaml:"state"`
	Done    *int   `yaml:"done"`
	Failed  *int   `yaml:"failed"`
	Applied *int   `yaml:"applied"`
	// Errors are texts the failed tasks' reasons must contain, one each.
	Errors []string `yaml:"errors"`
	// Tools are tool names no worker may be offered.
	NotOffered []string `yaml:"not_offered"`
	// Told are texts every worker's task must contain (a standing task's
	// instruction reaches each worker).
	Told []string `yaml:"told"`
}

// ModelTurn is one scripted reply of the model (the fake server's Turn).
type ModelTurn struct {
	Say        string     `yaml:"say"`
	Think      string     `yaml:"think"`
	Calls      []ToolCall `yaml:"calls"`
	Delay      Duration   `yaml:"delay"`
	DoneReason string     `yaml:"done_reason"`
	Fail       *Failure   `yaml:"fail"`
	// Endless: the model never ends this reply; say streams over and over
	// until the request's num_predict (ollamatest.Turn.Endless).
	Endless bool `yaml:"endless"`
}

// ToolCall is a scripted call. Args is any YAML mapping.
type ToolCall struct {
	ID   string         `yaml:"id"`
	Name string         `yaml:"name"`
	Args map[string]any `yaml:"args"`
}

// Failure is how a scripted reply fails (ollamatest.Failure).
type Failure struct {
	Kind    string `yaml:"kind"` // status, error_line, drop, hang
	After   int    `yaml:"after"`
	Status  int    `yaml:"status"`
	Message string `yaml:"message"`
}

// Answer is the user's answer to the next permission question. Tool, when
// set, is the tool the question must be about.
type Answer struct {
	Allow    bool   `yaml:"allow"`
	Feedback string `yaml:"feedback"`
	Tool     string `yaml:"tool"`
	// Hold leaves the question unanswered (until the run is cancelled).
	Hold bool `yaml:"hold"`
}

// Expectations are the outcome checks. Files and Unseen are outcomes that
// hold for any model, so they also apply against a real model; the rest
// describe the scripted conversation.
type Expectations struct {
	// Files maps a path in the notes folder to what must hold of it.
	Files map[string]FileCheck `yaml:"files"`
	// NotesUnchanged: the notes folder afterwards is exactly as set up.
	NotesUnchanged bool `yaml:"notes_unchanged"`
	// OutsideUnchanged: the files beside the notes folder are as set up
	// and nothing new appeared there.
	OutsideUnchanged bool `yaml:"outside_unchanged"`
	// Unseen are texts no request to the model may contain.
	Unseen []string `yaml:"unseen"`
	// LinksIntact: every link that resolved in the notes folder as set up
	// resolves afterwards, to the same note wherever it went (links.go).
	LinksIntact bool `yaml:"links_intact"`

	// Runs are the close reasons of the session's runs, in order.
	Runs []string `yaml:"runs"`
	// Error is a text the last run's error sentence must contain.
	Error string `yaml:"error"`
	// ErrorOpenAI replaces Error when the scenario runs through the
	// OpenAI-compatible adapter (Options.Runner "openai"), whose sentences
	// name the server and its log rather than Ollama's; empty, Error
	// applies to both.
	ErrorOpenAI string `yaml:"error_openai"`
	// Reply is text the last assistant message must contain.
	Reply []string `yaml:"reply"`
	// Events are events that must (or, with count 0, must not) be in the log.
	Events []EventCheck `yaml:"events"`
	// Seen are texts some request to the model must contain.
	Seen []string `yaml:"seen"`
	// SeenLast are texts the last request to the model must contain: what
	// must survive to the end of a long run (compaction must keep it).
	SeenLast []string `yaml:"seen_last"`
	// UnseenLast are texts the last request must not contain: what must not
	// reach a later conversation (a memory the user refused).
	UnseenLast []string `yaml:"unseen_last"`
	// Requests is the exact number of requests the model got; 0 means any.
	Requests int `yaml:"requests"`
	// Asked is the number of permission questions the user got; nil means any.
	Asked *int `yaml:"asked"`
	// Refused are texts the errors of the user's actions must contain, in
	// order: an action refused with an error not listed here fails the
	// scenario.
	Refused []string `yaml:"refused"`
	// Batch checks the last batch an organise action ran.
	Batch *BatchCheck `yaml:"batch"`
	// MCP checks the scenario's MCP servers afterwards, by name.
	MCP map[string]MCPCheck `yaml:"mcp"`
}

func (e Expectations) checksSomething() bool {
	return len(e.Files) > 0 || e.NotesUnchanged || e.OutsideUnchanged || len(e.Unseen) > 0 || e.LinksIntact || e.Runs != nil || e.Error != "" || e.ErrorOpenAI != "" ||
		len(e.Reply) > 0 || len(e.Events) > 0 || len(e.Seen) > 0 || len(e.SeenLast) > 0 || len(e.UnseenLast) > 0 || e.Requests > 0 || e.Asked != nil || len(e.Refused) > 0 ||
		e.Batch != nil || len(e.MCP) > 0
}

// FileCheck is what must hold of one file afterwards.
type FileCheck struct {
	Absent      bool     `yaml:"absent"`
	Equals      *string  `yaml:"equals"`
	Contains    []string `yaml:"contains"`
	NotContains []string `yaml:"not_contains"`
}

// EventCheck matches events of Type whose payload has Fields (equal, as
// text) and Contains (field -> substring). Count nil means at least one;
// a number means exactly that many.
type EventCheck struct {
	Type     string            `yaml:"type"`
	Fields   map[string]string `yaml:"fields"`
	Contains map[string]string `yaml:"contains"`
	Count    *int              `yaml:"count"`
}

// Duration is a time.Duration written as "30ms" in YAML.
type Duration time.Duration

func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	var s string
	if err := n.Decode(&s); err != nil {
		return err
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("line %d: %q is not a duration such as \"30ms\"", n.Line, s)
	}
	*d = Duration(v)
	return nil
}

// LoadDir reads every *.yaml file of dir, in name order (see LoadFS).
func LoadDir(dir string) ([]Scenario, error) { return LoadFS(os.DirFS(dir), dir) }

// LoadFS reads every *.yaml file at the top of fsys, in name order; files
// are named in errors and results as under dir. Any bad file fails the
// whole load, naming the file: a scenario never silently drops out.
func LoadFS(fsys fs.FS, dir string) ([]Scenario, error) {
	paths, err := fs.Glob(fsys, "*.yaml")
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("%w: no .yaml files in %s", ErrNoScenarios, dir)
	}
	sort.Strings(paths)
	var out []Scenario
	names := map[string]string{}
	var errs []error
	for _, p := range paths {
		name := filepath.Join(dir, p)
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			errs = append(errs, fmt.Errorf("%w: %w", ErrScenario, err))
			continue
		}
		sc, err := Parse(b)
		if err != nil {
			errs = append(errs, fmt.Errorf("%w: %s: %w", ErrScenario, name, err))
			continue
		}
		if sc.Name == "" {
			sc.Name = strings.TrimSuffix(p, ".yaml")
		}
		sc.File = name
		if other, dup := names[sc.Name]; dup {
			errs = append(errs, fmt.Errorf("%w: %s: the name %q is already used by %s", ErrScenario, name, sc.Name, other))
			continue
		}
		names[sc.Name] = name
		out = append(out, sc)
	}
	return out, errors.Join(errs...)
}

// Parse reads a scenario from YAML: a field the format does not know is an
// error (a misspelt check must not pass by checking nothing), and so is
// anything after the first document.
func Parse(b []byte) (Scenario, error) {
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	var sc Scenario
	if err := dec.Decode(&sc); err != nil {
		if errors.Is(err, io.EOF) {
			return sc, errors.New("the file is empty")
		}
		return sc, cleanYAMLError(err)
	}
	var extra any
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return sc, errors.New("only one YAML document is allowed per file")
	}
	return sc, sc.validate()
}

// cleanYAMLError turns yaml.v3's "field x not found in type eval.Setup" into
// a sentence a scenario author understands.
func cleanYAMLError(err error) error {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return err
	}
	msgs := make([]string, len(te.Errors))
	for i, m := range te.Errors {
		if a, b, ok := strings.Cut(m, " not found in type eval."); ok {
			m = a + " is not a field of " + strings.ToLower(b) + " (see docs/EVALS.md)"
		}
		msgs[i] = m
	}
	return errors.New(strings.Join(msgs, "; "))
}

var (
	knownIntents = []string{"", "follow_up", "steer", "inject"}
	knownFails   = []string{"status", "error_line", "drop", "hang"}
	knownOllama  = []string{"", "up", "down", "no-model"}
	knownReasons = []string{event.ReasonCompleted, event.ReasonCancelled, event.ReasonDenied, event.ReasonNothingToDo, event.ReasonError,
		event.ReasonMaxSteps, event.ReasonMaxTools, event.ReasonBudget, event.ReasonLoop, event.ReasonInterrupted, event.ReasonEmpty}
)

// validate checks the rules YAML types cannot express.
func (sc *Scenario) validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if !slices.Contains(Classes, sc.Class) {
		bad("class %q: want one of %s", sc.Class, strings.Join(Classes, ", "))
	}
	if len(sc.User) == 0 {
		bad("user: a scenario needs at least one action of the user")
	}
	for i, a := range sc.User {
		n := 0
		for _, set := range []bool{a.Say != "", a.Cancel, a.Restart, a.NewConversation, a.Organise != "", a.Standing != nil} {
			if set {
				n++
			}
		}
		if n != 1 {
			bad("user[%d]: set exactly one of say, cancel, restart, new_conversation, organise, standing", i)
		}
		if a.Review != nil && a.Organise == "" && a.Standing == nil {
			bad("user[%d].review: only an organise or standing action has a review", i)
		}
		if !slices.Contains(knownIntents, a.Intent) {
			bad("user[%d].intent %q: want follow_up, steer or inject", i, a.Intent)
		}
	}
	for i, t := range sc.Model {
		if t.Fail != nil && !slices.Contains(knownFails, t.Fail.Kind) {
			bad("model[%d].fail.kind %q: want one of %s", i, t.Fail.Kind, strings.Join(knownFails, ", "))
		}
		for j, c := range t.Calls {
			if c.Name == "" {
				bad("model[%d].calls[%d]: a call needs a name", i, j)
			}
		}
	}
	if !slices.Contains(knownOllama, sc.Setup.Ollama) {
		bad("setup.ollama %q: want up, down or no-model", sc.Setup.Ollama)
	}
	for _, name := range sc.Setup.Tools {
		if _, ok := fixtures[name]; !ok {
			bad("setup.tools: no fixture tool %q (there are sleep and hang)", name)
		}
	}
	for _, l := range sc.Setup.Links {
		if l.Path == "" || l.Target == "" || filepath.IsAbs(l.Path) || strings.HasPrefix(filepath.Clean(l.Path), "..") {
			bad("setup.links: a link needs a path inside the notes folder and a target (%q -> %q)", l.Path, l.Target)
		}
	}
	for _, f := range slices.Concat(sc.Setup.Notes, sc.Setup.Documents, sc.Setup.Outside) {
		if f.Path == "" || filepath.IsAbs(f.Path) || strings.HasPrefix(filepath.Clean(f.Path), "..") {
			bad("setup: file path %q must be relative and stay in its folder", f.Path)
		}
	}
	for _, r := range sc.Expect.Runs {
		if !slices.Contains(knownReasons, r) {
			bad("expect.runs: %q is not a close reason (%s)", r, strings.Join(knownReasons, ", "))
		}
	}
	if !sc.Expect.checksSomething() {
		bad("expect: a scenario must check something (files, runs, events, seen/unseen...), or it could never fail")
	}
	types := event.Types(false)
	known := func(t string) bool { return slices.Contains(types, event.Type(t)) }
	for i, e := range sc.Expect.Events {
		if _, ok := event.PayloadType(event.Type(e.Type)); !ok {
			bad("expect.events[%d].type %q is not an event type (see kernel/event/types.go)", i, e.Type)
		} else if k := unknownField(e); k != "" {
			// A misspelt field would match nothing: with count 0 the check
			// could never fail, so the payload's Go type decides the names.
			bad("expect.events[%d]: %s has no field %q (it has %s)", i, e.Type, k, strings.Join(jsonNames(event.Type(e.Type)), ", "))
		}
	}
	errs = append(errs, sc.validateMCP()...)
	if sc.Candidate != nil {
		errs = append(errs, sc.Candidate.validate()...)
	}
	for i, a := range sc.User {
		if _, _, mcp := mcpWait(a.When); a.When != "" && a.When != "idle" && !mcp && !known(a.When) {
			bad("user[%d].when %q: want idle, an event type such as tool.started, or mcp:SERVER:STATE", i, a.When)
		}
	}
	return errors.Join(errs...)
}

// unknownField is a field a check names (fields or contains) that the Go
// payload type of its event type does not have, or "".
func unknownField(ec EventCheck) string {
	names := jsonNames(event.Type(ec.Type))
	for _, m := range []map[string]string{ec.Fields, ec.Contains} {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if !slices.Contains(names, k) {
				return k
			}
		}
	}
	return ""
}

// jsonNames are the JSON names of the fields of t's payload type, as
// encoding/json writes them (none for an unknown type).
func jsonNames(t event.Type) []string {
	pt, ok := event.PayloadType(t)
	if !ok {
		return nil
	}
	var out []string
	for i := range pt.NumField() {
		f := pt.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, name)
	}
	return out
}

// turns converts the scripted model turns for the fake server.
func (sc *Scenario) turns() ([]ollamatest.Turn, error) {
	out := make([]ollamatest.Turn, len(sc.Model))
	for i, m := range sc.Model {
		t := ollamatest.Turn{DoneReason: m.DoneReason, Delay: time.Duration(m.Delay), Endless: m.Endless}
		if m.Say != "" {
			// Streamed word by word, so a cancel can land mid-reply.
			t.Content = slices.DeleteFunc(strings.SplitAfter(m.Say, " "), func(p string) bool { return p == "" })
		}
		if m.Think != "" {
			t.Thinking = []string{m.Think}
		}
		for _, c := range m.Calls {
			args := []byte("{}")
			if c.Args != nil {
				b, err := json.Marshal(c.Args)
				if err != nil {
					return nil, fmt.Errorf("%w: %s: model[%d] call %s: %w", ErrScenario, sc.File, i, c.Name, err)
				}
				args = b
			}
			t.ToolCalls = append(t.ToolCalls, ollamatest.ToolCall{ID: c.ID, Name: c.Name, Arguments: args})
		}
		if m.Fail != nil {
			t.Fail = ollamatest.Failure{Kind: ollamatest.FailKind(m.Fail.Kind), After: m.Fail.After, Status: m.Fail.Status, Message: m.Fail.Message}
		}
		out[i] = t
	}
	return out, nil
}
