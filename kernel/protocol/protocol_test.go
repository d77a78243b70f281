package protocol

import (
	"errors"
	"testing"
)

func TestCompatible(t *testing.T) {
	cases := []struct {
		version string
		ok      bool
	}{
		{"1.0", true}, {"1.9", true}, {"1", true},
		{"2.0", false}, {"0.9", false}, {"", false}, {"v1.0", false}, {"one", false},
	}
	for _, tc := range cases {
		t.Run(tc.version, func(t *testing.T) {
			err := Compatible(tc.version)
			if (err == nil) != tc.ok || (err != nil && !errors.Is(err, ErrIncompatible)) {
				t.Fatalf("Compatible(%q) = %v, want ok=%v", tc.version, err, tc.ok)
			}
		})
	}
}

func TestFilterByAudience(t *testing.T) {
	evs := []Event{{Seq: 0, Visibility: Public}, {Seq: 1, Visibility: Internal}, {Seq: 2, Visibility: Sensitive}, {Seq: 3, Visibility: "from-the-future"}}
	cases := []struct {
		name string
		a    Audience
		want []int64
	}{
		{"frontend", Audience{}, []int64{0}},
		{"trace view", Audience{Internal: true}, []int64{0, 1}},
		{"asked for everything", Audience{Internal: true, Sensitive: true}, []int64{0, 1, 2, 3}},
		{"sensitive without internal", Audience{Sensitive: true}, []int64{0, 2, 3}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Filter(evs, tc.a)
			if len(got) != len(tc.want) {
				t.Fatalf("got %v", got)
			}
			for i, e := range got {
				if e.Seq != tc.want[i] {
					t.Fatalf("got %v, want seqs %v", got, tc.want)
				}
			}
		})
	}
}

func TestClassifyKeepsMessageAndBothChains(t *testing.T) {
	base := errors.New("no such session: x")
	err := Classify(ErrNotFound, base)
	if err.Error() != base.Error() || !errors.Is(err, ErrNotFound) || !errors.Is(err, base) {
		t.Fatalf("classified %v", err)
	}
	if Classify(ErrNotFound, nil) != nil {
		t.Fatal("Classify of nil must be nil")
	}
}

// A refusal says only its sentence, and matches both its domain sentinel
// and its class.
func TestRefusalIsItsSentenceAndMatchesBoth(t *testing.T) {
	sentinel := errors.New("no batch has that id")
	err := Refusal(ErrNotFound, sentinel, `no batch has the id "b9"; list the batches to see which there are`)
	if err.Error() != `no batch has the id "b9"; list the batches to see which there are` {
		t.Errorf("message %q", err.Error())
	}
	if !errors.Is(err, sentinel) || !errors.Is(err, ErrNotFound) || errors.Is(err, ErrConflict) {
		t.Errorf("errors.Is: sentinel %v, class %v, other class %v", errors.Is(err, sentinel), errors.Is(err, ErrNotFound), errors.Is(err, ErrConflict))
	}
}

// Refusef formats the sentence and keeps both matches.
func TestRefusefFormatsTheSentence(t *testing.T) {
	sentinel := errors.New("no such mcp server")
	err := Refusef(ErrNotFound, sentinel, "No MCP server is named %q; add it in Settings first.", "fs")
	if err.Error() != `No MCP server is named "fs"; add it in Settings first.` {
		t.Errorf("the sentence is %q", err.Error())
	}
	if !errors.Is(err, sentinel) || !errors.Is(err, ErrNotFound) {
		t.Errorf("errors.Is: sentinel %v, class %v", errors.Is(err, sentinel), errors.Is(err, ErrNotFound))
	}
}
