package vault

import (
	"encoding/json"
	"strings"
)

// Style is how the vault writes new links.
type Style struct {
	Markdown bool   // new links as [text](dest) rather than [[…]]
	Format   string // "shortest" | "relative" | "absolute" (Obsidian's newLinkFormat)
}

// The values of Style.Format.
const (
	FormatShortest = "shortest"
	FormatRelative = "relative"
	FormatAbsolute = "absolute"
)

// DetectStyle reads .obsidian/app.json's useMarkdownLinks and
// newLinkFormat when given (nil: none), else takes the style most of the
// notes' links use. With neither, it is Obsidian's default: wikilinks,
// shortest form.
func DetectStyle(appJSON []byte, notes []Note) Style {
	if appJSON != nil {
		var app struct {
			UseMarkdownLinks *bool  `json:"useMarkdownLinks"`
			NewLinkFormat    string `json:"newLinkFormat"`
		}
		if json.Unmarshal(appJSON, &app) == nil {
			s := Style{Format: FormatShortest}
			if app.UseMarkdownLinks != nil {
				s.Markdown = *app.UseMarkdownLinks
			}
			switch app.NewLinkFormat {
			case FormatRelative, FormatAbsolute:
				s.Format = app.NewLinkFormat
			}
			return s
		}
	}
	var wiki, md, short, rel, abs int
	for _, n := range notes {
		for _, l := range n.Links {
			if l.Target == "" || l.Property != "" {
				continue
			}
			if l.Wiki {
				wiki++
			} else {
				md++
			}
			switch {
			case strings.HasPrefix(l.Target, "./") || strings.HasPrefix(l.Target, "../"):
				rel++
			case strings.Contains(strings.TrimPrefix(l.Target, "/"), "/"):
				abs++
			default:
				short++
			}
		}
	}
	s := Style{Markdown: md > wiki, Format: FormatShortest}
	switch {
	case short >= rel && short >= abs:
	case rel >= abs:
		s.Format = FormatRelative
	default:
		s.Format = FormatAbsolute
	}
	return s
}
