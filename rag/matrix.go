package rag

import (
	"container/heap"
	"fmt"
	"runtime"
	"slices"
	"sync"

	"gonum.org/v1/gonum/blas/blas32"
)

// matrix holds the in-memory vectors in blocks of contiguous float32 rows
// and answers the vector arm's top-k by an exhaustive scan.
//
// Why it exists beside the chromem-go collection: chromem's query costs
// about 30 ms at 53k chunks on the reference machine, and almost none of it
// is arithmetic — per document it sends a pointer through a channel to a
// metadata filter, takes a mutex to offer the result to a shared heap, and
// its dot product is a scalar loop (docs/BENCHMARKS.md, "Retrieval speed").
// The matrix scans rows in place with gonum's SIMD dot product, one part
// of the rows per CPU, each part into its own top-k. The collection stays
// the vector index's record — every vector is added to both, and the
// collection's Document.Embedding is the matrix row itself, so the vectors
// are held once — and a test checks that both rank alike.
type matrix struct {
	mu     sync.RWMutex
	dims   int
	blocks [][]float32     // blockRows rows each
	ids    []int64         // chunk id by slot
	live   []bool          // slot holds a vector
	slot   map[int64]int32 // slot by chunk id
	free   []int32         // slots of removed vectors, for reuse
}

const blockRows = 1024

func newMatrix() *matrix { return &matrix{slot: map[int64]int32{}} }

// Len is the number of vectors.
func (m *matrix) Len() int {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return len(m.slot)
}

// set stores v (unit length) as the vector of id and returns the row
// holding it, which stays valid until id is removed.
func (m *matrix) set(id int64, v []float32) ([]float32, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.dims == 0 {
		m.dims = len(v)
	}
	if len(v) != m.dims {
		return nil, fmt.Errorf("the vector of chunk %d has %d dimensions, the others %d; use one embedding model per index", id, len(v), m.dims)
	}
	s, ok := m.slot[id]
	if !ok {
		if n := len(m.free); n > 0 {
			s, m.free = m.free[n-1], m.free[:n-1]
		} else {
			s = int32(len(m.ids))
			if int(s)%blockRows == 0 {
				m.blocks = append(m.blocks, make([]float32, blockRows*m.dims))
			}
			m.ids = append(m.ids, 0)
			m.live = append(m.live, false)
		}
		m.slot[id] = s
		m.ids[s], m.live[s] = id, true
	}
	row := m.row(int(s))
	copy(row, v)
	return row, nil
}

func (m *matrix) row(s int) []float32 {
	off := (s % blockRows) * m.dims
	return m.blocks[s/blockRows][off : off+m.dims : off+m.dims]
}

// remove drops the vectors of ids; unknown ids are ignored.
func (m *matrix) remove(ids []int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, id := range ids {
		s, ok := m.slot[id]
		if !ok {
			continue
		}
		delete(m.slot, id)
		m.live[s] = false
		m.free = append(m.free, s)
	}
	if len(m.slot) == 0 {
		// Empty again: the next vectors may come from another model.
		m.dims, m.blocks, m.ids, m.live, m.free = 0, nil, nil, nil, nil
	}
}

// scored is one row's similarity to the query.
type scored struct {
	id  int64
	sim float32
}

// better orders by similarity, then by lower id, so equal scores rank
// deterministically.
func better(a, b scored) bool { return a.sim > b.sim || a.sim == b.sim && a.id < b.id }

// topK returns the ids of the k rows most similar to q (unit length), best
// first, by dot product.
func (m *matrix) topK(q []float32, k int) ([]int64, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	n := len(m.ids)
	if n == 0 || k <= 0 {
		return nil, nil
	}
	if len(q) != m.dims {
		return nil, fmt.Errorf("the query vector has %d dimensions, the stored vectors %d", len(q), m.dims)
	}
	// One part per CPU, but not for small collections, where starting
	// goroutines costs more than it saves.
	parts := min(runtime.GOMAXPROCS(0), max(1, n/8192))
	tops := make([][]scored, parts)
	var wg sync.WaitGroup
	for p := range parts {
		lo, hi := p*n/parts, (p+1)*n/parts
		wg.Go(func() { tops[p] = m.scan(q, k, lo, hi) })
	}
	wg.Wait()
	all := slices.Concat(tops...)
	slices.SortFunc(all, func(a, b scored) int {
		if better(a, b) {
			return -1
		}
		return 1 // ids are distinct: never equal
	})
	ids := make([]int64, min(k, len(all)))
	for i := range ids {
		ids[i] = all[i].id
	}
	return ids, nil
}

// scan keeps the best k rows of slots [lo, hi) in a min-heap (worst at
// the root), so most rows cost one dot product and one comparison.
func (m *matrix) scan(q []float32, k, lo, hi int) []scored {
	h := make(topHeap, 0, k)
	qv := blas32.Vector{N: len(q), Inc: 1, Data: q}
	rv := blas32.Vector{N: len(q), Inc: 1}
	for s := lo; s < hi; s++ {
		if !m.live[s] {
			continue
		}
		rv.Data = m.row(s)
		c := scored{id: m.ids[s], sim: blas32.Dot(qv, rv)}
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

// topHeap is a container/heap whose root is the worst kept row.
type topHeap []scored

func (h topHeap) Len() int           { return len(h) }
func (h topHeap) Less(i, j int) bool { return better(h[j], h[i]) }
func (h topHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *topHeap) Push(x any)        { *h = append(*h, x.(scored)) }
func (h *topHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
