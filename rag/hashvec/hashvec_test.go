package hashvec

import (
	"bytes"
	"context"
	"math"
	"runtime"
	"testing"
)

func dot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func TestVectorsAreUnitLengthDeterministicAndCloserForSharedWords(t *testing.T) {
	m := New(Default)
	vs, err := m.Embed(context.Background(), []string{
		"Insulin resistance in skeletal muscle cells",
		"insulin resistance of muscle cell",
		"The history of Norwegian shipping routes",
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vs {
		if len(v) != Default.Dims || math.Abs(dot(v, v)-1) > 1e-5 {
			t.Fatalf("vector %d: %d dims, norm² %f", i, len(v), dot(v, v))
		}
	}
	if again := m.Document("Insulin resistance in skeletal muscle cells", nil); dot(again, vs[0]) < 0.99999 {
		t.Error("the same text gave a different vector")
	}
	if near, far := dot(vs[0], vs[1]), dot(vs[0], vs[2]); near < 0.5 || far > 0.2 {
		t.Errorf("similar texts %.3f, unrelated %.3f", near, far)
	}
	if New(Config{Dims: 64, Words: 1, GramLen: 3, Grams: 0.5}).Name() == m.Name() {
		t.Error("a different configuration must have a different name")
	}
}

func TestQueryWeighsRareFeaturesByTheSketch(t *testing.T) {
	m := New(Config{Dims: 4096, Words: 1}) // words only, few collisions
	docs := []string{"common rare", "common", "common", "common", "common other"}
	sk := NewSketch()
	var feats [][]uint64
	vecs := make([][]float32, len(docs))
	for i, d := range docs {
		var fs []uint64
		vecs[i] = m.Document(d, func(h uint64) { fs = append(fs, h) })
		feats = append(feats, fs)
	}
	sk.Update(feats, +1)
	if sk.Docs() != 5 {
		t.Fatalf("docs %d", sk.Docs())
	}
	q := m.Query("common rare", sk)
	// "common" is in every document and weighs almost nothing: the
	// document with "rare" must win clearly over one with "common" only.
	if a, b := dot(q, vecs[0]), dot(q, vecs[1]); a < b+0.3 {
		t.Errorf("rare-word document %.3f vs common-only %.3f", a, b)
	}
	// Removing the documents restores an empty sketch.
	sk.Update(feats, -1)
	if sk.Docs() != 0 || sk.DF(feats[0][0]) != 0 {
		t.Error("removal did not undo the addition")
	}
	if m.Query("the of and", nil) == nil {
		t.Error("a query of stopwords only should still have a vector")
	}
	if m.Query("!!! ...", nil) != nil {
		t.Error("a query with no words has no vector")
	}
}

func TestSketchRoundTrip(t *testing.T) {
	sk := NewSketch()
	sk.Update([][]uint64{{1 << 40, 12345, 99}, {12345}}, +1)
	b, err := sk.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	back := NewSketch()
	if err := back.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	if back.Docs() != 2 || back.DF(12345) != 2 || back.DF(99) != 1 {
		t.Fatalf("docs %d df %d %d", back.Docs(), back.DF(12345), back.DF(99))
	}
	if err := back.UnmarshalBinary(b[:len(b)/2]); err == nil {
		t.Error("a truncated sketch was accepted")
	}
}

// A sketch that never counted a document holds no counters (the Go
// collector counts an untouched 8 MB as live and doubles the heap's goal by
// it) and reads, encodes, copies and uncounts as an all-zero one does.
func TestAnEmptySketchHoldsNoCounters(t *testing.T) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	empty := NewSketch()
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 64<<10 {
		t.Fatalf("an empty sketch allocated %d bytes", n)
	}
	zero := NewSketch() // counted, then uncounted: every counter back at 0
	zero.Update([][]uint64{{7, 1 << 41}}, +1)
	zero.Update([][]uint64{{7, 1 << 41}}, -1)
	empty.Update([][]uint64{{7}}, -1) // uncounting nothing changes nothing
	empty.Update(nil, +1)             // a rebuild that found no document
	if empty.rows[0] != nil {
		t.Fatal("counting no document gave the sketch its counters")
	}
	for _, c := range []struct {
		name string
		sk   *Sketch
	}{{"never counted", empty}, {"a copy of it", func() *Sketch { s := NewSketch(); s.Replace(empty); return s }()}} {
		if c.sk.DF(7) != 0 || c.sk.Docs() != 0 {
			t.Fatalf("%s: df %d docs %d", c.name, c.sk.DF(7), c.sk.Docs())
		}
		got, _ := c.sk.MarshalBinary()
		want, _ := zero.MarshalBinary()
		if !bytes.Equal(got, want) {
			t.Fatalf("%s encodes to %d bytes, an all-zero sketch to %d", c.name, len(got), len(want))
		}
		back := NewSketch()
		if err := back.UnmarshalBinary(got); err != nil || back.Docs() != 0 {
			t.Fatalf("%s: decoded %v, docs %d", c.name, err, back.Docs())
		}
	}
	empty.Update([][]uint64{{7}}, +1) // the first count gives it counters
	if empty.DF(7) != 1 || empty.Docs() != 1 {
		t.Fatalf("after a count: df %d docs %d", empty.DF(7), empty.Docs())
	}
}

func TestStemmer(t *testing.T) {
	for in, want := range map[string]string{"studies": "study", "cells": "cell", "classes": "class", "boxes": "box", "virus": "virus", "analysis": "analysis", "glass": "glass", "is": "is", "patches": "patch"} {
		if got := string(stem([]byte(in))); got != want {
			t.Errorf("stem(%q) = %q, want %q", in, got, want)
		}
	}
}
