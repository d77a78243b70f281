package vault

import (
	"bytes"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// KindWikiLink is the goldmark node kind of a [[wikilink]] or ![[embed]].
var KindWikiLink = ast.NewNodeKind("WikiLink")

// WikiLink is the AST node of [[target#sub|alias]] (Embed: ![[…]]). The
// offsets are into the source goldmark parsed, so a link is rewritten in
// place without touching a byte around it.
type WikiLink struct {
	ast.BaseInline
	Embed      bool
	Start, End int // the whole [[…]] or ![[…]]
	// TargetStart, TargetEnd: the target as written (no #sub, no |alias).
	TargetStart, TargetEnd int
	Target, Sub, Alias     string
	HasAlias               bool
}

// Kind implements ast.Node.
func (n *WikiLink) Kind() ast.NodeKind { return KindWikiLink }

// Dump implements ast.Node.
func (n *WikiLink) Dump(source []byte, level int) {
	ast.DumpHelper(n, source, level, map[string]string{"Target": n.Target, "Sub": n.Sub, "Alias": n.Alias}, nil)
}

// wikiParser parses [[…]] and ![[…]] before goldmark's link parser sees
// the brackets. It is our own extension: wikilinks are not CommonMark.
type wikiParser struct{}

func (wikiParser) Trigger() []byte { return []byte{'!', '['} }

func (wikiParser) Parse(_ ast.Node, block text.Reader, _ parser.Context) ast.Node {
	line, seg := block.PeekLine()
	w, ok := scanWiki(line, seg.Start)
	if !ok {
		return nil
	}
	block.Advance(w.End - w.Start)
	return w
}

// scanWiki reads a wikilink at the start of line, whose first byte is at
// offset base of the source. A wikilink stays on one line, is not empty,
// and holds no bracket: Obsidian forbids them in file names.
func scanWiki(line []byte, base int) (*WikiLink, bool) {
	embed := false
	i := 0
	if len(line) > 0 && line[0] == '!' {
		embed, i = true, 1
	}
	if len(line) < i+4 || line[i] != '[' || line[i+1] != '[' {
		return nil, false
	}
	open := i + 2
	// The first bracket after [[ must close it: stopping there keeps a line
	// of a million brackets linear.
	end := bytes.IndexAny(line[open:], "[]\n\r")
	if end < 0 || line[open+end] != ']' || open+end+1 >= len(line) || line[open+end+1] != ']' {
		return nil, false
	}
	inner := line[open : open+end]
	if len(bytes.TrimSpace(inner)) == 0 {
		return nil, false
	}
	w := &WikiLink{Embed: embed, Start: base, End: base + open + end + 2}
	// The alias starts at the first '|' ("\|" inside a table row).
	tgt := inner
	if p := bytes.IndexByte(inner, '|'); p >= 0 {
		tgt = inner[:p]
		if p > 0 && inner[p-1] == '\\' {
			tgt = inner[:p-1]
		}
		w.Alias, w.HasAlias = string(inner[p+1:]), true
	}
	if p := bytes.IndexByte(tgt, '#'); p >= 0 {
		w.Sub = string(bytes.TrimSpace(tgt[p+1:]))
		tgt = tgt[:p]
	}
	lead := len(tgt) - len(bytes.TrimLeft(tgt, " \t"))
	trimmed := bytes.TrimSpace(tgt)
	w.TargetStart = base + open + lead
	w.TargetEnd = w.TargetStart + len(trimmed)
	w.Target = string(trimmed)
	return w, true
}

// linkEnds wraps goldmark's link parser to record what its nodes do not
// keep: where the label closes and where the whole link ends, so a
// Markdown link's destination can be rewritten in place.
type linkEnds struct {
	inner parser.InlineParser
}

// Attribute names the wrapper sets on ast.Link and ast.Image nodes.
const (
	attrLabelEnd = "quireLabelEnd"
	attrEnd      = "quireEnd"
)

func (l linkEnds) Trigger() []byte { return l.inner.Trigger() }

func (l linkEnds) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	line, seg := block.PeekLine()
	closing := len(line) > 0 && line[0] == ']'
	n := l.inner.Parse(parent, block, pc)
	if !closing || n == nil {
		return n
	}
	switch n.(type) {
	case *ast.Link, *ast.Image:
	default:
		return n
	}
	_, pos := block.Position()
	n.SetAttributeString(attrLabelEnd, seg.Start)
	n.SetAttributeString(attrEnd, pos.Start)
	return n
}

func (l linkEnds) CloseBlock(parent ast.Node, block text.Reader, pc parser.Context) {
	if cb, ok := l.inner.(parser.CloseBlocker); ok {
		cb.CloseBlock(parent, block, pc)
	}
}

// newParser is goldmark's CommonMark parser with wikilinks before links
// and links that remember their ends. A parser per call keeps the package
// free of globals; building one costs a few small tables.
func newParser() parser.Parser {
	inlines := []util.PrioritizedValue{
		util.Prioritized(parser.NewCodeSpanParser(), 100),
		util.Prioritized(wikiParser{}, 150),
		util.Prioritized(linkEnds{inner: parser.NewLinkParser()}, 200),
		util.Prioritized(parser.NewAutoLinkParser(), 300),
		util.Prioritized(parser.NewRawHTMLParser(), 400),
		util.Prioritized(parser.NewEmphasisParser(), 500),
	}
	return parser.NewParser(
		parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithInlineParsers(inlines...),
		parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
	)
}
