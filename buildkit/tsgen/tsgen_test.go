package tsgen

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"quire/kernel/event"
)

type color string

type inner struct {
	N int `json:"n"`
}

type sample struct {
	Plain    string           `json:"plain"`
	Omitted  string           `json:"omitted,omitempty"`
	Zero     int              `json:"zero,omitzero"`
	GoName   bool             //
	Skipped  string           `json:"-"`
	Quoted   int64            `json:"quoted,string"`
	When     time.Time        `json:"when"`
	Raw      json.RawMessage  `json:"raw"`
	Any      any              `json:"any,omitempty"`
	Ptr      *inner           `json:"ptr"`
	PtrOmit  *inner           `json:"ptrOmit,omitempty"`
	List     []inner          `json:"list"`
	ListOmit []string         `json:"listOmit,omitempty"`
	Bytes    []byte           `json:"bytes"`
	Map      map[string]inner `json:"map"`
	Color    color            `json:"color"`
	Text     string           `json:"text"`
	Dash     string           `json:"a-b"`
	//lint:ignore U1000 an unexported field is here to show it is not written
	unexp  string
	Nested map[string][]bool `json:"nested,omitempty"`
	Ptrs   []*inner          `json:"ptrs"`
}

// TestFieldsFollowEncodingJSON pins each rule of the package doc: what Go
// writes is what the TypeScript declares.
func TestFieldsFollowEncodingJSON(t *testing.T) {
	f := New("// header\n", "", "")
	f.Union("Color", "", reflect.TypeFor[color](), "red", "it's")
	f.Interface("Inner", reflect.TypeFor[inner]())
	f.Interface("Sample", reflect.TypeFor[sample]())
	f.Field(reflect.TypeFor[sample](), "text", "'only'")
	b, err := f.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	got := string(b)
	for _, want := range []string{
		"export type Color = 'red' | 'it\\'s';",
		"  plain: string;",
		"  omitted?: string;",
		"  zero?: number;",
		"  GoName: boolean;",
		"  quoted: string;",
		"  when: string;",
		"  raw: unknown;",
		"  any?: unknown;",
		"  ptr: Inner | null;",
		"  ptrOmit?: Inner;",
		"  list: Inner[] | null;",
		"  listOmit?: string[];",
		"  bytes: string | null;",
		"  map: Record<string, Inner> | null;",
		"  color: Color;",
		"  text: 'only';",
		"  'a-b': string;",
		"  nested?: Record<string, boolean[] | null>;",
		"  ptrs: (Inner | null)[] | null;",
	} {
		if !strings.Contains(got, want+"\n") {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	for _, never := range []string{"Skipped", "unexp"} {
		if strings.Contains(got, never) {
			t.Errorf("%s must not be written:\n%s", never, got)
		}
	}
	if !strings.HasPrefix(got, "// header\n") {
		t.Errorf("header missing:\n%s", got)
	}
}

func TestMistakesFailNamingThem(t *testing.T) {
	cases := []struct {
		name  string
		build func(f *File)
		want  string
		is    error
	}{
		{"a struct nobody declared", func(f *File) { f.Interface("Sample", reflect.TypeFor[sample]()) }, "Sample.ptr", ErrUndeclared},
		{"an override of a field that is gone", func(f *File) { f.Field(reflect.TypeFor[inner](), "m", "string") }, `no JSON field "m"`, nil},
		{"one type under two names", func(f *File) {
			f.Interface("A", reflect.TypeFor[inner]())
			f.Interface("B", reflect.TypeFor[inner]())
		}, "declared twice", nil},
		{"not a struct", func(f *File) { f.Interface("C", reflect.TypeFor[color]()) }, "not a struct", nil},
		{"an embedded struct", func(f *File) {
			f.Interface("Inner", reflect.TypeFor[inner]())
			f.Interface("E", reflect.TypeFor[struct{ inner }]())
		}, "embedded field inner", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := New("", "", "")
			tc.build(f)
			_, err := f.Bytes()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error naming %q", err, tc.want)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Fatalf("got %v, want %v", err, tc.is)
			}
		})
	}
}

func TestDocCommentsComeFromSource(t *testing.T) {
	f := New("", "../..", "quire")
	f.Interface("ToolResultPayload", reflect.TypeFor[event.ToolResultPayload]())
	b, err := f.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"/**\n * ToolResultPayload is what a tool returned: Content is what the model sees,\n",
		"  /** the whole output when Content was cut */\n  full?: string;\n",
	} {
		if !strings.Contains(string(b), want) {
			t.Fatalf("missing %q in\n%s", want, b)
		}
	}
}

// TestMethodNamesParametersAsTheSourceDoes: an interface method's
// parameters' names (and doc comment) come from the source, so a generated
// call reads like the Go one; without a source root there are none.
func TestMethodNamesParametersAsTheSourceDoes(t *testing.T) {
	it := reflect.TypeFor[event.Log]()
	f := New("", "../..", "quire")
	if _, params := f.Method(it, "Events"); strings.Join(params, ",") != "ctx,session,from" {
		t.Errorf("Events: params %q", params)
	}
	if doc, params := New("", "", "quire").Method(it, "Events"); doc != "" || params != nil {
		t.Errorf("without source: %q %q", doc, params)
	}
}
