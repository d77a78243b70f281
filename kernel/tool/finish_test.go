package tool

import (
	"regexp"
	"strings"
	"testing"
)

// TestFinishCutsLongOutputWithANote: the model reads MaxChars characters
// and a note saying how many more there are and where they are kept; the
// log gets everything.
func TestFinishCutsLongOutputWithANote(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", 100) + strings.Repeat("b", 12345)
	for _, c := range []struct {
		name      string
		content   string
		opts      FinishOptions
		wantModel string
	}{
		{"short output is untouched", "hello", FinishOptions{MaxChars: 10, Handle: "tool.result seq 7"}, "hello"},
		{"exactly at the limit is untouched", "hello", FinishOptions{MaxChars: 5, Handle: "h"}, "hello"},
		{"no limit keeps everything", long, FinishOptions{}, long},
		{"negative limit keeps everything", long, FinishOptions{MaxChars: -1}, long},
		{"long output is cut with the handle", long, FinishOptions{MaxChars: 100, Handle: "tool.result seq 42"},
			strings.Repeat("a", 100) + "\n[… 12,345 more characters not shown; the whole output is kept in the log as tool.result seq 42]"},
		{"without a handle the note claims nothing", "abcdef", FinishOptions{MaxChars: 2},
			"ab\n[… 4 more characters not shown]"},
		{"cut counts characters, not bytes", "héllo wörld", FinishOptions{MaxChars: 4, Handle: "h"},
			"héll\n[… 7 more characters not shown; the whole output is kept in the log as h]"},
		{"cut never splits a rune", "日本語のテキスト", FinishOptions{MaxChars: 3},
			"日本語\n[… 5 more characters not shown]"},
		{"millions get separators", strings.Repeat("x", 1_234_568), FinishOptions{MaxChars: 1},
			"x\n[… 1,234,567 more characters not shown]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			in := Result{Status: Success, Content: c.content, Data: map[string]int{"n": 1}, Meta: Meta{Attempts: 2}}
			model, full := Finish(in, c.opts)
			if model.Content != c.wantModel {
				t.Errorf("model content = %q\nwant %q", excerptForTest(model.Content), excerptForTest(c.wantModel))
			}
			if full != c.content {
				t.Errorf("full output lost text: %d bytes, want %d", len(full), len(c.content))
			}
			if model.Status != Success || model.Meta.Attempts != 2 || model.Data.(map[string]int)["n"] != 1 {
				t.Errorf("status, data or meta changed: %+v", model)
			}
			if in.Content != c.content {
				t.Error("Finish changed the result it was given")
			}
		})
	}
}

func excerptForTest(s string) string {
	if len(s) > 200 {
		return s[:100] + "…" + s[len(s)-100:]
	}
	return s
}

// TestFinishRedactsBeforeCutting: a secret is replaced in what the model
// reads and in what the log keeps, and the cut is measured on the redacted
// text, so a secret across the cut leaves no prefix behind.
func TestFinishRedactsBeforeCutting(t *testing.T) {
	t.Parallel()
	key := "AKIAIOSFODNN7EXAMPLE"
	in := Result{Status: Success, Content: "id=" + key + " and more text after it"}
	model, full := Finish(in, FinishOptions{MaxChars: 8, Redact: DefaultRedactions(), Handle: "h"})
	if strings.Contains(full, "AKIA") || strings.Contains(model.Content, "AKIA") {
		t.Errorf("secret survived: model %q, full %q", model.Content, full)
	}
	if full != "id=[redacted] and more text after it" {
		t.Errorf("full = %q", full)
	}
	if want := "id=[reda\n[… 28 more characters not shown; the whole output is kept in the log as h]"; model.Content != want {
		t.Errorf("model = %q, want %q", model.Content, want)
	}
}

// TestFinishAppliesEveryPatternInOrder: caller patterns work alongside the
// defaults, and a nil pattern is skipped.
func TestFinishAppliesEveryPatternInOrder(t *testing.T) {
	t.Parallel()
	pats := append(DefaultRedactions(), nil, regexp.MustCompile(`password=\S+`))
	model, _ := Finish(Result{Content: "password=hunter2 token sk-abcdefghijklmnopqrstuvwxyz0123"}, FinishOptions{Redact: pats})
	if want := "[redacted] token [redacted]"; model.Content != want {
		t.Errorf("content = %q, want %q", model.Content, want)
	}
}

// TestDefaultRedactionsCatchObviousSecrets: each default pattern with the
// secrets it must catch and the look-alikes it must leave alone.
func TestDefaultRedactionsCatchObviousSecrets(t *testing.T) {
	t.Parallel()
	pem := "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7bq\nc2VjcmV0\n-----END RSA PRIVATE KEY-----"
	for _, c := range []struct {
		name string
		in   string
		want string
	}{
		// PEM private keys.
		{"rsa key block", "key:\n" + pem + "\nafter", "key:\n[redacted]\nafter"},
		{"pkcs8 key block", "-----BEGIN PRIVATE KEY-----\nabc\n-----END PRIVATE KEY-----", "[redacted]"},
		{"openssh key block", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3Bl\n-----END OPENSSH PRIVATE KEY-----", "[redacted]"},
		{"encrypted key block", "-----BEGIN ENCRYPTED PRIVATE KEY-----\nx\n-----END ENCRYPTED PRIVATE KEY-----", "[redacted]"},
		{"key cut off before its end line", "x -----BEGIN EC PRIVATE KEY-----\nMHcCAQEE", "x [redacted]"},
		{"two keys stay two", pem + "\nmiddle\n" + pem, "[redacted]\nmiddle\n[redacted]"},
		{"public key kept", "-----BEGIN PUBLIC KEY-----\nMFkw\n-----END PUBLIC KEY-----", "-----BEGIN PUBLIC KEY-----\nMFkw\n-----END PUBLIC KEY-----"},
		{"certificate kept", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----"},
		{"prose about keys kept", "put your PRIVATE KEY in ~/.ssh", "put your PRIVATE KEY in ~/.ssh"},

		// AWS access key ids.
		{"aws long-term key", "aws_access_key_id = AKIAIOSFODNN7EXAMPLE", "aws_access_key_id = [redacted]"},
		{"aws temporary key", "ASIAY34FZKBOKMUTVV7A,", "[redacted],"},
		{"aws key too short kept", "AKIAIOSFODNN7EXAMPL", "AKIAIOSFODNN7EXAMPL"},
		{"aws key inside a longer word kept", "XAKIAIOSFODNN7EXAMPLE", "XAKIAIOSFODNN7EXAMPLE"},
		{"aws key too long kept", "AKIAIOSFODNN7EXAMPLEX", "AKIAIOSFODNN7EXAMPLEX"},
		{"lowercase kept", "akiaiosfodnn7example", "akiaiosfodnn7example"},

		// sk- API keys.
		{"openai key", "OPENAI_API_KEY=sk-abcdefghijklmnopqrstuvwxyz012345", "OPENAI_API_KEY=[redacted]"},
		{"openai project key", "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z_Q-zz end", "[redacted] end"},
		{"anthropic key", "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz012345-abc", "[redacted]"},
		{"sk key too short kept", "sk-abc123", "sk-abc123"},
		{"hyphenated words kept", "use sk-learn-compatible-estimator-interface", "use sk-learn-compatible-estimator-interface"},
		{"sk inside a word kept", "task-abcdefghijklmnopqrstuvwxyz", "task-abcdefghijklmnopqrstuvwxyz"},

		// GitHub tokens.
		{"github classic token", "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "[redacted]"},
		{"github fine-grained token", "github_pat_11ABCDEFG0123456789_abcdefghijklmnop", "[redacted]"},
		{"github token too short kept", "ghp_abc123", "ghp_abc123"},
		{"github-like word kept", "ghx_abcdefghijklmnopqrstuvwxyz0123456789", "ghx_abcdefghijklmnopqrstuvwxyz0123456789"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			model, full := Finish(Result{Content: c.in}, FinishOptions{Redact: DefaultRedactions()})
			if model.Content != c.want || full != c.want {
				t.Errorf("redacted %q\n got %q\nwant %q", c.in, model.Content, c.want)
			}
		})
	}
}

// TestDefaultRedactionsAreTheCallersToExtend: appending to the returned
// slice does not change the defaults another caller gets.
func TestDefaultRedactionsAreTheCallersToExtend(t *testing.T) {
	t.Parallel()
	a := DefaultRedactions()
	n := len(a)
	a[0] = regexp.MustCompile(`x`)
	_ = append(a, regexp.MustCompile(`y`))
	b := DefaultRedactions()
	if len(b) != n || b[0].String() == "x" {
		t.Errorf("defaults changed by a caller: %v", b)
	}
}
