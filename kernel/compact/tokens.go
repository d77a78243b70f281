package compact

import (
	"encoding/json"
	"sync"
	"unicode/utf8"

	"quire/kernel/provider"
)

// The raw estimate: a token is about four characters of English or code,
// about one character of a script written without spaces (Chinese,
// Japanese, Korean: a byte-pair tokenizer gives such a character a token of
// its own, or more), and about two of any other letter outside ASCII; and a
// chat template wraps each message in a few tokens of its own (role
// markers, separators). Calibration corrects both per model.
const (
	charsPerToken   = 4
	messageOverhead = 4
	// toolOverhead is what a template adds around each declaration: Ollama
	// renders a tool as {"type":"function","function":{…}} on a line of its
	// own (qwen3's template: one JSON object a line inside <tools>), about
	// 35 characters more than the declaration's own JSON.
	toolOverhead = 10
	// wideFrom is where the scripts counted a token a character start
	// (U+2E80, the CJK radicals; kana, hangul and the CJK ideographs
	// follow).
	wideFrom = 0x2E80
)

// TextTokens is the raw estimate of text alone (see charsPerToken).
func TextTokens(text string) int {
	ascii, wide, other := 0, 0, 0
	for _, r := range text {
		switch {
		case r < utf8.RuneSelf:
			ascii++
		case r >= wideFrom:
			wide++
		default:
			other++
		}
	}
	return (ascii+charsPerToken-1)/charsPerToken + wide + (other+1)/2
}

// MessageTokens is the raw estimate of one message: its text, the names
// and arguments of its tool calls, and the template's wrapping.
func MessageTokens(m provider.Message) int {
	n := TextTokens(m.Content) + TextTokens(m.ToolName)
	for _, c := range m.ToolCalls {
		n += TextTokens(c.Name) + TextTokens(c.Arguments)
	}
	return n + messageOverhead
}

// ToolsTokens is the raw estimate of the tool declarations a request
// carries: the template renders each as JSON with a wrapper of its own.
func ToolsTokens(tools []provider.ToolSpec) int {
	n := 0
	for _, t := range tools {
		n += ToolTokens(t)
	}
	return n
}

// ToolTokens is the raw estimate of one tool declaration. JSON is
// denser in tokens than prose (quotes, braces, colons and short keys
// are tokens of their own): Quire's 16 tools, 10,484 bytes as Ollama
// renders them, needed at most 2.65 bytes a token in a real Ollama 0.17.4
// (issue 16), so ASCII here counts at 2.5 bytes a token, not 4.
func ToolTokens(t provider.ToolSpec) int {
	b, err := json.Marshal(t)
	if err != nil {
		return toolOverhead
	}
	ascii := 0
	for _, c := range b {
		if c < utf8.RuneSelf {
			ascii++
		}
	}
	rest := TextTokens(string(b)) - (ascii+charsPerToken-1)/charsPerToken
	return (2*ascii+4)/5 + rest + toolOverhead
}

// RequestTokens is the raw estimate of a whole request.
func RequestTokens(req provider.Request) int {
	n := ToolsTokens(req.Tools)
	for _, m := range req.Messages {
		n += MessageTokens(m)
	}
	return n
}

// Calibration holds, per model, the factor between the raw estimate and
// what the model's tokenizer counted (Ollama's prompt_eval_count). It is
// safe for concurrent use.
type Calibration struct {
	mu     sync.Mutex
	factor map[string]float64
}

// Factor bounds: a report outside them is a fluke (a cached prompt, a
// server that reports nothing), not a tokenizer.
const (
	minFactor = 0.25
	maxFactor = 4
)

// Observe records that a request estimated at raw tokens was counted as
// actual by model. Each observation moves the factor halfway, so one odd
// report cannot swing it and a new model settles in a few steps.
func (c *Calibration) Observe(model string, raw, actual int) {
	if raw <= 0 || actual <= 0 {
		return
	}
	f := min(max(float64(actual)/float64(raw), minFactor), maxFactor)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.factor == nil {
		c.factor = map[string]float64{}
	}
	if old, ok := c.factor[model]; ok {
		f = (old + f) / 2
	}
	c.factor[model] = f
}

// Factor is the model's factor; 1 until something was observed.
func (c *Calibration) Factor(model string) float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if f, ok := c.factor[model]; ok {
		return f
	}
	return 1
}

// Scale is a raw estimate for model corrected by what was observed.
func (c *Calibration) Scale(model string, raw int) int { return scale(raw, c.Factor(model)) }

// scale applies a factor to a raw estimate, rounding up so that an
// estimate never claims a request fits when it is a token over.
func scale(raw int, f float64) int {
	v := float64(raw) * f
	n := int(v)
	if float64(n) < v {
		n++
	}
	return n
}
