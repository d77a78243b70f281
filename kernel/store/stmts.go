package store

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
)

// statements are the store's SQL statements, each prepared once and then
// reused: database/sql keeps a prepared statement per connection, and a
// transaction uses the one its connection already holds (Tx.StmtContext).
// Preparing anew on every query was 21 % of an agent step's CPU (issue 30).
// The set is bounded: every text comes from this package's constants (the
// multi-row insert, at most insertRows variants).
type statements struct {
	mu sync.Mutex
	m  map[string]*sql.Stmt
}

// stmt is the prepared statement for q.
func (s *Store) stmt(ctx context.Context, q string) (*sql.Stmt, error) {
	c := &s.stmts
	c.mu.Lock()
	defer c.mu.Unlock()
	if st, ok := c.m[q]; ok {
		return st, nil
	}
	if c.m == nil {
		c.m = map[string]*sql.Stmt{}
	}
	st, err := s.db.PrepareContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("prepare: %w", err)
	}
	c.m[q] = st
	return st, nil
}

// txStmt is q prepared for tx, reusing the statement its connection holds.
func (s *Store) txStmt(ctx context.Context, tx *sql.Tx, q string) (*sql.Stmt, error) {
	st, err := s.stmt(ctx, q)
	if err != nil {
		return nil, err
	}
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
