package assembly

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"quire/config"
	"quire/host"
	"quire/kernel/protocol"
	"quire/kernel/provider"
	"quire/kernel/provider/ollama"
	"quire/kernel/runtime"
	"quire/kernel/tool"
)

// probeWait bounds each question the Settings screen asks Ollama (the
// model's facts, the installed models, an address being typed): the screen
// answers within it even when an address swallows every packet.
const probeWait = 3 * time.Second

// settingsPort is the settings port for hosts. The notes folder goes
// through the settings owner, which readies the note tools, saves, then
// switches them; the screen's choices are checked here against what Ollama
// says (the address must parse, the context length fit the model), saved
// by the owner and applied (apply) to the adapter's address and the
// runtime's settings for the next run.
type settingsPort struct {
	p        *Parts
	notesErr error // why the folder cannot be changed; nil when it can
	readOnly bool  // a Reader changes nothing
}

func (s settingsPort) NotesDir() string { return s.p.settings.NotesDir() }
func (s settingsPort) SetNotesDir(dir string) error {
	if s.notesErr != nil {
		return s.notesErr
	}
	return s.p.settings.SetNotesDir(dir)
}

// About is this build and the settings in use, asking no one.
func (s settingsPort) About(context.Context) (host.About, error) {
	cfg := s.p.settings.Get()
	a := host.About{Protocol: protocol.Version, DataDir: cfg.DataDir, NotesDir: cfg.NotesDir, Ollama: cfg.OllamaHost, Model: cfg.Model}
	if bi, ok := debug.ReadBuildInfo(); ok {
		a.Version, a.Go = bi.Main.Version, bi.GoVersion
	}
	return a, nil
}

// Screen is the settings in use with what Ollama says of the chat model.
func (s settingsPort) Screen(ctx context.Context) (protocol.SettingsScreen, error) {
	ctx, cancel := context.WithTimeout(ctx, probeWait)
	defer cancel()
	cfg := s.p.settings.Get()
	runner, openaiFacts := s.p.runnerScreen(ctx, cfg)
	var facts protocol.ModelFacts
	if openaiFacts != nil {
		facts = *openaiFacts
	} else {
		facts = s.p.modelFacts(ctx, s.p.ollama, cfg.Model)
	}
	models, _ := s.p.ollama.Models(ctx) // none listed when Ollama does not answer; facts say why
	screen := screenOf(cfg, facts, models)
	screen.Runner = runner
	return screen, nil
}

// Update checks u against Ollama at the address it names, then has the
// settings owner save and publish it.
func (s settingsPort) Update(ctx context.Context, u protocol.UserSettings) (protocol.SettingsScreen, error) {
	if s.readOnly {
		return protocol.SettingsScreen{}, errReadOnly
	}
	s.p.settingsMu.Lock()
	defer s.p.settingsMu.Unlock()
	u.OllamaHost = strings.TrimSpace(u.OllamaHost)
	hostURL, err := ollama.ParseHost(u.OllamaHost)
	if err != nil || u.OllamaHost == "" {
		return protocol.SettingsScreen{}, &protocol.SettingError{Field: "ollamaHost",
			Message: "Quire cannot read this as an address: type it like http://127.0.0.1:11434."}
	}
	probeCtx, cancel := context.WithTimeout(ctx, probeWait)
	defer cancel()
	u.Runner, u.RunnerURL = strings.TrimSpace(u.Runner), strings.TrimSpace(u.RunnerURL)
	if err := s.checkRunner(probeCtx, u, hostURL); err != nil {
		return protocol.SettingsScreen{}, err
	}
	change := func(c *config.Config) error {
		c.Runner, c.RunnerURL, c.RunnerRemote = u.Runner, u.RunnerURL, u.RunnerRemote
		c.OllamaHost, c.Model, c.EmbedModel, c.NumCtx = u.OllamaHost, strings.TrimSpace(u.Model), strings.TrimSpace(u.EmbedModel), u.NumCtx
		c.Temperature, c.Think, c.AboutYou, c.Profile, c.Theme = u.Temperature, u.Think, u.AboutYou, u.Profile, u.Theme
		c.MCP.CallTimeoutSeconds = u.MCPCallSeconds
		return nil
	}
	// Every field is checked before the embedding model is switched (a
	// re-embed starts at once), so a refused field changes nothing at all.
	candidate := s.p.settings.Get()
	_ = change(&candidate)
	err = candidate.Validate()
	if err == nil {
		err = modelNames(candidate)
	}
	if err == nil && runnerOf(candidate) == cmp.Or(s.p.embedRunner, config.RunnerOllama) {
		// An embedding model of another runner than the index started
		// with is saved for the next start (the screen says so).
		err = s.switchEmbedder(ctx, candidate.EmbedModel)
	}
	if err == nil {
		err = s.p.settings.Update(change)
	}
	var fe *config.FieldError
	var se *protocol.SettingError
	if errors.As(err, &se) {
		return protocol.SettingsScreen{}, se
	}
	if errors.As(err, &fe) {
		field := fe.Field
		if field == "mcp.callTimeoutSeconds" {
			field = "mcpCallSeconds" // the file's name for it, the screen's
		}
		return protocol.SettingsScreen{}, &protocol.SettingError{Field: field, Message: asSentence(fe.Reason)}
	}
	if err != nil {
		return protocol.SettingsScreen{}, err
	}
	// The MCP client keeps its own copy of the MCP settings (it never
	// takes the settings owner's lock under its own), so the deadline is
	// handed to it here, after the save, for every later call. It is open
	// wherever a runtime is (app.go); a save never starts the servers.
	if s.p.runtime != nil {
		if m := s.p.openMCP(nil); m != nil {
			m.SetCallDeadline(s.p.settings.Get().MCP.CallTimeoutSeconds)
		}
	}
	return s.Screen(ctx)
}

// CheckOllama asks address whether Ollama answers there, saving nothing.
func (s settingsPort) CheckOllama(ctx context.Context, address string) protocol.OllamaCheck {
	address = strings.TrimSpace(address)
	hostURL, err := ollama.ParseHost(address)
	if err != nil || address == "" || len(address) > config.MaxHost {
		return protocol.OllamaCheck{Address: address, Models: []string{},
			Message: "Quire cannot read this as an address: type it like http://127.0.0.1:11434."}
	}
	ctx, cancel := context.WithTimeout(ctx, probeWait)
	defer cancel()
	at := ollama.New(hostURL, probeClient())
	check := protocol.OllamaCheck{Address: hostURL.String(), Models: []string{}}
	v, err := at.Version(ctx)
	var timeout interface{ Timeout() bool }
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &timeout) && timeout.Timeout():
		check.Message = fmt.Sprintf("Nothing answered at %s within %d seconds: is Ollama running there?", check.Address, int(probeWait.Seconds()))
	case errors.Is(err, errProbeRedirected):
		check.Message = fmt.Sprintf("%s redirects to another address: type the address Ollama itself listens on.", check.Address)
	case errors.Is(err, ollama.ErrAnswerTooLarge):
		check.Message = fmt.Sprintf("What answers at %s sends far more than Ollama does: check the address.", check.Address)
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, provider.ErrUnavailable) && !strings.Contains(err.Error(), "answer like Ollama"):
		check.Message = fmt.Sprintf("Nothing answers at %s: is Ollama running?", check.Address)
	case err != nil:
		check.Message = providerSentence(err)
	default:
		check.OK = true
		models, err := at.Models(ctx)
		if err == nil {
			check.Models = shownModels(models)
		}
		// Only what looks like a version is shown: the answer is whoever's
		// listens at the address typed.
		name := "Ollama"
		if looksLikeVersion(v) {
			check.Version, name = v, "Ollama "+v
		}
		check.Message = fmt.Sprintf("%s answers here (%s installed).", name, plural(len(models), "model"))
		if err != nil {
			check.Message = fmt.Sprintf("%s answers here, but its list of models could not be read.", name)
		}
	}
	return check
}

// modelFacts is what Ollama at o says of the model name; a model it knows
// is remembered for apply, which sends thinking only to a model that can.
func (p *Parts) modelFacts(ctx context.Context, o *ollama.Provider, name string) protocol.ModelFacts {
	info, err := o.ModelInfo(ctx, name)
	if err != nil {
		return protocol.ModelFacts{Name: name, Problem: providerSentence(err)}
	}
	f := protocol.ModelFacts{Name: name, Known: true, ContextLength: info.ContextLength,
		CanThink: slices.Contains(info.Capabilities, "thinking"), CanUseTools: slices.Contains(info.Capabilities, "tools")}
	p.facts.Store(o.Host()+"\x00"+name, f)
	return f
}

// apply gives the settings now in use to the parts that read them per run:
// the adapter's address (every later probe, embedding, pull and new run goes
// there; a running run keeps its frozen one) and the runtime's settings
// (frozen into each run's snapshot when it starts). It is the settings owner's OnChange user.
func (p *Parts) apply(cfg config.Config) {
	if hostURL, err := ollama.ParseHost(cfg.OllamaHost); err == nil {
		p.ollama.SetHost(hostURL)
	}
	p.openai.SetBase(runnerBase(cfg))
	if p.runtime != nil {
		p.runtime.SetSettings(p.runSettings(cfg))
	}
	if p.workers != nil {
		p.workers.SetSettings(workerSettings(p.runSettings(cfg)))
	}
}

// runSettings are the runtime's settings for cfg. Thinking is left to the
// model when Ollama said it cannot think (Ollama refuses "think" from such
// a model); when Ollama has not said, the user's choice is sent.
func (p *Parts) runSettings(cfg config.Config) runtime.Settings {
	// The address is the adapter's, set by apply just before: a run started
	// now keeps it (runtime.Settings.Host) when the address changes mid-run.
	rs := runtime.Settings{Model: cfg.Model, Host: p.ollama.Host(), NumCtx: cfg.NumCtx, Layers: disabledLayer(cfg.DisabledTools),
		Profile: tool.Profile(cfg.Profile), Temperature: cfg.Temperature, AboutYou: cfg.AboutYou}
	if cfg.Runner == config.RunnerOpenAI {
		// Ollama's own runs leave Runner empty, so their logs are as before.
		rs.Host, rs.Runner = p.openai.Base(), config.RunnerOpenAI
	}
	if cfg.Think != nil {
		f, known := p.facts.Load(p.ollama.Host() + "\x00" + cfg.Model)
		if !known || f.(protocol.ModelFacts).CanThink {
			rs.Think = cfg.Think
		}
	}
	return rs
}

// screenOf is the screen for cfg, facts being what Ollama said of its model.
func screenOf(cfg config.Config, facts protocol.ModelFacts, models []string) protocol.SettingsScreen {
	limits := protocol.SettingsLimits{MinNumCtx: config.MinNumCtx, MaxNumCtx: config.MaxNumCtx, DefaultNumCtx: config.DefaultNumCtx,
		MaxTemperature: config.MaxTemperature, MaxAboutYou: config.MaxAboutYou, MaxMCPCallSeconds: config.MaxMCPCallSeconds}
	numCtx := cfg.NumCtx
	if n := facts.ContextLength; n > 0 {
		// Ollama caps num_ctx at the trained length; the screen shows what
		// the model gets.
		limits.MaxNumCtx, limits.DefaultNumCtx, numCtx = n, min(limits.DefaultNumCtx, n), min(numCtx, n)
	}
	if models == nil {
		models = []string{}
	}
	pinned := cfg.Pinned
	if pinned == nil {
		pinned = map[string]string{}
	}
	return protocol.SettingsScreen{
		Settings: protocol.UserSettings{OllamaHost: cfg.OllamaHost, Model: cfg.Model, EmbedModel: cfg.EmbedModel, NumCtx: numCtx,
			Temperature: cfg.Temperature, Think: cfg.Think, AboutYou: cfg.AboutYou, Profile: cfg.Profile, Theme: cfg.Theme,
			MCPCallSeconds: cmp.Or(cfg.MCP.CallTimeoutSeconds, config.DefaultMCPCallSeconds),
			Runner:         runnerOf(cfg), RunnerURL: cfg.RunnerURL, RunnerRemote: cfg.RunnerRemote},
		NotesDir: cfg.NotesDir, Model: facts, Models: models, Limits: limits,
		Profiles: config.Profiles, Themes: config.Themes, Pinned: pinned,
	}
}

// providerSentence is the adapter's sentence for err (models.go's
// sentence), capitalised and ended, for the screen.
func providerSentence(err error) string { return asSentence(sentence(err)) }

// asSentence capitalises s and ends it with a full stop.
func asSentence(s string) string {
	if s == "" {
		return s
	}
	s = strings.ToUpper(s[:1]) + s[1:]
	if !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}

// thousands writes n with commas: 40,960.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// switchEmbedder hands a changed embedding model to the documents panel's
// back end while one runs: it checks the model with Ollama and re-embeds
// the documents in the background (the old vectors rank searches until the
// new ones are complete), as choosing it in the Documents panel does. With
// no panel running, the choice is only saved and the next start uses it.
func (s settingsPort) switchEmbedder(ctx context.Context, model string) error {
	s.p.ragMu.Lock()
	lib := s.p.library
	s.p.ragMu.Unlock()
	if lib == nil || model == s.p.settings.Get().EmbedModel {
		return nil
	}
	// The library's "" is no model; the screen's "" is the default one.
	chosen := cmp.Or(model, config.DefaultEmbedModel)
	if chosen == config.NoEmbedModel {
		chosen = ""
	}
	if err := lib.SetEmbedModel(ctx, chosen); err != nil {
		return &protocol.SettingError{Field: "embedModel", Message: asSentence(err.Error())}
	}
	return nil
}

// modelNames refuses a model name Ollama would not take (`../../x`,
// `x@sha256:00`): saved, it would make every chat fail with "model is
// required". The config package checks only length and characters, since
// it may not know Ollama's naming rules.
func modelNames(c config.Config) error {
	if c.Runner == config.RunnerOpenAI {
		// The names are the server's own (LM Studio's "qwen/qwen3-4b",
		// llama.cpp's model path): only /v1/models says which exist.
		return nil
	}
	if err := ollama.CheckModelName(c.Model); err != nil {
		return &protocol.SettingError{Field: "model", Message: fmt.Sprintf(
			"Ollama does not take %q as a model name: type one like qwen3:4b (see the installed models below).", c.Model)}
	}
	if c.EmbedModel != "" && c.EmbedModel != config.NoEmbedModel {
		if err := ollama.CheckModelName(c.EmbedModel); err != nil {
			return &protocol.SettingError{Field: "embedModel", Message: fmt.Sprintf(
				"Ollama does not take %q as a model name: type one like nomic-embed-text.", c.EmbedModel)}
		}
	}
	return nil
}
