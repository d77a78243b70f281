package rag

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
)

// statements are the pass's statements, prepared once and reused: a pass
// runs one INSERT a passage and a vector, and preparing each anew was 14 %
// of its CPU (issue 30). database/sql keeps a prepared statement per
// connection; a transaction uses its connection's (Tx.StmtContext).
type statements struct {
	mu sync.Mutex
	m  map[string]*sql.Stmt
}

// txStmt is q prepared for tx.
func (ix *Index) txStmt(ctx context.Context, tx *sql.Tx, q string) (*sql.Stmt, error) {
	c := &ix.stmts
	c.mu.Lock()
	st, ok := c.m[q]
	if !ok {
		var err error
		if st, err = ix.db.PrepareContext(ctx, q); err != nil {
			c.mu.Unlock()
			return nil, fmt.Errorf("prepare: %w", err)
		}
		if c.m == nil {
			c.m = map[string]*sql.Stmt{}
		}
		c.m[q] = st
	}
	c.mu.Unlock()
	return tx.StmtContext(ctx, st), nil
}

func (c *statements) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, st := range c.m {
		st.Close()
	}
	c.m = nil
}
