package event

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

func TestEncodeRejects(t *testing.T) {
	type node struct {
		Next *node `json:"next"`
	}
	loop := &node{}
	loop.Next = loop
	selfMap := map[string]any{}
	selfMap["self"] = selfMap
	result := func(data any) Draft {
		return Draft{Type: ToolResult, Time: t0, Payload: ToolResultPayload{Name: "t", Data: data}}
	}
	cases := []struct {
		name  string
		draft Draft
		want  error
	}{
		{"unregistered type", Draft{Type: "not.registered", Time: t0, Payload: UserMessagePayload{}}, ErrUnknownType},
		{"payload of another type", Draft{Type: UserMessage, Time: t0, Payload: RunStartedPayload{}}, ErrWrongPayload},
		{"pointer to the payload", Draft{Type: UserMessage, Time: t0, Payload: &UserMessagePayload{}}, ErrWrongPayload},
		{"nil payload", Draft{Type: UserMessage, Time: t0}, ErrWrongPayload},
		{"no time", Draft{Type: UserMessage, Payload: UserMessagePayload{}}, ErrNoTime},
		{"a func", result(func() {}), ErrUnserializable},
		{"a channel", result(make(chan int)), ErrUnserializable},
		{"a pointer cycle", result(loop), ErrUnserializable},
		{"a map cycle", result(selfMap), ErrUnserializable},
		{"NaN", result(math.NaN()), ErrUnserializable},
		{"infinity inside a slice", result([]any{1.0, math.Inf(1)}), ErrUnserializable},
		{"a complex number", result(complex(1, 2)), ErrUnserializable},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Encode(tc.draft)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
}

func TestDecodeGivesFreshCopies(t *testing.T) {
	enc, err := Encode(Draft{Type: ToolResult, Time: t0, Payload: ToolResultPayload{Name: "t", Data: map[string]any{"k": []any{"v"}}}})
	if err != nil {
		t.Fatal(err)
	}
	e := Event{Session: "s", Seq: 1, Type: enc.Type, Payload: enc.Payload}
	first, err := As[ToolResultPayload](e)
	if err != nil {
		t.Fatal(err)
	}
	first.Data.(map[string]any)["k"].([]any)[0] = "changed"
	second, err := As[ToolResultPayload](e)
	if err != nil {
		t.Fatal(err)
	}
	if got := second.Data.(map[string]any)["k"].([]any)[0]; got != "v" {
		t.Fatalf("a reader changed what the next reader sees: %v", got)
	}
}

func TestEncodeStoresWhatItValidated(t *testing.T) {
	// The bytes are produced once: changing the payload after Encode cannot
	// change what is stored.
	data := map[string]any{"n": 1.0}
	enc, err := Encode(Draft{Type: ToolResult, Time: t0, Payload: ToolResultPayload{Name: "t", Data: data}})
	if err != nil {
		t.Fatal(err)
	}
	data["n"] = math.NaN()
	if !strings.Contains(string(enc.Payload), `"n":1`) {
		t.Fatalf("stored bytes %s", enc.Payload)
	}
}

func TestUnknownTypesOnRead(t *testing.T) {
	ignorable := Event{Session: "s", Seq: 4, Type: "future.decoration", Ignorable: true}
	if known, err := Known(ignorable); known || err != nil {
		t.Fatalf("ignorable unknown: known=%v err=%v", known, err)
	}
	essential := Event{Session: "s", Seq: 5, Type: "future.essential"}
	_, err := Known(essential)
	var newer *ErrNewerEvent
	if !errors.As(err, &newer) || !errors.Is(err, ErrUnknownType) {
		t.Fatalf("unknown essential event: %v", err)
	}
	for _, want := range []string{"session s", "event 5", "future.essential", "newer Quire"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
	if _, err := Decode(essential); !errors.As(err, &newer) {
		t.Fatalf("Decode of an unknown essential event: %v", err)
	}
}

func TestEveryRegisteredTypeRoundTrips(t *testing.T) {
	for typ, sp := range specs {
		t.Run(string(typ), func(t *testing.T) {
			zero := reflectZero(sp)
			enc, err := Encode(Draft{Type: typ, Time: t0, Payload: zero})
			if err != nil {
				t.Fatal(err)
			}
			if enc.Visibility == "" {
				t.Fatal("no visibility")
			}
			if _, err := Decode(Event{Type: typ, Payload: enc.Payload}); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func reflectZero(sp spec) any { return reflect.New(sp.payload).Elem().Interface() }

// TestCheckIsTheOneDecodeRule: a stored event is readable only when its
// payload is JSON that decodes into its type's payload — trailing bytes and
// a field of the wrong JSON type included, which a record's reader (the
// replay) would choke on — and an unknown ignorable one passes.
func TestCheckIsTheOneDecodeRule(t *testing.T) {
	for _, tc := range []struct {
		name string
		e    Event
		want error // nil: readable
	}{
		{"good", Event{Type: UserMessage, Payload: []byte(`{"text":"hi"}`)}, nil},
		{"not JSON", Event{Type: UserMessage, Payload: []byte(`{"text":`)}, ErrUndecodable},
		{"bytes after the value", Event{Type: UserMessage, Payload: []byte(`{"text":"hi"} {}`)}, ErrUndecodable},
		{"wrong shape", Event{Type: UserMessage, Payload: []byte(`{"text":42}`)}, ErrUndecodable},
		{"unknown, ignorable", Event{Type: "future.decoration", Ignorable: true, Payload: []byte(`x`)}, nil},
		{"unknown", Event{Type: "future.essential", Payload: []byte(`{}`)}, ErrUnknownType},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Check(tc.e)
			if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
				t.Fatalf("Check: %v, want %v", err, tc.want)
			}
		})
	}
}
