package memory

import "context"

// VectorArm is Search's vector ranking alone (rowids, best first), for the
// benchmarks of package memory_test.
func (s *Store) VectorArm(ctx context.Context, query string, depth int) ([]int64, error) {
	return s.vector(ctx, query, depth)
}
