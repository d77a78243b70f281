package tool

import (
	"encoding/json"
	"errors"
	"reflect"
	"sync"
	"testing"
)

// TestParseArgsReadsOrKeepsTheText: what the lenient parse reads as an
// object, what it repairs, and what it keeps as text. It never fails.
func TestParseArgsReadsOrKeepsTheText(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		raw  string
		want string // compact JSON of the object; "" when unparsed
	}{
		{"object", `{"path": "a.md", "limit": 10}`, `{"path":"a.md","limit":10}`},
		{"empty object", `{}`, `{}`},
		{"spaces around", " \n\t{\"a\":1}\n ", `{"a":1}`},
		{"nested", `{"a":{"b":[1,{"c":null}]}}`, `{"a":{"b":[1,{"c":null}]}}`},
		{"big integer kept exactly", `{"n": 12345678901234567890}`, `{"n":12345678901234567890}`},
		{"json fence", "```json\n{\"path\": \"a.md\"}\n```", `{"path":"a.md"}`},
		{"bare fence", "```\n{\"path\": \"a.md\"}\n```", `{"path":"a.md"}`},
		{"fence with prose around", "Here you go:\n```json\n{\"a\": 1}\n```\nDone.", `{"a":1}`},
		{"fence on one line", "```json{\"a\": 1}```", `{"a":1}`},
		{"unclosed fence", "```json\n{\"a\": 1}\n", `{"a":1}`},
		{"trailing comma in object", `{"a": 1, "b": 2,}`, `{"a":1,"b":2}`},
		{"trailing comma before spaces", "{\"a\": 1 ,\n }", `{"a":1}`},
		{"trailing comma in array", `{"a": [1, 2,], "b": 3}`, `{"a":[1,2],"b":3}`},
		{"trailing commas at two levels", `{"a": {"b": 1,},}`, `{"a":{"b":1}}`},
		{"comma inside a string untouched", `{"a": "x,}", "b": 1,}`, `{"a":"x,}","b":1}`},
		{"one stray brace after", `{"a": 1}}`, `{"a":1}`},
		{"one stray character after", `{"a": 1} .`, `{"a":1}`},
		{"fence and trailing comma", "```json\n{\"a\": 1,}\n```", `{"a":1}`},

		{"empty", ``, ""},
		{"only spaces", "  \n", ""},
		{"array", `[1, 2]`, ""},
		{"string", `"hello"`, ""},
		{"number", `42`, ""},
		{"null", `null`, ""},
		{"broken", `{"a": `, ""},
		{"unquoted keys", `{a: 1}`, ""},
		{"single quotes", `{'a': 1}`, ""},
		{"doubled commas", `{"a": 1,, "b": 2}`, ""},
		{"leading comma", `{, "a": 1}`, ""},
		{"prose before", `Sure: {"a": 1}`, ""},
		{"two objects", `{"a": 1} {"a": 2}`, ""},
		{"trailing words", `{"a": 1} thanks`, ""},
		{"fence holding an array", "```json\n[1]\n```", ""},
		{"plain text", `read the file a.md`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			a := ParseArgs(c.raw)
			if a.Raw() != c.raw {
				t.Errorf("Raw() = %q, want the text unchanged %q", a.Raw(), c.raw)
			}
			_, parsed := a.Object()
			if got := string(a.JSON()); got != c.want || parsed != (c.want != "") {
				t.Errorf("ParseArgs(%q): JSON() = %q, parsed %v; want %q", c.raw, got, parsed, c.want)
			}
		})
	}
}

// TestArgsCannotBeChangedThroughTheirAccessors: the map from Object and the
// bytes from JSON are the caller's; the arguments stay what was parsed.
func TestArgsCannotBeChangedThroughTheirAccessors(t *testing.T) {
	t.Parallel()
	a := ParseArgs(`{"path": "a.md", "tags": ["x"], "opts": {"deep": true}}`)

	m, _ := a.Object()
	m["path"] = "evil.md"
	m["tags"].([]any)[0] = "y"
	m["opts"].(map[string]any)["deep"] = false
	delete(m, "opts")

	js := a.JSON()
	for i := range js {
		js[i] = 'X'
	}

	again, _ := a.Object()
	want := map[string]any{"path": "a.md", "tags": []any{"x"}, "opts": map[string]any{"deep": true}}
	if !reflect.DeepEqual(again, want) {
		t.Errorf("Object() after changes to earlier copies = %v, want %v", again, want)
	}
	if got := string(a.JSON()); got != `{"path":"a.md","tags":["x"],"opts":{"deep":true}}` {
		t.Errorf("JSON() after changes to an earlier copy = %s", got)
	}
}

// TestArgsKeepNumbersExact: numbers come back as json.Number, so an id
// beyond float64's precision is not rounded.
func TestArgsKeepNumbersExact(t *testing.T) {
	t.Parallel()
	m, ok := ParseArgs(`{"id": 9007199254740993, "x": 1.5}`).Object()
	if !ok {
		t.Fatal("not parsed")
	}
	if m["id"] != json.Number("9007199254740993") || m["x"] != json.Number("1.5") {
		t.Errorf("numbers = %#v, %#v", m["id"], m["x"])
	}
}

// TestArgsDecodeIntoAStruct: a tool reads its arguments with Decode, and
// unparsed arguments are ErrInvalidArgs rather than a zero struct.
func TestArgsDecodeIntoAStruct(t *testing.T) {
	t.Parallel()
	var in struct {
		Path  string `json:"path"`
		Limit int    `json:"limit"`
	}
	if err := ParseArgs("```json\n{\"path\": \"a.md\", \"limit\": 3,}\n```").Decode(&in); err != nil {
		t.Fatal(err)
	}
	if in.Path != "a.md" || in.Limit != 3 {
		t.Errorf("decoded %+v", in)
	}
	if err := ParseArgs(`not json`).Decode(&in); !errors.Is(err, ErrInvalidArgs) {
		t.Errorf("Decode of unparsed arguments = %v, want ErrInvalidArgs", err)
	}
	if err := ParseArgs(`{"limit": "ten"}`).Decode(&in); err == nil {
		t.Error("Decode of a string into an int succeeded")
	}
}

// TestZeroArgsAreUnparsed: an Args nobody parsed is not an empty object.
func TestZeroArgsAreUnparsed(t *testing.T) {
	t.Parallel()
	var a Args
	if _, ok := a.Object(); ok || a.JSON() != nil || a.Raw() != "" {
		t.Errorf("zero Args: Object ok %v, JSON %q, Raw %q", ok, a.JSON(), a.Raw())
	}
}

// TestArgsAreSafeToShare: one Args read from many goroutines (run with -race).
func TestArgsAreSafeToShare(t *testing.T) {
	t.Parallel()
	a := ParseArgs(`{"a": [1, 2, 3], "b": {"c": "d"}}`)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			m, _ := a.Object()
			m["a"] = nil
			var v map[string]any
			_ = a.Decode(&v)
			_ = a.JSON()
		})
	}
	wg.Wait()
	if got := string(a.JSON()); got != `{"a":[1,2,3],"b":{"c":"d"}}` {
		t.Errorf("after concurrent use JSON() = %s", got)
	}
}
