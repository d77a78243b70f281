// Package vecindex is Quire's one in-memory vector index, used by rag (the
// chunks of the documents panel) and memory (long-term items): each vector
// is a chromem-go Document, searched by an exhaustive scan that ranks as
// chromem-go's own query does. It also says how a vector is kept in a SQLite
// blob and normalised (blob.go); SQLite stays the truth, and each user fills
// an Index from its own table at open.
//
// Why the scan is not chromem-go's Collection.Query: that costs about 30 ms
// at 53k chunks on the reference machine and almost none of it is
// arithmetic — per document it sends a pointer through a channel to a
// metadata filter, takes a mutex to offer the result to a shared heap, and
// its dot product is a scalar loop (docs/BENCHMARKS-NOTEBOOK.md, "Retrieval speed").
// Here the documents' embeddings are the rows of a block matrix, scanned in
// place with gonum's SIMD dot product, one part of the rows per CPU, each
// part into its own top-k. A document's Embedding is its matrix row, so each
// vector is held once; the tests check that the scan ranks as chromem-go's
// query over the same documents.
//
// It imports only the standard library, chromem-go and gonum: never a SQL
// driver, a model client or another Quire package.
package vecindex

import (
	"container/heap"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"sync"

	chromem "github.com/philippgille/chromem-go"
	"gonum.org/v1/gonum/blas/blas32"
)

// Vector is one vector on its way into an Index. Its Embedding must be of
// unit length (Unit), so that the dot product is the cosine similarity.
type Vector struct {
	ID        int64
	Embedding []float32
}

// Hit is one neighbour of a query.
type Hit struct {
	ID         int64
	Similarity float32 // dot product with the query: cosine for unit vectors
}

// Index holds vectors by id and answers a query's nearest neighbours. It is
// safe for concurrent use; a query waits only for in-memory changes.
type Index struct {
	mu     sync.RWMutex
	dims   int
	blocks [][]float32          // blockRows rows each
	docs   [][]chromem.Document // blockRows each, by slot; doc(s).Embedding is row s
	ids    []int64              // id by slot, for the scan
	live   []bool               // slot holds a vector
	slot   map[int64]int32      // slot by id
	free   []int32              // slots of removed vectors, for reuse
}

const blockRows = 1024

// New returns an empty index.
func New() *Index { return &Index{slot: map[int64]int32{}} }

// Key is the chromem-go document ID of a vector id.
func Key(id int64) string { return strconv.FormatInt(id, 10) }

// Len is the number of vectors.
func (x *Index) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return len(x.slot)
}

// errDims: all vectors of an index have one length, the embedding model's.
var errDims = errors.New("use one embedding model per index")

// Add stores each vector under its id, replacing the one it had. The
// vectors are copied. Either all are stored or, when one has another length
// than the index's vectors, none.
func (x *Index) Add(vs []Vector) error {
	if len(vs) == 0 {
		return nil
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	dims := x.dims
	if dims == 0 {
		dims = len(vs[0].Embedding)
	}
	for _, v := range vs {
		if len(v.Embedding) == 0 {
			return fmt.Errorf("the vector of %d is empty", v.ID)
		}
		if len(v.Embedding) != dims {
			return fmt.Errorf("the vector of %d has %d dimensions, the others %d: %w", v.ID, len(v.Embedding), dims, errDims)
		}
	}
	x.dims = dims
	for _, v := range vs {
		s, ok := x.slot[v.ID]
		if !ok {
			if n := len(x.free); n > 0 {
				s, x.free = x.free[n-1], x.free[:n-1]
			} else {
				s = int32(len(x.ids))
				if int(s)%blockRows == 0 {
					// Blocks, not one growing slice: adding never copies
					// what is held, so the heap grows by what is added.
					x.blocks = append(x.blocks, make([]float32, blockRows*x.dims))
					x.docs = append(x.docs, make([]chromem.Document, blockRows))
				}
				x.ids = append(x.ids, 0)
				x.live = append(x.live, false)
			}
			x.slot[v.ID] = s
			x.ids[s], x.live[s] = v.ID, true
			*x.doc(int(s)) = chromem.Document{ID: Key(v.ID), Embedding: x.row(int(s))}
		}
		copy(x.doc(int(s)).Embedding, v.Embedding)
	}
	return nil
}

func (x *Index) doc(s int) *chromem.Document { return &x.docs[s/blockRows][s%blockRows] }

func (x *Index) row(s int) []float32 {
	off := (s % blockRows) * x.dims
	return x.blocks[s/blockRows][off : off+x.dims : off+x.dims]
}

// Remove drops the vectors of ids; unknown ids are ignored.
func (x *Index) Remove(ids []int64) {
	if len(ids) == 0 {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, id := range ids {
		s, ok := x.slot[id]
		if !ok {
			continue
		}
		delete(x.slot, id)
		x.live[s] = false
		*x.doc(int(s)) = chromem.Document{}
		x.free = append(x.free, s)
	}
	if len(x.slot) == 0 {
		// Empty again: the next vectors may come from another model.
		x.dims, x.blocks, x.docs, x.ids, x.live, x.free = 0, nil, nil, nil, nil, nil
	}
}

// Documents returns the chromem-go documents of the index, one per vector,
// in no particular order. Their embeddings are the index's own rows: read
// them only, and only until their id is added or removed again.
func (x *Index) Documents() []chromem.Document {
	x.mu.RLock()
	defer x.mu.RUnlock()
	out := make([]chromem.Document, 0, len(x.slot))
	for s, live := range x.live {
		if live {
			out = append(out, *x.doc(s))
		}
	}
	return out
}

// better orders by similarity, then by lower id, so equal scores rank
// deterministically.
func better(a, b Hit) bool {
	return a.Similarity > b.Similarity || a.Similarity == b.Similarity && a.ID < b.ID
}

// Nearest returns the k vectors most similar to q (unit length) by dot
// product, best first; equal similarities rank by lower id.
func (x *Index) Nearest(q []float32, k int) ([]Hit, error) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	n := len(x.ids)
	if len(x.slot) == 0 || k <= 0 {
		return nil, nil
	}
	if len(q) != x.dims {
		return nil, fmt.Errorf("the query vector has %d dimensions, the stored vectors %d", len(q), x.dims)
	}
	// One part per CPU, but not for small indexes, where starting
	// goroutines costs more than it saves.
	parts := min(runtime.GOMAXPROCS(0), max(1, n/8192))
	tops := make([][]Hit, parts)
	if parts == 1 {
		tops[0] = x.scan(q, k, 0, n)
	} else {
		var wg sync.WaitGroup
		for p := range parts {
			lo, hi := p*n/parts, (p+1)*n/parts
			wg.Go(func() { tops[p] = x.scan(q, k, lo, hi) })
		}
		wg.Wait()
	}
	all := slices.Concat(tops...)
	slices.SortFunc(all, func(a, b Hit) int {
		if better(a, b) {
			return -1
		}
		return 1 // ids are distinct: never equal
	})
	return all[:min(k, len(all))], nil
}

// scan keeps the best k rows of slots [lo, hi) in a min-heap (worst at
// the root), so most rows cost one dot product and one comparison.
func (x *Index) scan(q []float32, k, lo, hi int) []Hit {
	h := make(topHeap, 0, min(k, hi-lo))
	qv := blas32.Vector{N: len(q), Inc: 1, Data: q}
	rv := blas32.Vector{N: len(q), Inc: 1}
	for s := lo; s < hi; s++ {
		if !x.live[s] {
			continue
		}
		rv.Data = x.row(s)
		c := Hit{ID: x.ids[s], Similarity: blas32.Dot(qv, rv)}
		switch {
		case len(h) < k:
			heap.Push(&h, c)
		case better(c, h[0]):
			h[0] = c
			heap.Fix(&h, 0)
		}
	}
	return h
}

// topHeap is a container/heap whose root is the worst kept hit.
type topHeap []Hit

func (h topHeap) Len() int           { return len(h) }
func (h topHeap) Less(i, j int) bool { return better(h[j], h[i]) }
func (h topHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *topHeap) Push(v any)        { *h = append(*h, v.(Hit)) }
func (h *topHeap) Pop() any {
	old := *h
	v := old[len(old)-1]
	*h = old[:len(old)-1]
	return v
}
