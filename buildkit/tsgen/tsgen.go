// Package tsgen writes TypeScript declarations of Go types, so the frontend
// reads the JSON the Go side writes through types made from the Go side's
// own definitions instead of a copy kept in step by hand.
//
// It follows encoding/json: a field's name is its json tag (or its Go
// name), "-" is skipped, omitempty / omitzero make it optional, a pointer
// without omitempty may be null, and so may a slice or map without
// omitempty (Go writes a nil one as null). Every struct a declared type
// refers to must be declared too, under a name chosen here: a Go type's
// name alone is not unique across packages (todo.Report, doctor.Report).
//
// Doc comments come from the Go source when a source root is given, so the
// generated file reads like the Go it came from.
//
// It owns no Quire type and imports only the standard library; contract.go
// names the types the frontend reads.
package tsgen

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ErrUndeclared is returned when a declared type refers to a struct that
// has no TypeScript name.
var ErrUndeclared = errors.New("type is not declared")

// File is a TypeScript module being assembled from Go types, in the order
// its parts are added.
type File struct {
	header string
	docs   *docs
	names  map[reflect.Type]string
	fields map[fieldRef]string
	parts  []part
	errs   []error
}

type fieldRef struct {
	t    reflect.Type
	name string // the JSON name
}

type part struct {
	name   string
	doc    string
	t      reflect.Type // an interface from a struct
	values []string     // a union of string literals
	raw    string       // verbatim TypeScript
}

// New starts a file. header opens it (a comment saying where it comes
// from); srcRoot and module locate the Go source for doc comments ("" for
// none): the package quire/kernel/event is read from srcRoot/kernel/event
// when module is "quire".
func New(header, srcRoot, module string) *File {
	f := &File{header: header, names: map[reflect.Type]string{}, fields: map[fieldRef]string{}}
	if srcRoot != "" {
		f.docs = newDocs(srcRoot, module)
	}
	return f
}

// Interface declares the struct type t as the TypeScript interface name
// (an empty struct becomes Record<string, never>).
func (f *File) Interface(name string, t reflect.Type) {
	if t.Kind() != reflect.Struct {
		f.errs = append(f.errs, fmt.Errorf("%s: %v is not a struct", name, t))
		return
	}
	if old, ok := f.names[t]; ok {
		f.errs = append(f.errs, fmt.Errorf("%v is declared twice, as %s and %s", t, old, name))
		return
	}
	f.names[t] = name
	f.parts = append(f.parts, part{name: name, t: t})
}

// Union declares name as a union of string literals. Pass the Go
// constants, so the TypeScript follows them. When named is a Go string
// type, every field of that type is given this union.
func (f *File) Union(name, doc string, named reflect.Type, values ...string) {
	if named != nil {
		f.names[named] = name
	}
	f.parts = append(f.parts, part{name: name, doc: doc, values: values})
}

// Same gives the Go type t the TypeScript name of a type declared
// elsewhere in the file (two Go packages' Visibility, say).
func (f *File) Same(t reflect.Type, name string) { f.names[t] = name }

// Field gives the field of struct t whose JSON name is field the
// TypeScript type ts (a union declared here, say, where Go has a plain
// string). A field that does not exist is an error, so a Go rename cannot
// leave an override behind unnoticed.
func (f *File) Field(t reflect.Type, field, ts string) {
	if _, ok := jsonField(t, field); !ok {
		f.errs = append(f.errs, fmt.Errorf("%v has no JSON field %q", t, field))
		return
	}
	f.fields[fieldRef{t, field}] = ts
}

// Raw adds TypeScript as it is, for what Go types cannot say by
// themselves (a map from event type to payload type, say).
func (f *File) Raw(ts string) { f.parts = append(f.parts, part{raw: ts}) }

// Name is the TypeScript name declared for t ("" when none).
func (f *File) Name(t reflect.Type) string { return f.names[t] }

// Bytes renders the file, or fails naming every undeclared type or
// missing field.
func (f *File) Bytes() ([]byte, error) {
	var b strings.Builder
	errs := slices.Clone(f.errs)
	b.WriteString(f.header)
	for _, p := range f.parts {
		b.WriteString("\n")
		switch {
		case p.raw != "":
			b.WriteString(p.raw)
		case p.t == nil:
			writeDoc(&b, "", p.doc)
			quoted := make([]string, len(p.values))
			for i, v := range p.values {
				quoted[i] = tsString(v)
			}
			fmt.Fprintf(&b, "export type %s = %s;\n", p.name, strings.Join(quoted, " | "))
		default:
			if err := f.writeInterface(&b, p); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return []byte(b.String()), nil
}

func (f *File) writeInterface(b *strings.Builder, p part) error {
	writeDoc(b, "", f.docs.typeDoc(p.t))
	fields := jsonFields(p.t)
	if len(fields) == 0 {
		fmt.Fprintf(b, "export type %s = Record<string, never>;\n", p.name)
		return nil
	}
	var errs []error
	fmt.Fprintf(b, "export interface %s {\n", p.name)
	for _, fd := range fields {
		if fd.embedded {
			errs = append(errs, fmt.Errorf("%s: embedded field %s is not supported; name it", p.name, fd.goName))
			continue
		}
		ts, ok := f.fields[fieldRef{p.t, fd.name}]
		if !ok {
			var err error
			ts, err = f.expr(fd.typ, fd.optional || fd.asString)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s.%s: %w", p.name, fd.name, err))
				continue
			}
		}
		if fd.asString {
			ts = "string"
		}
		writeDoc(b, "  ", f.docs.fieldDoc(p.t, fd.goName))
		opt := ""
		if fd.optional {
			opt = "?"
		}
		fmt.Fprintf(b, "  %s%s: %s;\n", tsKey(fd.name), opt, ts)
	}
	b.WriteString("}\n")
	return errors.Join(errs...)
}

var (
	timeType = reflect.TypeFor[time.Time]()
	rawType  = reflect.TypeFor[json.RawMessage]()
	marshals = reflect.TypeFor[json.Marshaler]()
)

// expr is the TypeScript type of Go type t as a field; omitted says the
// field is left out when empty, so it is never null.
func (f *File) expr(t reflect.Type, omitted bool) (string, error) {
	if name, ok := f.names[t]; ok {
		return name, nil
	}
	switch {
	case t == timeType:
		return "string", nil // RFC 3339
	case t == rawType:
		return "unknown", nil
	case t.Implements(marshals) || reflect.PointerTo(t).Implements(marshals):
		return "", fmt.Errorf("%v has its own JSON form; declare it with Field", t)
	}
	nullable := func(s string) string {
		if omitted {
			return s
		}
		return s + " | null"
	}
	switch t.Kind() {
	case reflect.String:
		return "string", nil
	case reflect.Bool:
		return "boolean", nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return "number", nil
	case reflect.Interface:
		return "unknown", nil
	case reflect.Pointer:
		inner, err := f.expr(t.Elem(), true)
		return nullable(inner), err
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return nullable("string"), nil // base64
		}
		inner, err := f.expr(t.Elem(), false) // a nil element is written as null
		if strings.Contains(inner, " ") {
			inner = "(" + inner + ")"
		}
		return nullable(inner + "[]"), err
	case reflect.Array:
		inner, err := f.expr(t.Elem(), false)
		if strings.Contains(inner, " ") {
			inner = "(" + inner + ")"
		}
		return inner + "[]", err
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return "", fmt.Errorf("map key %v is not a string", t.Key())
		}
		inner, err := f.expr(t.Elem(), false)
		return nullable("Record<string, " + inner + ">"), err
	case reflect.Struct:
		return "", fmt.Errorf("%w: %v (add it with Interface)", ErrUndeclared, t)
	}
	return "", fmt.Errorf("%v cannot be written as JSON", t)
}

type field struct {
	name, goName string
	typ          reflect.Type
	optional     bool
	asString     bool // the ",string" option
	embedded     bool
}

// jsonFields lists t's fields as encoding/json writes them, in order.
func jsonFields(t reflect.Type) []field {
	var out []field
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() && !sf.Anonymous {
			continue
		}
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = sf.Name
		}
		fd := field{name: name, goName: sf.Name, typ: sf.Type, embedded: sf.Anonymous && tag == ""}
		for o := range strings.SplitSeq(opts, ",") {
			switch o {
			case "omitempty", "omitzero":
				fd.optional = true
			case "string":
				fd.asString = true
			}
		}
		out = append(out, fd)
	}
	return out
}

func jsonField(t reflect.Type, name string) (field, bool) {
	if t.Kind() != reflect.Struct {
		return field{}, false
	}
	for _, fd := range jsonFields(t) {
		if fd.name == name {
			return fd, true
		}
	}
	return field{}, false
}

func writeDoc(b *strings.Builder, indent, doc string) {
	doc = strings.TrimSpace(doc)
	if doc == "" {
		return
	}
	doc = strings.ReplaceAll(doc, "*/", "*\\/")
	lines := strings.Split(doc, "\n")
	if len(lines) == 1 {
		fmt.Fprintf(b, "%s/** %s */\n", indent, lines[0])
		return
	}
	fmt.Fprintf(b, "%s/**\n", indent)
	for _, l := range lines {
		fmt.Fprintf(b, "%s\n", strings.TrimRight(indent+" * "+l, " "))
	}
	fmt.Fprintf(b, "%s */\n", indent)
}

func tsString(s string) string {
	q := strconv.Quote(s) // a JSON-compatible string is a TypeScript one
	return "'" + strings.ReplaceAll(strings.ReplaceAll(q[1:len(q)-1], `\"`, `"`), "'", `\'`) + "'"
}

func tsKey(s string) string {
	for i, r := range s {
		if !(r == '_' || r == '$' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return tsString(s)
		}
	}
	return s
}

// Expr is the TypeScript type of Go type t as a value (a slice or map may
// be null), with the names declared so far.
func (f *File) Expr(t reflect.Type) (string, error) { return f.expr(t, false) }

// Method is interface t's method name as its source declares it: its doc
// comment and its parameters' names ("" for one it leaves unnamed; none
// when the file has no source root).
func (f *File) Method(t reflect.Type, name string) (doc string, params []string) {
	return f.docs.method(t, name)
}
