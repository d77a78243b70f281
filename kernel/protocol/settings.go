package protocol

// UserSettings are the choices the Settings screen shows and changes, as
// the user made them; every one is saved in settings.json (config.Store)
// and reaches the next run, never the one in progress (the run's capability
// snapshot froze the ones the model sees).
type UserSettings struct {
	// OllamaHost is the Ollama address, as the user typed it.
	OllamaHost string `json:"ollamaHost"`
	// Model is the chat model; EmbedModel the one that embeds documents.
	Model      string `json:"model"`
	EmbedModel string `json:"embedModel"`
	// NumCtx is the context length asked of the model, in tokens.
	NumCtx int `json:"numCtx"`
	// Temperature is the sampling temperature (0–2); null: the model's own.
	Temperature *float64 `json:"temperature"`
	// Think turns a thinking model's reasoning on or off; null: the model
	// decides. Sent only to a model that can think.
	Think *bool `json:"think"`
	// AboutYou is "what Quire should know about you", put in the system
	// text of every later run.
	AboutYou string `json:"aboutYou"`
	// Profile is how much Quire may do without asking: minimal, ask, write.
	Profile string `json:"profile"`
	// Theme is the window's look: system, light, dark.
	Theme string `json:"theme"`
	// MCPCallSeconds is how long one MCP tool call may take before Quire
	// cuts it, in seconds (1 to SettingsLimits.MaxMCPCallSeconds).
	MCPCallSeconds int `json:"mcpCallSeconds"`
	// Runner is which API reaches the models: "ollama" (at OllamaHost) or
	// "openai", an OpenAI-compatible server (LM Studio, llama.cpp, Jan,
	// vLLM) at RunnerURL.
	Runner    string `json:"runner"`
	RunnerURL string `json:"runnerUrl"`
	// RunnerRemote is the user's explicit choice that conversations, and
	// the notes they read, may go to a RunnerURL off this machine; without
	// it such an address is refused.
	RunnerRemote bool `json:"runnerRemote"`
}

// SettingsScreen is everything the Settings screen renders: the settings
// and what the choices need (the model's trained length and whether it can
// think, the installed models, the bounds).
type SettingsScreen struct {
	Settings UserSettings `json:"settings"`
	// NotesDir is the notes folder ("" until chosen); it has its own control.
	NotesDir string `json:"notesDir"`
	// Model is what Ollama says about the chat model in use.
	Model ModelFacts `json:"model"`
	// Models are the names of the installed models; empty when Ollama at
	// the address in use did not answer.
	Models []string       `json:"models"`
	Limits SettingsLimits `json:"limits"`
	// Profiles and Themes are the choices, in the order shown.
	Profiles []string `json:"profiles"`
	Themes   []string `json:"themes"`
	// Pinned names the settings this start was given by a flag or an
	// environment variable (setting -> "-model", "QUIRE_MODEL"): a later
	// start given it again uses that instead of what is saved here.
	Pinned map[string]string `json:"pinned"`
	// Runner is the model runner section: the runners found, and the
	// chosen one's models with what each can do.
	Runner RunnerScreen `json:"runner"`
}

// RunnerScreen is what the Settings screen shows of the model runners.
type RunnerScreen struct {
	// Found are the runners answering on their usual local ports now
	// (Ollama 11434, LM Studio 1234, llama.cpp 8080, Jan 1337).
	Found []FoundRunner `json:"found"`
	// Models are the chosen runner's models (Ollama's /api/tags, else
	// /v1/models), with what each can do; empty when it did not answer,
	// and Problem says why.
	Models  []RunnerModel `json:"models"`
	Problem string        `json:"problem,omitempty"`
	// AssumedNumCtx is the context length Quire assumes for a model whose
	// server does not say it: the context length setting.
	AssumedNumCtx int `json:"assumedNumCtx"`
	// Restart says what of the chosen runner waits for the next start
	// ("" when everything applies now): the document index keeps
	// embedding with the runner it started with.
	Restart string `json:"restart,omitempty"`
}

// FoundRunner is a runner answering on its usual local port.
type FoundRunner struct {
	Name string `json:"name"` // "LM Studio", "llama.cpp", …
	// Runner and URL are the settings that choose it ("ollama" with
	// Ollama's address, or "openai" with the API's address).
	Runner string `json:"runner"`
	URL    string `json:"url"`
	Models int    `json:"models"`
}

// RunnerModel is one model of the chosen runner and what it can do, as
// far as the runner says.
type RunnerModel struct {
	Name string `json:"name"`
	// ContextLength is the model's context (0: the server does not say
	// it); ContextFrom where it was read.
	ContextLength int    `json:"contextLength"`
	ContextFrom   string `json:"contextFrom,omitempty"`
	// Tools is "yes", "no" or "unknown" (the server did not say and no
	// probe could tell).
	Tools  string `json:"tools"`
	Embeds bool   `json:"embeds"`
	// Says is the plain sentence of what it can do, context and tools.
	Says string `json:"says"`
}

// ModelFacts is what Ollama said about one model.
type ModelFacts struct {
	Name string `json:"name"`
	// Known: Ollama answered about it; when false, Problem says why.
	Known   bool   `json:"known"`
	Problem string `json:"problem,omitempty"`
	// ContextLength is the context the model was trained for (0: unknown).
	ContextLength int  `json:"contextLength"`
	CanThink      bool `json:"canThink"`
	CanUseTools   bool `json:"canUseTools"`
}

// SettingsLimits are the bounds of the screen's fields.
type SettingsLimits struct {
	MinNumCtx int `json:"minNumCtx"`
	// MaxNumCtx is the model's trained length when Ollama says it.
	MaxNumCtx int `json:"maxNumCtx"`
	// DefaultNumCtx is Quire's default context length, capped by the model's.
	DefaultNumCtx  int     `json:"defaultNumCtx"`
	MaxTemperature float64 `json:"maxTemperature"`
	// MaxAboutYou is the most characters the text about the user may have.
	MaxAboutYou int `json:"maxAboutYou"`
	// MaxMCPCallSeconds is the longest deadline of one MCP tool call.
	MaxMCPCallSeconds int `json:"maxMcpCallSeconds"`
}

// OllamaCheck is what an address answered when the screen checked it
// (nothing is saved): OK with the version and the installed models, or the
// sentence saying what is wrong and what to do.
type OllamaCheck struct {
	// Address is the address as Quire reads it (a port added, …).
	Address string   `json:"address"`
	OK      bool     `json:"ok"`
	Version string   `json:"version,omitempty"`
	Models  []string `json:"models"`
	Message string   `json:"message"`
}

// SettingError is a setting refused: Field is its name in UserSettings,
// Message the sentence shown next to it.
type SettingError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

func (e *SettingError) Error() string { return e.Message }

// SettingsSaved is the window's answer to a save: the screen as it now is,
// or the setting refused (the window's bound methods can reject only with
// a string, and the screen needs the field; `quire serve` answers 400
// {"error", "field"} instead).
type SettingsSaved struct {
	Screen  *SettingsScreen `json:"screen"`
	Refused *SettingError   `json:"refused"`
}
