package assembly

import (
	"context"
	"fmt"
	"strings"

	"quire/host"
	"quire/kernel/protocol"
	"quire/kernel/store"
)

// conversations is the search over what was said (host.Conversations),
// over the store in either mode: a Reader searches as well as an Owner.
type conversations struct {
	store *store.Store
	err   error // why there is no store
}

// Conversations is the search over every conversation.
func (p *Parts) Conversations() host.Conversations {
	if p.store == nil {
		return conversations{err: fmt.Errorf("%w: %w", errNoDatabase, p.DatabaseError())}
	}
	return conversations{store: p.store}
}

func (c conversations) Search(ctx context.Context, query string, limit int) (protocol.MessageSearch, error) {
	// The query as it was read: a longer one is cut where the store stops
	// reading, so what comes back is never larger than what was searched.
	out := protocol.MessageSearch{Query: readOf(query), Hits: []protocol.MessageHit{}}
	if c.store == nil {
		if strings.TrimSpace(query) == "" {
			return out, nil
		}
		return out, c.err
	}
	hits, err := c.store.SearchSaid(ctx, query, limit)
	if err != nil {
		return out, err
	}
	for _, h := range hits {
		out.Hits = append(out.Hits, protocol.MessageHit{Session: h.Session, Title: h.Title, Seq: h.Seq, Role: h.Role, Time: h.Time,
			Snippet: snippetParts(h.Snippet)})
	}
	return out, nil
}

// readOf is query's first store.SearchMaxQuery characters.
func readOf(query string) string {
	n := 0
	for i := range query {
		if n == store.SearchMaxQuery {
			return query[:i]
		}
		n++
	}
	return query
}

// snippetParts splits a snippet at the store's markers: the text between
// store.MarkOpen and store.MarkClose matched.
func snippetParts(s string) []protocol.SnippetPart {
	var out []protocol.SnippetPart
	for s != "" {
		i := strings.Index(s, store.MarkOpen)
		if i < 0 {
			out = append(out, protocol.SnippetPart{Text: s})
			break
		}
		if i > 0 {
			out = append(out, protocol.SnippetPart{Text: s[:i]})
		}
		s = s[i+len(store.MarkOpen):]
		j := strings.Index(s, store.MarkClose)
		if j < 0 {
			j = len(s)
		}
		if j > 0 {
			out = append(out, protocol.SnippetPart{Text: s[:j], Match: true})
		}
		s = s[min(j+len(store.MarkClose), len(s)):]
	}
	return out
}
