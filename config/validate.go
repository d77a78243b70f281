package config

import (
	"errors"
	"fmt"
	"math"
	"net"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Bounds of the settings a user changes on the Settings screen. The
// context length's upper bound here is only a sanity limit: the model's
// trained length, which the composition root asks Ollama for, is the real
// one.
const (
	MinNumCtx      = 1024
	MaxNumCtx      = 1 << 20
	MaxTemperature = 2.0
	MaxAboutYou    = 2000 // characters (runes), about 500 tokens of the model's context
	MaxModelName   = 256  // bytes; Ollama's longest name (host/namespace/model:tag) is far shorter
	MaxHost        = 512  // bytes
)

// Profiles and themes, as settings.json spells them. The profiles are
// kernel/tool's (a test in assembly keeps the two lists equal).
var (
	Profiles = []string{"minimal", "ask", "write"}
	Themes   = []string{"system", "light", "dark"}
)

// ErrInvalidSetting: a setting outside its bound. It is always wrapped in a
// *FieldError naming the setting and saying what is allowed.
var ErrInvalidSetting = errors.New("the setting is not valid")

// FieldError is a setting refused with the reason, for the screen to show
// next to the field (Field is its settings.json name).
type FieldError struct {
	Field  string
	Reason string // lowercase, says what is allowed
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Reason }
func (e *FieldError) Unwrap() error { return ErrInvalidSetting }

func invalid(field, format string, args ...any) error {
	return &FieldError{Field: field, Reason: fmt.Sprintf(format, args...)}
}

// Validate checks every setting the Settings screen changes against its
// bound (the first that is out of bounds is the error, a *FieldError).
func (c Config) Validate() error {
	if err := checkText("ollamaHost", "the Ollama address", c.OllamaHost, MaxHost); err != nil {
		return err
	}
	if err := checkText("model", "the chat model's name", c.Model, MaxModelName); err != nil {
		return err
	}
	if err := c.checkRunner(); err != nil {
		return err
	}
	// An empty name is what a Config made in code holds (the eval set's:
	// Quire's built-in offline embedder); a start reads it as the default.
	if err := checkText("embedModel", "the embedding model's name", c.EmbedModel, MaxModelName); c.EmbedModel != "" && err != nil {
		return err
	}
	if c.NumCtx < MinNumCtx || c.NumCtx > MaxNumCtx {
		return invalid("numCtx", "the context length must be between %d and %d tokens; %d is not", MinNumCtx, MaxNumCtx, c.NumCtx)
	}
	if t := c.Temperature; t != nil && (math.IsNaN(*t) || *t < 0 || *t > MaxTemperature) {
		return invalid("temperature", "the temperature must be between 0 and %g; %g is not", MaxTemperature, *t)
	}
	if !utf8.ValidString(c.AboutYou) {
		return invalid("aboutYou", "the text about you is not valid text (UTF-8)")
	}
	if i := strings.IndexFunc(c.AboutYou, hiddenControl); i >= 0 {
		return invalid("aboutYou", "the text about you holds an invisible control character (%U): remove it, or retype the text", []rune(c.AboutYou[i:])[0])
	}
	if n := utf8.RuneCountInString(c.AboutYou); n > MaxAboutYou {
		return invalid("aboutYou", "the text about you may be at most %d characters; it has %d", MaxAboutYou, n)
	}
	if b := c.Batch.StandingMinBattery; b < 0 || b > 100 {
		return invalid("batch.standingMinBattery", "the battery floor of standing tasks is a percent, 1 to 100; %d is not", b)
	}
	if w := c.Batch.Workers; w != 0 && (w < MinBatchWorkers || w > MaxBatchWorkers) {
		return invalid("batch.workers", "the batch workers must be between %d and %d; %d is not", MinBatchWorkers, MaxBatchWorkers, w)
	}
	if err := c.MCP.validate(); err != nil {
		return err
	}
	if err := c.Skills.validate(); err != nil {
		return err
	}
	if !slices.Contains(Profiles, c.Profile) {
		return invalid("profile", "the permission profile must be one of %s; %q is not", strings.Join(Profiles, ", "), c.Profile)
	}
	if !slices.Contains(Themes, c.Theme) {
		return invalid("theme", "the theme must be one of %s; %q is not", strings.Join(Themes, ", "), c.Theme)
	}
	return nil
}

// Runners, as settings.json spells them.
const (
	RunnerOllama = "ollama"
	RunnerOpenAI = "openai"
)

// checkRunner bounds the runner: a known API and, for an OpenAI-compatible
// server, an http(s) address with a host and a port, on this machine
// unless the user chose to let conversations leave it (RunnerRemote).
func (c Config) checkRunner() error {
	switch c.Runner {
	case "", RunnerOllama:
		return nil
	case RunnerOpenAI:
	default:
		return invalid("runner", "the runner must be %q or %q; %q is not", RunnerOllama, RunnerOpenAI, c.Runner)
	}
	if err := checkText("runnerUrl", "the server's address", c.RunnerURL, MaxHost); err != nil {
		return err
	}
	raw := c.RunnerURL
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || (u.Port() == "" && u.Scheme == "http") {
		return invalid("runnerUrl", "the server's address must be http(s)://host:port, such as http://127.0.0.1:1234/v1; %q is not", c.RunnerURL)
	}
	if !c.RunnerRemote && !Loopback(u.Hostname()) {
		return invalid("runnerUrl", "%s is not on this machine: your conversations, and the notes they read, would be sent to it; "+
			"choose to send conversations to another machine (runnerRemote) if you mean it, or use a runner on this machine", u.Host)
	}
	return nil
}

// Loopback reports whether host names this machine: localhost or a
// loopback address. Anything else is another machine.
func Loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// hiddenControl is a character that changes how text shows without being
// seen: C0/C1 controls other than newline and tab (an escape sequence in a
// terminal's replay) and the bidirectional overrides and isolates, which
// can make the text the user reads differ from what the model is given.
func hiddenControl(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case unicode.IsControl(r):
		return true
	case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069, r == 0x200E, r == 0x200F:
		return true
	}
	return false
}

// checkText bounds a one-line setting: present, not too long, and with no
// space or control character (Ollama names and addresses have none, and a
// pasted newline is a mistake the user should see).
func checkText(field, what, v string, limit int) error {
	switch {
	case v == "":
		return invalid(field, "%s is empty", what)
	case len(v) > limit:
		return invalid(field, "%s may be at most %d characters; it has %d", what, limit, len(v))
	case !utf8.ValidString(v):
		return invalid(field, "%s is not valid text (UTF-8)", what)
	case strings.IndexFunc(v, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0:
		return invalid(field, "%s may not contain spaces or control characters: %q", what, v)
	}
	return nil
}

// validate checks the MCP settings' bounds (the effects' spelling is the
// MCP client's to check: config does not know kernel/tool).
func (m MCPSettings) validate() error {
	if t := m.CallTimeoutSeconds; t != 0 && (t < 1 || t > MaxMCPCallSeconds) {
		return invalid("mcp.callTimeoutSeconds", "an MCP tool call's deadline must be between 1 and %d seconds; %d is not", MaxMCPCallSeconds, t)
	}
	if n := len(m.Tools); n > MaxMCPTools {
		return invalid("mcp.tools", "at most %d MCP tool choices are kept; the settings file has %d", MaxMCPTools, n)
	}
	for _, t := range m.Tools {
		if len(t.Server) > MaxModelName || len(t.Tool) > MaxModelName || len(t.Effects) > MaxModelName || len(t.Pinned) > MaxModelName {
			return invalid("mcp.tools", "an MCP tool choice names a server, tool, effects or pin longer than %d characters", MaxModelName)
		}
	}
	return nil
}

// skillName is a skill's name as skills.Check allows it (config does not
// import skills, which reads SKILL.md files).
var skillName = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// validate bounds the skills' settings: how many names, and each a name.
func (s SkillSettings) validate() error {
	if n := len(s.Disabled); n > MaxDisabledSkills {
		return invalid("skills.disabled", "at most %d skills may be turned off; the list has %d", MaxDisabledSkills, n)
	}
	for _, name := range s.Disabled {
		if len(name) > MaxSkillName || !skillName.MatchString(name) {
			return invalid("skills.disabled", "%q is not a skill name (lowercase letters, digits and single hyphens, at most %d)", name, MaxSkillName)
		}
	}
	return nil
}
