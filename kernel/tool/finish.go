package tool

import (
	"fmt"
	"regexp"
	"strconv"
	"unicode/utf8"
)

// FinishOptions configure the "after" stage of a call.
type FinishOptions struct {
	// MaxChars is how many characters (runes) of Content the model reads;
	// zero or less keeps everything. The truncation note comes on top.
	MaxChars int
	// Redact lists patterns whose matches are replaced with "[redacted]",
	// in order, before anything is cut. DefaultRedactions is a start.
	Redact []*regexp.Regexp
	// Handle names where the whole output is kept ("tool.result seq 42"),
	// so the note can point there. Empty: the note says only what was cut.
	Handle string
}

// Redacted replaces each match of a redaction pattern.
const Redacted = "[redacted]"

// Finish is the "after" stage: it redacts res.Content, then cuts it to
// opts.MaxChars at a rune boundary with a note saying how much is not shown
// and where the rest is kept. It returns the result for the model and the
// whole content, redacted but not cut, for the log: a secret a tool printed
// is kept out of both. Status, Data and Meta are passed through unchanged
// (Data is not redacted: it is for the UI and is never sent to the model).
func Finish(res Result, opts FinishOptions) (forModel Result, full string) {
	full = res.Content
	for _, re := range opts.Redact {
		if re != nil {
			full = re.ReplaceAllLiteralString(full, Redacted)
		}
	}
	forModel = res
	forModel.Content = full
	if opts.MaxChars <= 0 {
		return forModel, full
	}
	total := utf8.RuneCountInString(full)
	if total <= opts.MaxChars {
		return forModel, full
	}
	cut, n := len(full), 0
	for i := range full {
		if n == opts.MaxChars {
			cut = i
			break
		}
		n++
	}
	note := fmt.Sprintf("\n[… %s more characters not shown]", thousands(total-opts.MaxChars))
	if opts.Handle != "" {
		note = fmt.Sprintf("\n[… %s more characters not shown; the whole output is kept in the log as %s]",
			thousands(total-opts.MaxChars), opts.Handle)
	}
	forModel.Content = full[:cut] + note
	return forModel, full
}

// thousands writes n with commas between groups of three digits: 12,345.
func thousands(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	var out []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}

// defaultRedactions are compiled once; DefaultRedactions hands out copies of
// the slice (a *regexp.Regexp is safe to share).
var defaultRedactions = []*regexp.Regexp{
	// A PEM private key block of any kind (RSA, EC, OPENSSH, ENCRYPTED, PKCS#8),
	// up to its END line, or to the end of the text when the END line is cut off.
	regexp.MustCompile(`(?s)-----BEGIN[ A-Z0-9]*PRIVATE KEY-----.*?(?:-----END[ A-Z0-9]*PRIVATE KEY-----|\z)`),
	// AWS access key ids: long-term (AKIA) and temporary (ASIA).
	regexp.MustCompile(`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`),
	// "sk-" API keys (OpenAI, including sk-proj-..., Anthropic's sk-ant-...):
	// at least 20 letters and digits in a row somewhere after the prefix, so
	// hyphenated words such as "sk-learn-compatible" are left alone.
	regexp.MustCompile(`\bsk-[A-Za-z0-9_-]*?[A-Za-z0-9]{20,}[A-Za-z0-9_-]*`),
	// GitHub tokens: classic (ghp_, gho_, ghu_, ghs_, ghr_) and fine-grained.
	regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})\b`),
}

// DefaultRedactions returns the patterns of obvious secrets: PEM private key
// blocks, AWS access key ids, "sk-" API keys and GitHub tokens. The slice is
// the caller's to extend.
func DefaultRedactions() []*regexp.Regexp {
	return append([]*regexp.Regexp(nil), defaultRedactions...)
}
