package rag

import (
	"context"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	chromem "github.com/philippgille/chromem-go"

	"quire/internal/vecblob"
)

func randomUnit(r *rand.Rand, dims int) []float32 {
	v := make([]float32, dims)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	u, err := vecblob.Unit(v)
	if err != nil {
		panic(err)
	}
	return u
}

// The matrix's scan must rank exactly as chromem-go's exhaustive query over
// the same vectors, through additions, overwrites and removals (slots are
// reused), in one part and in several.
func TestMatrixRanksLikeChromem(t *testing.T) {
	for _, tc := range []struct {
		name       string
		n, dims, k int
	}{
		{"small, one part", 500, 24, 10},
		{"large, parts per CPU", 20000, 16, 100},
		{"k above the size", 7, 8, 50},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, uint64(tc.n)))
			ix := &Index{mat: newMatrix()}
			coll, err := chromem.NewDB().CreateCollection("c", nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			ix.coll = coll
			ctx := context.Background()
			var add []idVec
			for id := range int64(tc.n) {
				add = append(add, idVec{id + 1, randomUnit(r, tc.dims)})
			}
			if err := ix.addVectors(ctx, add); err != nil {
				t.Fatal(err)
			}
			// Remove every third, overwrite every fifth, add new ones into the freed slots.
			var gone []int64
			for id := int64(1); id <= int64(tc.n); id += 3 {
				gone = append(gone, id)
			}
			if err := ix.removeVectors(ctx, gone); err != nil {
				t.Fatal(err)
			}
			add = add[:0]
			for id := int64(2); id <= int64(tc.n); id += 5 {
				add = append(add, idVec{id, randomUnit(r, tc.dims)})
			}
			for id := range int64(len(gone) / 2) {
				add = append(add, idVec{int64(tc.n) + 1 + id, randomUnit(r, tc.dims)})
			}
			if err := ix.addVectors(ctx, add); err != nil {
				t.Fatal(err)
			}
			if ix.mat.Len() != coll.Count() {
				t.Fatalf("matrix holds %d vectors, chromem %d", ix.mat.Len(), coll.Count())
			}
			for range 20 {
				q := randomUnit(r, tc.dims)
				got, err := ix.mat.topK(q, tc.k)
				if err != nil {
					t.Fatal(err)
				}
				want, err := coll.QueryEmbedding(ctx, q, min(tc.k, coll.Count()), nil, nil)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != len(want) {
					t.Fatalf("%d hits, chromem %d", len(got), len(want))
				}
				// The collection's documents are the matrix's rows, not copies.
				id, _ := strconv.ParseInt(want[0].ID, 10, 64)
				if row := ix.mat.row(int(ix.mat.slot[id])); &row[0] != &want[0].Embedding[0] {
					t.Fatalf("chromem holds its own copy of chunk %d's vector", id)
				}
				for i := range got {
					if chunkKey(got[i]) == want[i].ID {
						continue
					}
					// The two sum in different orders: only a near tie may swap.
					doc, err := coll.GetByID(ctx, chunkKey(got[i]))
					if err != nil {
						t.Fatalf("rank %d: id %d is not in chromem: %v", i+1, got[i], err)
					}
					if d := math.Abs(dot64(q, doc.Embedding) - float64(want[i].Similarity)); d > 1e-5 {
						t.Fatalf("rank %d: matrix has chunk %d, chromem %s (similarity apart by %g)", i+1, got[i], want[i].ID, d)
					}
				}
			}
		})
	}
}

func dot64(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func TestMatrixRefusesMixedDimensions(t *testing.T) {
	m := newMatrix()
	if _, err := m.set(1, []float32{1, 0, 0}); err != nil {
		t.Fatal(err)
	}
	_, err := m.set(2, []float32{1, 0})
	if err == nil || !strings.Contains(err.Error(), "one embedding model") {
		t.Fatalf("set with other dimensions: %v", err)
	}
	if _, err := m.topK([]float32{1, 0}, 3); err == nil {
		t.Fatal("a query with other dimensions was answered")
	}
	// Emptied, the matrix takes vectors of any length again (a new model).
	m.remove([]int64{1})
	if _, err := m.set(3, []float32{0, 1}); err != nil {
		t.Fatalf("after emptying: %v", err)
	}
	if ids, err := m.topK([]float32{0, 1}, 3); err != nil || len(ids) != 1 || ids[0] != 3 {
		t.Fatalf("topK = %v, %v", ids, err)
	}
}

// Equal similarities rank by lower id, so a search is repeatable.
func TestMatrixBreaksTiesByID(t *testing.T) {
	m := newMatrix()
	for _, id := range []int64{9, 4, 7, 1} {
		if _, err := m.set(id, []float32{0.6, 0.8}); err != nil {
			t.Fatal(err)
		}
	}
	m.set(5, []float32{1, 0})
	ids, err := m.topK([]float32{0.6, 0.8}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int64{1, 4, 7}; len(ids) != 3 || ids[0] != want[0] || ids[1] != want[1] || ids[2] != want[2] {
		t.Fatalf("topK = %v, want %v", ids, want)
	}
}
