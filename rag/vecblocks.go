package rag

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/bits"
	"slices"

	"quire/internal/vecindex"
)

// The vectors are stored a block of chunk ids a row (rag_vector_blocks,
// schema 6): block b holds the vectors of chunks 32b to 32b+31 that have
// one, in chunk-id order, concatenated, and bit i of its mask says chunk
// 32b+i is among them. A row of one 1 KiB vector filled a quarter of a
// 4 KiB page and left the rest too small for another (1.38× the raw
// bytes, issue 30); a block of them spills into overflow pages SQLite
// fills to the byte.
const blockShift = 5 // 32 chunks a block; the SQL of hasVector and of migration 6 says 5 and 31

// hasVector is true for a chunk c with a vector of the embedder bound to
// the next parameter; hasVector1 to the first.
const (
	hasVector  = `EXISTS (SELECT 1 FROM rag_vector_blocks b WHERE b.block = c.id >> 5 AND b.embedder = ?` + inMask
	hasVector1 = `EXISTS (SELECT 1 FROM rag_vector_blocks b WHERE b.block = c.id >> 5 AND b.embedder = ?1` + inMask
	inMask     = ` AND (b.mask >> (c.id & 31)) & 1)`
)

const (
	selBlock = `SELECT mask, vecs FROM rag_vector_blocks WHERE block = ? AND embedder = ?`
	putBlock = `INSERT OR REPLACE INTO rag_vector_blocks(block, embedder, mask, vecs) VALUES (?, ?, ?, ?)`
	delBlock = `DELETE FROM rag_vector_blocks WHERE block = ? AND embedder = ?`
)

// splitBlock cuts a block's vectors apart: one slice of vecs for each
// set bit of mask, in bit order.
func splitBlock(mask int64, vecs []byte) ([][]byte, error) {
	n := bits.OnesCount32(uint32(mask))
	if n == 0 || len(vecs)%n != 0 || len(vecs)/n%4 != 0 {
		return nil, fmt.Errorf("a block of %d vectors has %d bytes", n, len(vecs))
	}
	size := len(vecs) / n
	out := make([][]byte, n)
	for i := range out {
		out[i] = vecs[i*size : (i+1)*size : (i+1)*size]
	}
	return out, nil
}

// joinBlock is the row of a block whose slots hold the given vectors (nil
// for an empty slot).
func joinBlock(slots *[1 << blockShift][]byte) (mask int64, vecs []byte, err error) {
	size := 0
	for i, v := range slots {
		if v == nil {
			continue
		}
		if size != 0 && len(v) != size {
			return 0, nil, fmt.Errorf("vectors of %d and %d bytes under one embedder", size, len(v))
		}
		size = len(v)
		mask |= 1 << i
		vecs = append(vecs, v...)
	}
	return mask, vecs, nil
}

// readBlock fills slots with a stored block's vectors, if it has a row.
func (ix *Index) readBlock(ctx context.Context, tx *sql.Tx, block int64, name string, slots *[1 << blockShift][]byte) error {
	st, err := ix.txStmt(ctx, tx, selBlock)
	if err != nil {
		return err
	}
	var mask int64
	var blob []byte
	switch err := st.QueryRowContext(ctx, block, name).Scan(&mask, &blob); {
	case errors.Is(err, sql.ErrNoRows):
		return nil
	case err != nil:
		return err
	}
	vs, err := splitBlock(mask, blob)
	if err != nil {
		return fmt.Errorf("vectors of chunks %d to %d: %w", block<<blockShift, (block+1)<<blockShift-1, err)
	}
	k := 0
	for i := range slots {
		if mask&(1<<i) != 0 {
			slots[i] = vs[k]
			k++
		}
	}
	return nil
}

// writeBlock stores slots as block's row, or deletes the row if they are
// all empty.
func (ix *Index) writeBlock(ctx context.Context, tx *sql.Tx, block int64, name string, slots *[1 << blockShift][]byte) error {
	mask, vecs, err := joinBlock(slots)
	if err != nil {
		return err
	}
	q, args := putBlock, []any{block, name, mask, vecs}
	if mask == 0 {
		q, args = delBlock, []any{block, name}
	}
	st, err := ix.txStmt(ctx, tx, q)
	if err != nil {
		return err
	}
	_, err = st.ExecContext(ctx, args...)
	return err
}

// putVectors stores vs as the vectors of the embedder named name, each
// replacing one its chunk had: a read and a write of each block touched.
func (ix *Index) putVectors(ctx context.Context, tx *sql.Tx, name string, vs []vecindex.Vector) error {
	vs = slices.Clone(vs)
	// Stable, so of two vectors for one chunk the later is kept, as the
	// INSERT OR REPLACE of a row a vector did.
	slices.SortStableFunc(vs, func(a, b vecindex.Vector) int { return cmp.Compare(a.ID, b.ID) })
	for i := 0; i < len(vs); {
		block := vs[i].ID >> blockShift
		var slots [1 << blockShift][]byte
		if err := ix.readBlock(ctx, tx, block, name, &slots); err != nil {
			return err
		}
		for ; i < len(vs) && vs[i].ID>>blockShift == block; i++ {
			slots[vs[i].ID&(1<<blockShift-1)] = vecindex.Encode(vs[i].Embedding)
		}
		if err := ix.writeBlock(ctx, tx, block, name, &slots); err != nil {
			return err
		}
	}
	return nil
}

// dropVectors deletes the vectors of every embedder for the chunks ids.
func (ix *Index) dropVectors(ctx context.Context, tx *sql.Tx, ids []int64) error {
	ids = slices.Clone(ids)
	slices.Sort(ids)
	for i := 0; i < len(ids); {
		block := ids[i] >> blockShift
		j := i
		for j < len(ids) && ids[j]>>blockShift == block {
			j++
		}
		names, err := ix.blockNames(ctx, tx, block)
		if err != nil {
			return err
		}
		for _, name := range names {
			var slots [1 << blockShift][]byte
			if err := ix.readBlock(ctx, tx, block, name, &slots); err != nil {
				return err
			}
			for _, id := range ids[i:j] {
				slots[id&(1<<blockShift-1)] = nil
			}
			if err := ix.writeBlock(ctx, tx, block, name, &slots); err != nil {
				return err
			}
		}
		i = j
	}
	return nil
}

// blockNames names the embedders with vectors in block: one, or two
// while a switch of embedder is under way.
func (ix *Index) blockNames(ctx context.Context, tx *sql.Tx, block int64) ([]string, error) {
	st, err := ix.txStmt(ctx, tx, `SELECT embedder FROM rag_vector_blocks WHERE block = ?`)
	if err != nil {
		return nil, err
	}
	rows, err := st.QueryContext(ctx, block)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		names = append(names, n)
	}
	return names, rows.Err()
}
