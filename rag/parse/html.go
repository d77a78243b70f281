package parse

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"golang.org/x/net/html"
)

// maxHTMLToken bounds one token (a tag or a run of text) of an HTML file.
const maxHTMLToken = 4 << 20

var (
	// Elements whose start or end ends a block of text.
	htmlBlocks = map[string]bool{
		"address": true, "article": true, "aside": true, "blockquote": true, "body": true, "br": true,
		"caption": true, "dd": true, "details": true, "dialog": true, "div": true, "dl": true, "dt": true,
		"fieldset": true, "figcaption": true, "figure": true, "footer": true, "form": true, "header": true,
		"hr": true, "li": true, "main": true, "nav": true, "ol": true, "p": true, "pre": true, "section": true,
		"summary": true, "table": true, "tbody": true, "tfoot": true, "thead": true, "tr": true, "ul": true,
		"title": true,
	}
	// Elements whose content is not text for a reader.
	htmlSkipped = map[string]bool{
		"script": true, "style": true, "noscript": true, "template": true, "svg": true, "math": true,
		"iframe": true, "object": true, "canvas": true, "select": true,
	}
)

// ReadHTML parses HTML with a streaming tokenizer: h1–h6 become headings,
// block elements (p, li, tr, div, ...) end a block of text, and the
// content of script, style and similar elements is skipped. Text is
// whitespace-collapsed; Start and End are the source lines the text came
// from.
func ReadHTML(r io.Reader, emit func(Block) error) error {
	z := html.NewTokenizer(r)
	z.SetMaxBuf(maxHTMLToken)
	var (
		line       = 1
		text       strings.Builder
		start, end int
		skip       int    // depth inside skipped elements
		skipTag    string // the element being skipped
		heading    int    // level of the open h1–h6, or 0
	)
	flush := func() error {
		t := strings.TrimSpace(text.String())
		text.Reset()
		level := heading
		if t == "" {
			return nil
		}
		if level > 0 {
			return emit(Block{Level: level, Title: t, Text: t, Start: start, End: end})
		}
		return emit(Block{Text: t, Start: start, End: end})
	}
	for {
		tt := z.Next()
		raw := z.Raw()
		tokLine := line
		line += strings.Count(string(raw), "\n")
		switch tt {
		case html.ErrorToken:
			err := z.Err()
			if err == io.EOF {
				heading = 0
				return flush()
			}
			if errors.Is(err, html.ErrBufferExceeded) {
				return fmt.Errorf("%w: HTML has a single tag or run of text longer than %d MB", ErrMalformed, maxHTMLToken>>20)
			}
			return err
		case html.TextToken:
			if skip > 0 {
				continue
			}
			for _, w := range strings.Fields(strings.ToValidUTF8(string(z.Text()), "\uFFFD")) {
				if text.Len() == 0 {
					start = tokLine
				} else {
					text.WriteByte(' ')
				}
				text.WriteString(w)
				end = line
				if text.Len() >= MaxBlock-256 {
					if err := flush(); err != nil {
						return err
					}
				}
			}
		case html.StartTagToken, html.EndTagToken, html.SelfClosingTagToken:
			name, _ := z.TagName()
			tag := string(name)
			if skip > 0 {
				if tag == skipTag {
					if tt == html.StartTagToken {
						skip++
					} else if tt == html.EndTagToken {
						skip--
					}
				}
				continue
			}
			if htmlSkipped[tag] {
				if tt == html.StartTagToken {
					skip, skipTag = 1, tag
				}
				continue
			}
			if len(tag) == 2 && tag[0] == 'h' && tag[1] >= '1' && tag[1] <= '6' {
				if err := flush(); err != nil {
					return err
				}
				heading = 0
				if tt == html.StartTagToken {
					heading = int(tag[1] - '0')
				}
				continue
			}
			if htmlBlocks[tag] {
				if err := flush(); err != nil {
					return err
				}
			}
		}
	}
}
