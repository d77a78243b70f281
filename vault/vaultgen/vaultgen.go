// Package vaultgen writes a realistic Obsidian vault of any size for
// benchmarks and tests: folders two deep, front matter with tags, aliases
// and property links, about ten links a note (short wikilinks, paths,
// aliases, headings and blocks, relative Markdown links with %20, embeds
// of attachments and notes, a few unresolved), three hubs that every
// third note links to (1,000+ backlinks each from 3,000 notes), notes of
// the same name in two folders, and code fences holding fake links.
//
// It is test and benchmark equipment: no product package imports it
// (arch_test). It imports only the standard library.
package vaultgen

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Hubs are the notes every third note links to, by path.
func Hubs() []string {
	return []string{"Hubs/Index.md", "Hubs/Projects Hub.md", "Hubs/People.md"}
}

var words = []string{
	"alpha", "river", "garden", "budget", "meeting", "design", "review", "kitchen", "travel", "reading",
	"python", "notes", "summer", "winter", "market", "health", "music", "paper", "draft", "ideas",
	"launch", "client", "research", "habit", "journal", "recipe", "team", "goal", "plan", "story",
}

// Generate writes a vault of `notes` notes (and about notes/20
// attachments) under dir, the same for the same seed.
func Generate(dir string, notes int, seed int64) error {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x7661756c74))
	folders := max(notes/60, 1)
	paths := make([]string, 0, notes)
	titles := make([]string, 0, notes)
	for _, h := range Hubs() {
		paths = append(paths, h)
		titles = append(titles, strings.TrimSuffix(path.Base(h), ".md"))
	}
	used := map[string]bool{}
	for i := len(paths); i < notes; i++ {
		area := fmt.Sprintf("Area %d", rng.IntN(max(folders/6, 1)))
		topic := fmt.Sprintf("%s %s", cap1(words[rng.IntN(len(words))]), fmt.Sprint(rng.IntN(max(folders, 1))))
		title := fmt.Sprintf("%s %s %d", cap1(words[rng.IntN(len(words))]), words[rng.IntN(len(words))], i)
		// One note in fifty shares its name with an earlier one, in another folder.
		if i > 10 && rng.IntN(50) == 0 {
			title = titles[len(Hubs())+rng.IntN(i-len(Hubs()))]
		}
		p := path.Join(area, topic, title+".md")
		if used[strings.ToLower(p)] {
			p = path.Join(area, topic, fmt.Sprintf("%s x%d.md", title, i))
			title = strings.TrimSuffix(path.Base(p), ".md")
		}
		used[strings.ToLower(p)] = true
		paths = append(paths, p)
		titles = append(titles, title)
	}
	attachments := make([]string, 0, notes/20+1)
	for i := 0; i <= notes/20; i++ {
		ext := []string{".png", ".jpg", ".pdf"}[i%3]
		attachments = append(attachments, fmt.Sprintf("Attachments/%s %d%s", words[i%len(words)], i, ext))
	}
	for _, a := range attachments {
		if err := write(dir, a, []byte("\x89PNG fake attachment\n")); err != nil {
			return err
		}
	}
	if err := write(dir, ".obsidian/app.json", []byte(`{"useMarkdownLinks":false,"newLinkFormat":"shortest"}`+"\n")); err != nil {
		return err
	}
	for i, p := range paths {
		if err := write(dir, p, note(rng, i, p, titles[i], paths, titles, attachments)); err != nil {
			return err
		}
	}
	return nil
}

func cap1(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

func write(dir, p string, b []byte) error {
	full := filepath.Join(dir, filepath.FromSlash(p))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return err
	}
	return os.WriteFile(full, b, 0o644)
}

// note writes one note's text.
func note(rng *rand.Rand, i int, p, title string, paths, titles, attachments []string) []byte {
	var b strings.Builder
	other := func() int { return rng.IntN(len(paths)) }
	b.WriteString("---\n")
	fmt.Fprintf(&b, "tags: [%s, %s]\n", words[rng.IntN(len(words))], words[rng.IntN(len(words))])
	if rng.IntN(4) == 0 {
		fmt.Fprintf(&b, "aliases:\n  - %s %s\n", cap1(words[rng.IntN(len(words))]), fmt.Sprint(i))
	}
	if rng.IntN(3) == 0 {
		fmt.Fprintf(&b, "related: \"[[%s]]\"\n", titles[other()])
	}
	fmt.Fprintf(&b, "created: 2026-%02d-%02d\n---\n", 1+rng.IntN(12), 1+rng.IntN(28))
	fmt.Fprintf(&b, "# %s\n\n", title)
	if i >= len(Hubs()) {
		hub := Hubs()[i%len(Hubs())]
		fmt.Fprintf(&b, "Filed under [[%s]] #%s\n\n", strings.TrimSuffix(path.Base(hub), ".md"), words[rng.IntN(len(words))])
	}
	sections := 2 + rng.IntN(3)
	for s := 0; s < sections; s++ {
		fmt.Fprintf(&b, "## Section %d\n\n", s+1)
		for k := 0; k < 3; k++ {
			j := other()
			b.WriteString(sentence(rng))
			switch rng.IntN(10) {
			case 0:
				fmt.Fprintf(&b, " See [[%s|%s]].", titles[j], words[rng.IntN(len(words))])
			case 1:
				fmt.Fprintf(&b, " See [[%s#Section 1]].", titles[j])
			case 2:
				fmt.Fprintf(&b, " From [%s](%s).", words[rng.IntN(len(words))], relLink(p, paths[j]))
			case 3:
				fmt.Fprintf(&b, " Under [[%s]].", strings.TrimSuffix(paths[j], ".md"))
			case 4:
				if rng.IntN(4) == 0 {
					fmt.Fprintf(&b, " Someday [[Missing %d]].", rng.IntN(100))
				} else {
					fmt.Fprintf(&b, " ![[%s]]", path.Base(attachments[rng.IntN(len(attachments))]))
				}
			default:
				fmt.Fprintf(&b, " Also [[%s]].", titles[j])
			}
			fmt.Fprintf(&b, " ^b%d-%d-%d\n\n", i, s, k)
		}
		if rng.IntN(4) == 0 {
			fmt.Fprintf(&b, "```\n[[Not A Link %d]] and [x](nowhere.md)\n```\n\n", i)
		}
		fmt.Fprintf(&b, "- a task about `[[code]]` and [[%s]]\n- another point\n\n", titles[other()])
	}
	return []byte(b.String())
}

func sentence(rng *rand.Rand) string {
	n := 8 + rng.IntN(12)
	ws := make([]string, n)
	for k := range ws {
		ws[k] = words[rng.IntN(len(words))]
	}
	ws[0] = cap1(ws[0])
	return strings.Join(ws, " ") + "."
}

// relLink is a Markdown link from note `from` to note `to`, relative and %20-encoded.
func relLink(from, to string) string {
	fd := strings.Split(path.Dir(from), "/")
	if path.Dir(from) == "." {
		fd = nil
	}
	tp := strings.Split(to, "/")
	k := 0
	for k < len(fd) && k < len(tp)-1 && fd[k] == tp[k] {
		k++
	}
	rel := strings.Repeat("../", len(fd)-k) + strings.Join(tp[k:], "/")
	return strings.ReplaceAll(rel, " ", "%20")
}
