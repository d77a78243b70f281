//go:build race

package rag

// Under the race detector the killed indexer is several times slower:
// fewer kills keep the suite quick (more with -rag.kills).
func init() { raceKills = 6 }
