package registry

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"quire/kernel/tool"
)

// Validate checks a call's arguments against the schema of the tool
// registered under name, compiled once by New. A failure wraps
// tool.ErrInvalidArgs and reads, for the model:
//
//	arguments for read_note: "path" is required; "limit" must be an integer (got "ten")
//
// listing every problem, each at the path of the value at fault (a JSON
// pointer without its leading slash: "filters/0/tag"), sorted by that path.
// Arguments that are not a JSON object give
//
//	arguments for read_note are not a JSON object: <the first 200 characters>
//
// An unregistered name is ErrUnknownTool.
func (r *Registry) Validate(name string, a tool.Args) error {
	e, ok := r.byName[name]
	if !ok {
		return fmt.Errorf("%w: %q", ErrUnknownTool, name)
	}
	return check(name, e.schema, a)
}

// Validate checks arguments against spec.Parameters as Registry.Validate
// does, compiling the schema on every call: it is for a spec that is in no
// registry. An invalid schema is ErrInvalidSpec.
func Validate(spec tool.Spec, a tool.Args) error {
	_, schema, err := compile(spec.Name, spec.Parameters)
	if err != nil {
		return fmt.Errorf("%w: %s: parameters: %v", ErrInvalidSpec, spec.Name, err)
	}
	return check(spec.Name, schema, a)
}

// argsError is tool.ErrInvalidArgs with the text to show the model.
type argsError struct{ msg string }

func (e *argsError) Error() string { return e.msg }
func (e *argsError) Unwrap() error { return tool.ErrInvalidArgs }

const excerptChars = 200

func check(name string, schema *jsonschema.Schema, a tool.Args) error {
	obj, ok := a.Object()
	if !ok {
		return &argsError{fmt.Sprintf("arguments for %s are not a JSON object: %s", name, excerpt(a.Raw(), excerptChars))}
	}
	err := schema.Validate(any(obj))
	if err == nil {
		return nil
	}
	var verr *jsonschema.ValidationError
	if !errors.As(err, &verr) {
		return &argsError{fmt.Sprintf("arguments for %s could not be checked: %v", name, err)}
	}
	var ps []problem
	collect(verr, obj, &ps)
	if len(ps) == 0 { // every failure has a leaf; this is a safety net
		ps = append(ps, problem{text: "the arguments do not match the tool's schema"})
	}
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].path < ps[j].path })
	texts := make([]string, 0, len(ps))
	seen := map[string]bool{}
	for _, p := range ps {
		if !seen[p.text] {
			seen[p.text] = true
			texts = append(texts, p.text)
		}
	}
	return &argsError{fmt.Sprintf("arguments for %s: %s", name, strings.Join(texts, "; "))}
}

// problem is one thing wrong with the arguments, as a sentence about a value.
type problem struct {
	path string // for sorting
	text string
}

// collect turns the library's tree of failures into problems, one per leaf,
// in words: no schema URL or keyword location reaches the model.
func collect(e *jsonschema.ValidationError, root any, out *[]problem) {
	loc := e.InstanceLocation
	at := func(tokens []string, format string, args ...any) {
		*out = append(*out, problem{path: pointer(tokens), text: subject(tokens) + " " + fmt.Sprintf(format, args...)})
	}
	got := func() string { return show(lookup(root, loc)) }
	switch k := e.ErrorKind.(type) {
	case *kind.Schema, *kind.Group, *kind.AllOf, *kind.Reference:
		for _, c := range e.Causes {
			collect(c, root, out)
		}
	case *kind.AnyOf:
		alternatives(e, root, out)
	case *kind.OneOf:
		if len(k.Subschemas) == 0 {
			alternatives(e, root, out)
		} else {
			at(loc, "matches more than one of the allowed forms (forms %d and %d); it must match exactly one", k.Subschemas[0]+1, k.Subschemas[1]+1)
		}
	case *kind.Required:
		for _, m := range k.Missing {
			at(child(loc, m), "is required")
		}
	case *kind.DependentRequired:
		for _, m := range k.Missing {
			at(child(loc, m), "is required when %s is given", subject(child(loc, k.Prop)))
		}
	case *kind.Dependency:
		for _, m := range k.Missing {
			at(child(loc, m), "is required when %s is given", subject(child(loc, k.Prop)))
		}
	case *kind.AdditionalProperties:
		for _, p := range k.Properties {
			at(child(loc, p), "is not an accepted property")
		}
	case *kind.Type:
		at(loc, "must be %s (got %s)", typeNames(k.Want), got())
	case *kind.Enum:
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = show(w)
		}
		if len(want) == 1 {
			at(loc, "must be %s (got %s)", want[0], got())
		} else {
			at(loc, "must be one of %s (got %s)", strings.Join(want, ", "), got())
		}
	case *kind.Const:
		at(loc, "must be %s (got %s)", show(k.Want), got())
	case *kind.Format:
		at(loc, "must be a valid %s (got %s)", k.Want, got())
	case *kind.Pattern:
		at(loc, "must match the pattern %s (got %s)", k.Want, got())
	case *kind.MinLength:
		at(loc, "must be at least %d characters long (got %d)", k.Want, k.Got)
	case *kind.MaxLength:
		at(loc, "must be at most %d characters long (got %d)", k.Want, k.Got)
	case *kind.Minimum:
		at(loc, "must be at least %s (got %s)", number(k.Want), number(k.Got))
	case *kind.Maximum:
		at(loc, "must be at most %s (got %s)", number(k.Want), number(k.Got))
	case *kind.ExclusiveMinimum:
		at(loc, "must be greater than %s (got %s)", number(k.Want), number(k.Got))
	case *kind.ExclusiveMaximum:
		at(loc, "must be less than %s (got %s)", number(k.Want), number(k.Got))
	case *kind.MultipleOf:
		at(loc, "must be a multiple of %s (got %s)", number(k.Want), number(k.Got))
	case *kind.MinItems:
		at(loc, "must have at least %d items (got %d)", k.Want, k.Got)
	case *kind.MaxItems:
		at(loc, "must have at most %d items (got %d)", k.Want, k.Got)
	case *kind.MinProperties:
		at(loc, "must have at least %d properties (got %d)", k.Want, k.Got)
	case *kind.MaxProperties:
		at(loc, "must have at most %d properties (got %d)", k.Want, k.Got)
	case *kind.UniqueItems:
		at(loc, "must not repeat items (items %d and %d are equal)", k.Duplicates[0], k.Duplicates[1])
	case *kind.PropertyNames:
		at(child(loc, k.Property), "is not an accepted property name")
	case *kind.FalseSchema, *kind.Not:
		at(loc, "is not allowed")
	default:
		rule := "its schema"
		if kw := e.ErrorKind.KeywordPath(); len(kw) > 0 {
			rule = strconv.Quote(kw[0])
		}
		at(loc, "does not satisfy %s", rule)
	}
}

// alternatives describes a value that matched none of anyOf/oneOf's forms.
// When every form failed only on its type ("a string", "null"), they merge
// into one sentence; otherwise the model is told the forms did not match.
func alternatives(e *jsonschema.ValidationError, root any, out *[]problem) {
	var want []string
	for _, c := range e.Causes {
		t, ok := onlyType(c)
		if !ok {
			*out = append(*out, problem{path: pointer(e.InstanceLocation),
				text: subject(e.InstanceLocation) + " does not match any of the allowed forms"})
			return
		}
		want = append(want, t.Want...)
	}
	*out = append(*out, problem{path: pointer(e.InstanceLocation),
		text: fmt.Sprintf("%s must be %s (got %s)", subject(e.InstanceLocation), typeNames(want), show(lookup(root, e.InstanceLocation)))})
}

// onlyType finds the type failure a form's error comes down to, if that is
// its only failure.
func onlyType(e *jsonschema.ValidationError) (*kind.Type, bool) {
	switch k := e.ErrorKind.(type) {
	case *kind.Type:
		return k, true
	case *kind.Group, *kind.Reference, *kind.AllOf:
		if len(e.Causes) == 1 {
			return onlyType(e.Causes[0])
		}
	}
	return nil, false
}

var articles = map[string]string{
	"object": "an object", "array": "an array", "string": "a string", "number": "a number",
	"integer": "an integer", "boolean": "a boolean (true or false)", "null": "null",
}

// typeNames says a list of JSON types in words: "a string or null".
func typeNames(types []string) string {
	var words []string
	for _, t := range types {
		w, ok := articles[t]
		if !ok {
			w = t
		}
		if !slices.Contains(words, w) {
			words = append(words, w)
		}
	}
	return strings.Join(words, " or ")
}

// pointer writes instance tokens as a JSON pointer without the leading slash.
func pointer(tokens []string) string {
	esc := make([]string, len(tokens))
	for i, t := range tokens {
		esc[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1")
	}
	return strings.Join(esc, "/")
}

// subject names the value a problem is about: its quoted path, or "the
// arguments" for the object itself.
func subject(tokens []string) string {
	if len(tokens) == 0 {
		return "the arguments"
	}
	return strconv.Quote(pointer(tokens))
}

func child(tokens []string, name string) []string {
	return append(append([]string(nil), tokens...), name)
}

// lookup returns the value at tokens within v, or nil.
func lookup(v any, tokens []string) any {
	for _, t := range tokens {
		switch x := v.(type) {
		case map[string]any:
			v = x[t]
		case []any:
			i, err := strconv.Atoi(t)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// show writes a value as JSON, short enough for one line.
func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return excerpt(string(b), 60)
}

func number(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// excerpt returns the first max characters of s, with "…" when it was cut,
// or "(empty)" when there is nothing.
func excerpt(s string, max int) string {
	if s == "" {
		return "(empty)"
	}
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	n := 0
	for i := range s {
		if n == max {
			return s[:i] + "…"
		}
		n++
	}
	return s
}
