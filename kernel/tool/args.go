package tool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Args are a call's arguments after the lenient parse: the text the model
// wrote, and the JSON object it meant when one could be read from it.
//
// Args are immutable: the zero value and every value ParseArgs returns are
// safe to copy and to share between goroutines, and nothing a caller does
// with what the accessors return changes them.
type Args struct {
	raw string
	obj []byte // the object, compacted; nil when the text is not one
}

// maxCommaRepairs bounds how many trailing commas ParseArgs removes.
const maxCommaRepairs = 8

// ParseArgs reads a model's arguments. It never fails: text that is not a
// JSON object is kept as it is and marked unparsed, so that the model can be
// told what it wrote (see Args.Object).
//
// It reads an object from the common slips of models, and only those:
//   - the object inside a Markdown code fence (```json ... ```), with or
//     without a language tag, and whatever prose around the fence;
//   - trailing commas before a closing } or ] (found by encoding/json's own
//     syntax error, so a comma inside a string is never touched);
//   - one stray character after the object, such as an extra "}".
//
// Anything else stays unparsed: an empty text, broken JSON, JSON that is not
// an object (an array, a string, a number), prose before the object, or more
// than one character after it (a second object is a second call the model
// meant, not junk to drop).
func ParseArgs(raw string) Args {
	a := Args{raw: raw}
	for _, body := range []string{raw, fenced(raw)} {
		if obj, ok := readObject(body); ok {
			a.obj = obj
			break
		}
	}
	return a
}

// fenced returns the contents of the first Markdown code fence in s, without
// its language tag, or "" when s has none. An unclosed fence runs to the end.
func fenced(s string) string {
	_, after, ok := strings.Cut(s, "```")
	if !ok {
		return ""
	}
	// The rest of the opening line is the language tag ("json"), if any.
	if nl := strings.IndexByte(after, '\n'); nl >= 0 {
		if tag := strings.TrimSpace(after[:nl]); !strings.ContainsAny(tag, "{[") {
			after = after[nl+1:]
		}
	} else {
		after = strings.TrimLeft(after, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
	}
	body, _, _ := strings.Cut(after, "```")
	return body
}

// readObject reads one JSON object from the start of s (after spaces),
// removing trailing commas that encoding/json stops at, and allowing at most
// one stray character after it. It returns the object compacted.
func readObject(s string) ([]byte, bool) {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "{") {
		return nil, false
	}
	for range maxCommaRepairs + 1 {
		dec := json.NewDecoder(strings.NewReader(s))
		var obj json.RawMessage
		err := dec.Decode(&obj)
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			fixed, ok := dropTrailingComma(s, syn.Offset)
			if !ok {
				return nil, false
			}
			s = fixed
			continue
		}
		if err != nil {
			return nil, false
		}
		if rest := strings.TrimSpace(s[dec.InputOffset():]); utf8.RuneCountInString(rest) > 1 {
			return nil, false
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, obj); err != nil {
			return nil, false
		}
		return buf.Bytes(), true
	}
	return nil, false
}

// dropTrailingComma removes the comma before the } or ] at which
// encoding/json reported a syntax error after reading offset bytes, if that
// is what the error was.
func dropTrailingComma(s string, offset int64) (string, bool) {
	at := int(offset) - 1
	if at <= 0 || at >= len(s) || (s[at] != '}' && s[at] != ']') {
		return "", false
	}
	i := at - 1
	for i >= 0 && strings.IndexByte(" \t\r\n", s[i]) >= 0 {
		i--
	}
	if i < 0 || s[i] != ',' {
		return "", false
	}
	return s[:i] + s[i+1:], true
}

// Raw is the text the model wrote, unchanged.
func (a Args) Raw() string { return a.raw }

// Object returns the arguments as a fresh map (numbers as json.Number, so
// no precision is lost), and false when the text was not a JSON object.
// The map is the caller's: changing it does not change a.
func (a Args) Object() (map[string]any, bool) {
	if a.obj == nil {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(a.obj))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		// obj was compacted from a valid object by ParseArgs.
		panic(fmt.Sprintf("tool: stored arguments do not decode: %v", err))
	}
	return m, true
}

// JSON returns the object as compact JSON (the repaired text when ParseArgs
// recovered it), or nil when the text was not a JSON object. The slice is a
// copy: it is what a tool should receive as Call.Arguments.
func (a Args) JSON() json.RawMessage {
	if a.obj == nil {
		return nil
	}
	return bytes.Clone(a.obj)
}

// Decode unmarshals the object into v, as encoding/json does. It fails with
// ErrInvalidArgs when the text was not a JSON object.
func (a Args) Decode(v any) error {
	if a.obj == nil {
		return fmt.Errorf("%w: the arguments are not a JSON object", ErrInvalidArgs)
	}
	return json.Unmarshal(a.obj, v)
}
