package tui

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// A line longer than a message may be is refused in words, and the lines
// after it are still read: one pasted too long line does not end the chat
// and lose the rest of the input.
func TestReadLinesRefusesALineTooLongAndGoesOn(t *testing.T) {
	for _, c := range []struct {
		name string
		long int
	}{
		{"just over the bound", maxLine + 1},
		{"far over it", 4 * maxLine},
		{"at the bound", maxLine},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := "hello\n" + strings.Repeat("y", c.long) + "\nafter\n"
			var got []Msg
			readLines(strings.NewReader(in), func(m Msg) { got = append(got, m) })
			if len(got) != 4 {
				t.Fatalf("delivered %d messages, want 4: %v", len(got), kinds(got))
			}
			if got[0] != Line("hello") || got[2] != Line("after") || got[3] != (EOF{}) {
				t.Fatalf("delivered %v", kinds(got))
			}
			if c.long <= maxLine {
				if got[1] != Line(strings.Repeat("y", c.long)) {
					t.Fatalf("a line at the bound was not delivered whole: %v", kinds(got))
				}
				return
			}
			f, ok := got[1].(Failed)
			if !ok || !errors.Is(f.Err, ErrLineTooLong) || f.Sent {
				t.Fatalf("the long line gave %v, want a Failed with ErrLineTooLong", got[1])
			}
		})
	}
}

func kinds(ms []Msg) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		switch x := m.(type) {
		case Line:
			out[i] = "Line(" + string(x[:min(len(x), 10)]) + ")"
		case Failed:
			out[i] = "Failed(" + x.Err.Error() + ")"
		default:
			out[i] = fmt.Sprintf("%T", m)
		}
	}
	return out
}

// The lines themselves read as bufio.Scanner's did: CRLF ends a line, an
// empty line is a line, the last one needs no newline.
func TestReadLinesSplitsAsLines(t *testing.T) {
	for in, want := range map[string][]Msg{
		"":                {EOF{}},
		"a\r\nb":          {Line("a"), Line("b"), EOF{}},
		"\n\nc\n":         {Line(""), Line(""), Line("c"), EOF{}},
		"one line only\n": {Line("one line only"), EOF{}},
	} {
		var got []Msg
		readLines(strings.NewReader(in), func(m Msg) { got = append(got, m) })
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("readLines(%q) = %v, want %v", in, kinds(got), kinds(want))
		}
	}
}
