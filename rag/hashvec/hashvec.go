// Package hashvec is Quire's built-in offline embedder: it turns text into
// a dense vector with no model, no network and no training, so search
// works on a machine with no embedding model at all.
//
// Design. A text becomes a bag of features:
//   - words: Unicode letters and digits, lowercased, with a light plural
//     stemmer ("studies" → "study", "cells" → "cell"); English stopwords
//     are dropped;
//   - character n-grams (default 4) of each word with boundary marks
//     ("^ins", "insu", ..., "lin$"), which match inflections, compounds
//     and typos that whole words miss;
//   - optionally word pairs (each word with the next non-stopword), off by
//     default: on SciFact they cost more in hash collisions than they add.
//
// Each feature is hashed (64-bit FNV-1a) to one of Dims dimensions with a
// sign taken from another bit of the hash (the "hashing trick"; the sign
// keeps collisions from adding up), weighted by its class weight times
// 1 + ln(count) (sublinear term frequency), and the vector is L2-normalised.
//
// Rare features should count for more than common ones, but a weighting
// learned from the corpus would make stored vectors stale as the corpus
// changes. So the weighting is asymmetric: document vectors carry no
// corpus statistics and never go stale; query vectors weigh each feature
// by its inverse document frequency, read from a count-min Sketch of
// document frequencies that the index keeps up to date (Query). Ranking by
// the cosine of the two is then a sum over shared features of
// idf × tf-weight, normalised by document length — the shape of BM25,
// computed over different features.
//
// It imports only the standard library and must never import database/sql,
// chromem-go, a model client or any other Quire package.
package hashvec

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Config is the embedder's shape. Changing any field changes Name, and the
// index re-embeds documents whose vectors were made under another name.
type Config struct {
	Dims    int     // vector length
	Words   float32 // weight of a word
	Pairs   float32 // weight of a word pair
	Grams   float32 // weight of one character n-gram
	GramLen int     // n of the character n-grams; 0 for none
}

// Default is the configuration Quire ships, chosen on SciFact
// (docs/BENCHMARKS-NOTEBOOK.md, "Retrieval quality"): 256 dimensions keep a vector
// at 1 KiB and the exhaustive scan fast; quality grows with the dimension.
var Default = Config{Dims: 256, Words: 1, Pairs: 0, Grams: 0.6, GramLen: 4}

// Model embeds text. It is safe for concurrent use.
type Model struct {
	cfg     Config
	name    string
	scratch sync.Pool
}

// New returns a Model with cfg; a zero Dims means Default.
func New(cfg Config) *Model {
	if cfg.Dims <= 0 {
		cfg = Default
	}
	h := fnv.New32a()
	fmt.Fprintf(h, "%+v", cfg)
	m := &Model{cfg: cfg, name: fmt.Sprintf("quire-hash-v1-%dd-%08x", cfg.Dims, h.Sum32())}
	m.scratch.New = func() any { return &bag{tf: make(map[uint64]float32, 256)} }
	return m
}

// Name says which embedder made a vector; vectors are comparable only
// under the same name.
func (m *Model) Name() string { return m.name }

// Dims is the length of the vectors.
func (m *Model) Dims() int { return m.cfg.Dims }

// Embed returns one document vector per text.
func (m *Model) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if i%64 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		out[i] = m.Document(t, nil)
	}
	return out, nil
}

// Document returns the vector of a document text and, if features is
// not nil, calls it once for each distinct feature (for the Sketch).
func (m *Model) Document(text string, features func(h uint64)) []float32 {
	b := m.get(text)
	defer m.scratch.Put(b)
	v := make([]float32, m.cfg.Dims)
	for h, n := range b.tf {
		if features != nil {
			features(h)
		}
		m.add(v, h, m.weight(h, n))
	}
	normalize(v)
	return v
}

// Features calls fn once for each distinct feature of text.
func (m *Model) Features(text string, fn func(h uint64)) {
	b := m.get(text)
	defer m.scratch.Put(b)
	for h := range b.tf {
		fn(h)
	}
}

// Query returns the vector of a query, each feature weighted by its
// inverse document frequency in s (all weighted alike when s is nil or
// empty). It returns nil when the query has no features at all.
func (m *Model) Query(text string, s *Sketch) []float32 {
	b := m.get(text)
	if len(b.tf) == 0 {
		// Only stopwords: use them after all.
		b.stop = true
		b.fill(text, m.cfg)
	}
	defer m.scratch.Put(b)
	if len(b.tf) == 0 {
		return nil
	}
	v := make([]float32, m.cfg.Dims)
	n := float64(s.Docs())
	for h, c := range b.tf {
		w := m.weight(h, c)
		if n > 0 {
			df := float64(s.DF(h))
			if df > n {
				df = n
			}
			w *= float32(math.Log(1 + (n-df+0.5)/(df+0.5)))
		}
		m.add(v, h, w)
	}
	if !normalize(v) {
		return nil
	}
	return v
}

func (m *Model) get(text string) *bag {
	b := m.scratch.Get().(*bag)
	b.stop = false
	b.fill(text, m.cfg)
	return b
}

// The low two bits of a feature hash say its class.
const (
	classWord = 1
	classPair = 2
	classGram = 3
)

func (m *Model) weight(h uint64, count float32) float32 {
	var w float32
	switch h & 3 {
	case classWord:
		w = m.cfg.Words
	case classPair:
		w = m.cfg.Pairs
	default:
		w = m.cfg.Grams
	}
	return w * (1 + float32(math.Log(float64(count))))
}

func (m *Model) add(v []float32, h uint64, w float32) {
	i := (h >> 33) % uint64(len(v))
	if h&(1<<32) != 0 {
		w = -w
	}
	v[i] += w
}

func normalize(v []float32) bool {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 || math.IsNaN(sum) || math.IsInf(sum, 0) {
		return false
	}
	inv := float32(1 / math.Sqrt(sum))
	for i := range v {
		v[i] *= inv
	}
	return true
}

// bag is the scratch space of one text: counts of its features.
type bag struct {
	tf   map[uint64]float32
	word []byte
	gram []rune
	stop bool // keep stopwords
}

func (b *bag) fill(text string, cfg Config) {
	clear(b.tf)
	var prev uint64
	eachWord(text, &b.word, func(w []byte) {
		w = stem(w)
		if !b.stop && isStop(w) {
			return
		}
		hw := hash(w, classWord)
		b.tf[hw]++
		if prev != 0 && cfg.Pairs > 0 {
			b.tf[(mix(prev, hw)&^3)|classPair]++
		}
		prev = hw
		if cfg.GramLen > 0 && cfg.Grams > 0 {
			b.grams(w, cfg.GramLen)
		}
	})
}

// grams counts the character n-grams of "^word$"; a word shorter than n
// counts as one gram.
func (b *bag) grams(w []byte, n int) {
	b.gram = b.gram[:0]
	b.gram = append(b.gram, '^')
	for i := 0; i < len(w); {
		r, size := utf8.DecodeRune(w[i:])
		b.gram = append(b.gram, r)
		i += size
	}
	b.gram = append(b.gram, '$')
	if len(b.gram) <= n {
		b.tf[hashRunes(b.gram, classGram)]++
		return
	}
	for i := 0; i+n <= len(b.gram); i++ {
		b.tf[hashRunes(b.gram[i:i+n], classGram)]++
	}
}

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func hash(b []byte, class uint64) uint64 {
	h := uint64(fnvOffset) ^ class
	for _, c := range b {
		h ^= uint64(c)
		h *= fnvPrime
	}
	return finish(h, class)
}

func hashRunes(rs []rune, class uint64) uint64 {
	h := uint64(fnvOffset) ^ class
	for _, r := range rs {
		for r != 0 {
			h ^= uint64(r & 0xff)
			h *= fnvPrime
			r >>= 8
		}
		h ^= 0xff
		h *= fnvPrime
	}
	return finish(h, class)
}

// finish spreads the bits (FNV's high bits are weak for short keys) and
// stamps the class into the low two bits.
func finish(h, class uint64) uint64 {
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h&^3 | class
}

func mix(a, b uint64) uint64 { return finish(a*31+b, classPair) }

// eachWord calls fn with each run of letters and digits in text,
// lowercased. The slice passed to fn is reused.
func eachWord(text string, buf *[]byte, fn func([]byte)) {
	w := (*buf)[:0]
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case 'a' <= c && c <= 'z' || '0' <= c && c <= '9':
				w = append(w, c)
				continue
			case 'A' <= c && c <= 'Z':
				w = append(w, c+'a'-'A')
				continue
			}
		} else {
			r, size := utf8.DecodeRuneInString(text[i:])
			i += size
			if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) {
				w = utf8.AppendRune(w, unicode.ToLower(r))
				continue
			}
		}
		if len(w) > 0 {
			if len(w) <= maxWord {
				fn(w)
			}
			w = w[:0]
		}
	}
	if len(w) > 0 && len(w) <= maxWord {
		fn(w)
	}
	*buf = w
}

// maxWord: longer runs (base64, hashes) are not words.
const maxWord = 40

// stem removes English plural endings: "studies" → "study", "classes" →
// "class", "cells" → "cell"; words ending in ss, us, is keep their s.
func stem(w []byte) []byte {
	n := len(w)
	if n < 4 || w[n-1] != 's' {
		return w
	}
	switch {
	case n > 4 && w[n-3] == 'i' && w[n-2] == 'e':
		w = append(w[:n-3], 'y')
		return w
	case w[n-2] == 's' || w[n-2] == 'u' || w[n-2] == 'i':
		return w
	case n > 4 && w[n-2] == 'e' && (w[n-3] == 's' || w[n-3] == 'x' || w[n-3] == 'z' || (w[n-3] == 'h' && (w[n-4] == 'c' || w[n-4] == 's'))):
		return w[:n-2]
	}
	return w[:n-1]
}

var stopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about above after again against all also am an and any are as at be
		because been before being below between both but by can could did do does doing down during each few
		for from further had has have having he her here hers herself him himself his how i if in into is it
		its itself just me more most my myself no nor not now of off on once only or other our ours ourselves
		out over own same she should so some such than that the their theirs them themselves then there these
		they this those through to too under until up very was we were what when where which while who whom
		why will with would you your yours yourself yourselves may might must shall upon via per thus however
		therefore whether within without among amongst et al`) {
		m[w] = true
	}
	return m
}()

func isStop(w []byte) bool { return stopwords[string(w)] }

// IsStopword reports whether w (lowercase) is one of the English stopwords
// the embedder drops.
func IsStopword(w string) bool { return stopwords[w] }
