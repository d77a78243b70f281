package vecindex

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	chromem "github.com/philippgille/chromem-go"
)

func randomUnit(r *rand.Rand, dims int) []float32 {
	v := make([]float32, dims)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	u, err := Unit(v)
	if err != nil {
		panic(err)
	}
	return u
}

// The scan must rank exactly as chromem-go's exhaustive query over the
// index's own documents, through additions, overwrites and removals (slots
// are reused), in one part and in several.
func TestNearestRanksLikeChromem(t *testing.T) {
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
			x := New()
			var add []Vector
			for id := range int64(tc.n) {
				add = append(add, Vector{id + 1, randomUnit(r, tc.dims)})
			}
			if err := x.Add(add); err != nil {
				t.Fatal(err)
			}
			// Remove every third, overwrite every fifth, add new ones into the freed slots.
			var gone []int64
			for id := int64(1); id <= int64(tc.n); id += 3 {
				gone = append(gone, id)
			}
			x.Remove(gone)
			add = add[:0]
			for id := int64(2); id <= int64(tc.n); id += 5 {
				add = append(add, Vector{id, randomUnit(r, tc.dims)})
			}
			for id := range int64(len(gone) / 2) {
				add = append(add, Vector{int64(tc.n) + 1 + id, randomUnit(r, tc.dims)})
			}
			if err := x.Add(add); err != nil {
				t.Fatal(err)
			}
			coll, err := chromem.NewDB().CreateCollection("c", nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if err := coll.AddDocuments(ctx, x.Documents(), 1); err != nil {
				t.Fatal(err)
			}
			held := map[int64]bool{}
			for id := int64(1); id <= int64(tc.n); id++ {
				held[id] = (id-1)%3 != 0 || id%5 == 2
			}
			for id := range int64(len(gone) / 2) {
				held[int64(tc.n)+1+id] = true
			}
			want := 0
			for _, in := range held {
				if in {
					want++
				}
			}
			if x.Len() != want || coll.Count() != want {
				t.Fatalf("index holds %d vectors, its documents %d, want %d", x.Len(), coll.Count(), want)
			}
			for range 20 {
				q := randomUnit(r, tc.dims)
				got, err := x.Nearest(q, tc.k)
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
				// The documents' embeddings are the matrix's rows, not copies.
				if s := x.slot[got[0].ID]; Key(got[0].ID) == want[0].ID && &x.row(int(s))[0] != &want[0].Embedding[0] {
					t.Fatalf("the document of %d holds its own copy of the vector", got[0].ID)
				}
				for i := range got {
					if d := math.Abs(float64(got[i].Similarity - want[i].Similarity)); d > 1e-5 {
						t.Fatalf("rank %d: similarity %g, chromem %g", i+1, got[i].Similarity, want[i].Similarity)
					}
					if Key(got[i].ID) == want[i].ID {
						continue
					}
					// The two sum in different orders: only a near tie may swap.
					doc, err := coll.GetByID(ctx, Key(got[i].ID))
					if err != nil {
						t.Fatalf("rank %d: id %d is not in chromem: %v", i+1, got[i].ID, err)
					}
					if d := math.Abs(dot64(q, doc.Embedding) - float64(want[i].Similarity)); d > 1e-5 {
						t.Fatalf("rank %d: index has %d, chromem %s (similarity apart by %g)", i+1, got[i].ID, want[i].ID, d)
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

// Each vector is held once: a document's embedding is its row, and
// overwriting a vector changes the document in place.
func TestDocumentsShareTheRows(t *testing.T) {
	x := New()
	if err := x.Add([]Vector{{7, []float32{1, 0}}, {3, []float32{0, 1}}}); err != nil {
		t.Fatal(err)
	}
	docs := x.Documents()
	if len(docs) != 2 {
		t.Fatalf("%d documents", len(docs))
	}
	for _, d := range docs {
		s, ok := x.slot[map[string]int64{"7": 7, "3": 3}[d.ID]]
		if !ok || &x.row(int(s))[0] != &d.Embedding[0] {
			t.Fatalf("document %q is not its row", d.ID)
		}
	}
	in := []float32{0.6, 0.8}
	if err := x.Add([]Vector{{7, in}}); err != nil {
		t.Fatal(err)
	}
	in[0] = 9 // Add copied it
	for _, d := range docs {
		if d.ID == "7" && (d.Embedding[0] != 0.6 || d.Embedding[1] != 0.8) {
			t.Fatalf("after overwriting, document 7 holds %v", d.Embedding)
		}
	}
	x.Remove([]int64{3, 99})
	if got := x.Documents(); len(got) != 1 || got[0].ID != "7" {
		t.Fatalf("after removing 3: %v", got)
	}
}

func TestRefusesMixedDimensions(t *testing.T) {
	x := New()
	if err := x.Add([]Vector{{1, []float32{1, 0, 0}}}); err != nil {
		t.Fatal(err)
	}
	// A batch with one vector of another length is refused whole.
	err := x.Add([]Vector{{2, []float32{0, 1, 0}}, {3, []float32{1, 0}}})
	if !errors.Is(err, errDims) || !strings.Contains(err.Error(), "one embedding model") {
		t.Fatalf("add with other dimensions: %v", err)
	}
	if x.Len() != 1 {
		t.Fatalf("a refused batch left %d vectors", x.Len())
	}
	if err := x.Add([]Vector{{4, nil}}); err == nil {
		t.Fatal("an empty vector was added")
	}
	if _, err := x.Nearest([]float32{1, 0}, 3); err == nil {
		t.Fatal("a query with other dimensions was answered")
	}
	// Emptied, the index takes vectors of any length again (a new model).
	x.Remove([]int64{1})
	if err := x.Add([]Vector{{3, []float32{0, 1}}}); err != nil {
		t.Fatalf("after emptying: %v", err)
	}
	if hits, err := x.Nearest([]float32{0, 1}, 3); err != nil || len(hits) != 1 || hits[0] != (Hit{3, 1}) {
		t.Fatalf("Nearest = %v, %v", hits, err)
	}
}

// Equal similarities rank by lower id, so a search is repeatable.
func TestNearestBreaksTiesByID(t *testing.T) {
	x := New()
	for _, id := range []int64{9, 4, 7, 1} {
		if err := x.Add([]Vector{{id, []float32{0.6, 0.8}}}); err != nil {
			t.Fatal(err)
		}
	}
	x.Add([]Vector{{5, []float32{1, 0}}})
	hits, err := x.Nearest([]float32{0.6, 0.8}, 3)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, h := range hits {
		ids = append(ids, h.ID)
	}
	if want := []int64{1, 4, 7}; !slices.Equal(ids, want) {
		t.Fatalf("Nearest = %v, want %v", ids, want)
	}
	if hits, err := New().Nearest([]float32{1}, 3); hits != nil || err != nil {
		t.Fatalf("an empty index answered %v, %v", hits, err)
	}
}

func TestBlobRoundTrip(t *testing.T) {
	v := []float32{0, -1.5, float32(math.Pi), math.MaxFloat32, math.SmallestNonzeroFloat32}
	got, err := Decode(Encode(v))
	if err != nil || !slices.Equal(got, v) {
		t.Fatalf("Decode(Encode(%v)) = %v, %v", v, got, err)
	}
	for _, b := range [][]byte{nil, {1, 2, 3}, {1, 2, 3, 4, 5}} {
		if _, err := Decode(b); err == nil {
			t.Errorf("Decode(%v) accepted a blob that is not float32s", b)
		}
	}
}

func TestUnit(t *testing.T) {
	u, err := Unit([]float32{3, 4})
	if err != nil || u[0] != 0.6 || u[1] != 0.8 {
		t.Fatalf("Unit(3, 4) = %v, %v", u, err)
	}
	for _, tc := range []struct {
		name string
		v    []float32
		want string
	}{
		{"empty", nil, "empty"},
		{"zero", []float32{0, 0}, "zero"},
		{"NaN", []float32{float32(math.NaN()), 1}, "NaN"},
		{"Inf", []float32{float32(math.Inf(1)), 1}, "Inf"},
	} {
		if _, err := Unit(tc.v); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Unit = %v, want an error naming %s", tc.name, err, tc.want)
		}
	}
}
