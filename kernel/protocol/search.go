package protocol

import (
	"fmt"
	"strings"
)

// SearchResult is what a search of the user's documents found: the Data of
// a search_docs result, and what `quire search -json` prints.
type SearchResult struct {
	Query    string     `json:"query"`
	Embedder string     `json:"embedder"`
	Hits     []Citation `json:"hits"`
}

// SearchMode chooses the arms of a search of the user's documents.
type SearchMode string

// The search modes; the empty mode is the default ranking (what
// search_docs uses: for the built-in embedder, words alone).
const (
	SearchDefault SearchMode = ""
	SearchLexical SearchMode = "lexical"
	SearchVector  SearchMode = "vector"
	SearchHybrid  SearchMode = "hybrid"
)

// Valid reports whether m is one of the search modes.
func (m SearchMode) Valid() bool {
	switch m {
	case SearchDefault, SearchLexical, SearchVector, SearchHybrid:
		return true
	}
	return false
}

// Citation is one passage found, with where it is.
type Citation struct {
	N           int      `json:"n"`
	Path        string   `json:"path"`
	Name        string   `json:"name"`
	Headings    []string `json:"headings,omitempty"`
	StartLine   int      `json:"startLine"`
	EndLine     int      `json:"endLine"`
	Snippet     string   `json:"snippet"`
	Score       float64  `json:"score"`
	LexicalRank int      `json:"lexicalRank"`
	VectorRank  int      `json:"vectorRank"`
	// Matched are the query's words found in the passage, in the query's
	// order ("why this passage"); empty when only meaning found it.
	Matched []string `json:"matched,omitempty"`
	// Similarity is the passage's cosine similarity to the query under an
	// embedding model; 0 (left out) with the built-in embedder, or when the
	// vector search did not rank it.
	Similarity float64 `json:"similarity,omitempty"`
}

// Line is one citation as the model reads it:
// "[1] notes/plan.md › Goals › Budget (lines 12–30): snippet".
func (c Citation) Line() string {
	var b strings.Builder
	fmt.Fprintf(&b, "[%d] %s", c.N, c.Name)
	for _, h := range c.Headings {
		b.WriteString(" › ")
		b.WriteString(h)
	}
	switch {
	case c.StartLine <= 0:
	case c.EndLine > c.StartLine:
		fmt.Fprintf(&b, " (lines %d–%d)", c.StartLine, c.EndLine)
	default:
		fmt.Fprintf(&b, " (line %d)", c.StartLine)
	}
	b.WriteString(": ")
	b.WriteString(c.Snippet)
	return b.String()
}
