package latest

import "sync"

// Keyed is the pending states of one watcher of many things (servers,
// batches): at most one per key — a newer state replaces the one not yet
// taken —, taken in the order the keys first changed, so one thing's
// state never hides another's. Offer signals Wake; Drain reads it with
// Take. It is safe for concurrent use.
type Keyed[V any] struct {
	mu      sync.Mutex
	pending map[string]V
	order   []string
	wake    chan struct{} // one waiting wake-up
}

// NewKeyed is an empty Keyed.
func NewKeyed[V any]() *Keyed[V] {
	return &Keyed[V]{pending: map[string]V{}, wake: make(chan struct{}, 1)}
}

// Offer keeps v as key's pending state and wakes the reader.
func (k *Keyed[V]) Offer(key string, v V) {
	k.mu.Lock()
	if _, ok := k.pending[key]; !ok {
		k.order = append(k.order, key)
	}
	k.pending[key] = v
	k.mu.Unlock()
	select {
	case k.wake <- struct{}{}:
	default:
	}
}

// Take is every pending state, in the order their keys first changed, and
// leaves none.
func (k *Keyed[V]) Take() []V {
	k.mu.Lock()
	defer k.mu.Unlock()
	out := make([]V, 0, len(k.order))
	for _, key := range k.order {
		out = append(out, k.pending[key])
	}
	clear(k.pending)
	k.order = k.order[:0]
	return out
}

// Wake fires when states are pending (Drain's wake).
func (k *Keyed[V]) Wake() <-chan struct{} { return k.wake }
