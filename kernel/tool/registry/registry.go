// Package registry holds the tools of a process: it refuses a bad or
// duplicate declaration at start, says which tools a layered configuration
// lets the model see, and checks a call's arguments against the tool's JSON
// Schema with a message the model can act on.
//
// It is apart from kernel/tool because it uses a JSON Schema library
// (github.com/santhosh-tekuri/jsonschema/v6) and kernel/core, which imports
// kernel/tool, may depend on nothing outside the standard library and the
// kernel vocabulary. kernel/core must never import this package. It must
// never import a database driver, a model client, Wails, or a Quire package
// other than kernel/tool.
package registry

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"quire/kernel/tool"
)

// Registry is an immutable set of tools with unique names, each with its
// schema compiled once. It is safe for concurrent use.
type Registry struct {
	byName map[string]entry
	names  []string // sorted
}

type entry struct {
	tool   tool.Tool
	spec   tool.Spec // Parameters nil: see params
	params []byte    // the declared schema as compact JSON
	schema *jsonschema.Schema
}

var namePattern = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// New registers tools, taking each one's Spec once. It refuses, all at once
// and joined, every duplicate name (ErrDuplicate) and every invalid spec
// (ErrInvalidSpec): a name that does not match ^[a-zA-Z0-9_-]{1,64}$, an
// idempotency other than safe, keyed or unsafe, and Parameters that are not
// a valid JSON Schema (draft 2020-12 unless it says otherwise) of
// "type": "object". A tool that takes no arguments declares
// {"type": "object"}. A schema may not refer to anything outside itself.
func New(tools ...tool.Tool) (*Registry, error) {
	r := &Registry{byName: make(map[string]entry, len(tools))}
	var errs []error
	for i, t := range tools {
		if t == nil {
			errs = append(errs, fmt.Errorf("%w: tool #%d is nil", ErrInvalidSpec, i+1))
			continue
		}
		sp := t.Spec()
		if !namePattern.MatchString(sp.Name) {
			errs = append(errs, fmt.Errorf("%w: tool #%d: name %q must match %s", ErrInvalidSpec, i+1, sp.Name, namePattern))
			continue
		}
		if _, dup := r.byName[sp.Name]; dup {
			errs = append(errs, fmt.Errorf("%w: %q is declared twice", ErrDuplicate, sp.Name))
			continue
		}
		switch sp.Idempotency {
		case tool.Safe, tool.Keyed, tool.Unsafe:
		default:
			errs = append(errs, fmt.Errorf("%w: %s: idempotency %q is none of %q, %q, %q",
				ErrInvalidSpec, sp.Name, sp.Idempotency, tool.Safe, tool.Keyed, tool.Unsafe))
			continue
		}
		params, schema, err := compile(sp.Name, sp.Parameters)
		if err != nil {
			errs = append(errs, fmt.Errorf("%w: %s: parameters: %v", ErrInvalidSpec, sp.Name, err))
			continue
		}
		sp.Parameters = nil
		r.byName[sp.Name] = entry{tool: t, spec: sp, params: params, schema: schema}
		r.names = append(r.names, sp.Name)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	sort.Strings(r.names)
	return r, nil
}

// compile checks that params is a JSON Schema of an object and compiles it.
// It returns the schema as compact JSON too, so that every Spec handed out
// later gets a fresh copy and nobody can change the registry's.
func compile(name string, params map[string]any) ([]byte, *jsonschema.Schema, error) {
	if params == nil {
		return nil, nil, errors.New(`missing: a tool that takes no arguments declares {"type": "object"}`)
	}
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, nil, fmt.Errorf("not JSON: %v", err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, nil, fmt.Errorf("not JSON: %v", err)
	}
	if typ, _ := doc.(map[string]any)["type"].(string); typ != "object" {
		return nil, nil, errors.New(`"type" must be "object": a tool's arguments are always a JSON object`)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	// No loader for any scheme: a tool's schema is whole in itself, and
	// compiling it reads no file and no network.
	c.UseLoader(jsonschema.SchemeURLLoader{})
	url := "quire://tool/" + name
	if err := c.AddResource(url, doc); err != nil {
		return nil, nil, err
	}
	schema, err := c.Compile(url)
	if err != nil {
		return nil, nil, err
	}
	return raw, schema, nil
}

// Get returns the tool registered under name.
func (r *Registry) Get(name string) (tool.Tool, bool) {
	e, ok := r.byName[name]
	return e.tool, ok
}

// Specs returns every spec, sorted by name. Each is the caller's copy.
func (r *Registry) Specs() []tool.Spec {
	out := make([]tool.Spec, 0, len(r.names))
	for _, name := range r.names {
		out = append(out, r.spec(name))
	}
	return out
}

// spec returns a copy of a registered spec with a fresh Parameters map
// (JSON values: numbers as json.Number).
func (r *Registry) spec(name string) tool.Spec {
	e := r.byName[name]
	sp := e.spec
	dec := json.NewDecoder(bytes.NewReader(e.params))
	dec.UseNumber()
	if err := dec.Decode(&sp.Parameters); err != nil {
		// params was marshalled by New from a map.
		panic(fmt.Sprintf("registry: stored schema of %s does not decode: %v", name, err))
	}
	return sp
}

// Layer is one level of tool visibility: global settings, then the mode,
// then the sub-agent, then the user's allow and deny lists.
type Layer struct {
	// Name says where the layer comes from ("global", "mode research"), for
	// people reading a configuration; it does not change what is visible.
	Name string
	// Allow lists the tools this layer lets through. Nil lets everything
	// through; empty but not nil lets nothing through.
	Allow []string
	// Deny lists tools this layer hides, whatever any other layer allows.
	Deny []string
}

// Visible returns the specs the layers let the model see, sorted by name. A
// tool is visible only if every layer with a non-nil Allow lists it and no
// layer denies it. So each layer can only narrow: a deny is never lifted by
// another layer's Allow, earlier or later. Names in the lists that are not
// registered are ignored.
func (r *Registry) Visible(layers ...Layer) []tool.Spec {
	out := []tool.Spec{}
	for _, name := range r.names {
		if visible(name, layers) {
			out = append(out, r.spec(name))
		}
	}
	return out
}

func visible(name string, layers []Layer) bool {
	for _, l := range layers {
		if slices.Contains(l.Deny, name) {
			return false
		}
		if l.Allow != nil && !slices.Contains(l.Allow, name) {
			return false
		}
	}
	return true
}
