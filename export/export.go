// Package export turns a conversation's log into what a person keeps: a
// Markdown document (Markdown) and the raw log as JSON lines (JSONLines,
// which `quire replay -json` prints too). Every host exports through it —
// the window, `quire serve` and `quire export` — so the three give the
// same bytes for the same log.
//
// It reads the public events of kernel/protocol and decodes their payloads
// with kernel/event's types. It must never import the store, the runtime,
// a host, Wails, rag or tools: hosts depend on it.
package export

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"quire/kernel/event"
	"quire/kernel/protocol"
)

// Formats a conversation is exported in.
const (
	FormatMarkdown = "md"
	FormatJSONL    = "jsonl"
)

// ErrFormat: an export format other than FormatMarkdown or FormatJSONL.
var ErrFormat = errors.New("the export format is md or jsonl")

// Exported is a conversation rendered in one format, with the file name
// and media type a download or a save dialog offers.
type Exported struct {
	Name, MediaType string
	Body            []byte
}

// ErrNoSession: the id names no conversation (classified as
// protocol.ErrNotFound, so every host answers it as a missing thing).
var ErrNoSession = errors.New("no such session")

// Conversation is the export every host makes: the session's summary and
// whole log read from k, rendered in format. Reading is all it does, so a
// reader's kernel serves as well as the owner's.
func Conversation(ctx context.Context, k protocol.Kernel, id, format string) (Exported, error) {
	if format != FormatMarkdown && format != FormatJSONL && format != "" {
		return Exported{}, fmt.Errorf("%w, not %q", ErrFormat, format)
	}
	list, err := k.Sessions(ctx)
	if err != nil {
		return Exported{}, err
	}
	i := slices.IndexFunc(list, func(s protocol.Session) bool { return s.ID == id })
	if i < 0 {
		return Exported{}, protocol.Classify(protocol.ErrNotFound, fmt.Errorf("%w: %s", ErrNoSession, id))
	}
	evs, err := k.Events(ctx, id, 0)
	if err != nil {
		return Exported{}, err
	}
	return As(format, list[i], evs)
}

// As renders the session's log in format ("" is Markdown).
func As(format string, s protocol.Session, evs []protocol.Event) (Exported, error) {
	switch format {
	case FormatMarkdown, "":
		return Exported{Name: FileName(s, FormatMarkdown), MediaType: "text/markdown; charset=utf-8", Body: Markdown(s, evs)}, nil
	case FormatJSONL:
		var b bytes.Buffer
		if err := JSONLines(&b, protocol.Filter(evs, protocol.Audience{})); err != nil {
			return Exported{}, err
		}
		return Exported{Name: FileName(s, FormatJSONL), MediaType: "application/x-ndjson", Body: b.Bytes()}, nil
	}
	return Exported{}, fmt.Errorf("%w, not %q", ErrFormat, format)
}

// JSONLines writes one event per line, as the protocol's JSON envelope
// (with session, seq, type, time, payload): the shape `quire replay -json`
// prints and a script reads back.
func JSONLines(w io.Writer, evs []protocol.Event) error {
	enc := json.NewEncoder(w)
	for _, e := range evs {
		if err := enc.Encode(e); err != nil {
			return fmt.Errorf("write event %d: %w", e.Seq, err)
		}
	}
	return nil
}

// FileName is a file name for the export: the title's letters and digits
// (at most 60), then the extension; "conversation" when nothing is left.
func FileName(s protocol.Session, ext string) string {
	var b strings.Builder
	dash := false
	for _, r := range s.Title {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_':
			b.WriteRune(r)
			dash = false
		case !dash && b.Len() > 0:
			b.WriteByte('-')
			dash = true
		}
		if len([]rune(b.String())) >= 60 {
			break
		}
	}
	name := strings.Trim(b.String(), "-")
	if name == "" {
		name = "conversation"
	}
	return name + "." + ext
}

// cite is "[3]" in a reply: a passage of the latest search_docs result.
var cite = regexp.MustCompile(`\[(\d{1,3})\]`)

// Markdown renders the session's public log as a document: the title, each
// message under who said it, each tool call as a short line, and every
// passage a reply cites ("[2]", numbered by the search_docs result before
// it) as a footnote naming the file and its lines. Internal and sensitive
// events are left out, as they are from every page.
func Markdown(s protocol.Session, evs []protocol.Event) []byte {
	r := renderer{args: map[string]string{}, notes: map[string]int{}}
	title := s.Title
	if title == "" {
		title = "Conversation"
	}
	fmt.Fprintf(&r.b, "# %s\n\n", oneLine(title))
	if len(evs) > 0 {
		fmt.Fprintf(&r.b, "_Quire conversation `%s`, started %s._\n", s.ID, evs[0].Time.UTC().Format("2006-01-02 15:04 UTC"))
	}
	if s.Parent != "" {
		fmt.Fprintf(&r.b, "_A branch of conversation `%s` after event %d; what came before is in that conversation's export._\n", s.Parent, s.ParentSeq)
	}
	for _, e := range protocol.Filter(evs, protocol.Audience{}) {
		r.event(e)
	}
	if len(r.footnotes) > 0 {
		r.b.WriteString("\n---\n\n")
		for i, c := range r.footnotes {
			fmt.Fprintf(&r.b, "[^%d]: %s\n", i+1, footnote(c))
		}
	}
	return r.b.Bytes()
}

type renderer struct {
	b bytes.Buffer
	// latest is the passages of the latest search_docs result, by number.
	latest map[int]protocol.Citation
	// args are the arguments of each call, by call id, for its line.
	args      map[string]string
	footnotes []protocol.Citation
	notes     map[string]int // footnote number by passage, so a passage cited twice is one note
}

func (r *renderer) event(e protocol.Event) {
	ev := event.Event{Type: event.Type(e.Type), Payload: e.Payload}
	switch ev.Type {
	case event.UserMessage:
		p, err := event.As[event.UserMessagePayload](ev)
		if err != nil {
			r.unreadable(e)
			return
		}
		r.section("You", p.Text)
	case event.AssistantMessage:
		p, err := event.As[event.AssistantMessagePayload](ev)
		if err != nil {
			r.unreadable(e)
			return
		}
		for _, c := range p.ToolCalls {
			r.args[c.ID] = c.Arguments
		}
		if strings.TrimSpace(p.Content) != "" {
			r.section("Quire", r.cited(p.Content))
		}
		if p.Interrupted {
			r.b.WriteString("\n_(the reply was cut off here)_\n")
		}
	case event.ToolResult:
		p, err := event.As[event.ToolResultPayload](ev)
		if err != nil {
			r.unreadable(e)
			return
		}
		r.toolLine(p.Name, r.args[p.CallID], p.Status, resultSummary(p))
		if p.Name == "search_docs" {
			r.searched(p.Data)
		}
	case event.ToolRefused:
		p, err := event.As[event.ToolRefusedPayload](ev)
		if err != nil {
			r.unreadable(e)
			return
		}
		r.toolLine(p.Name, r.args[p.CallID], p.Status, p.Reason)
	case event.HistoryReplace:
		r.b.WriteString("\n_(earlier messages were summarised for the model here; they are all above)_\n")
	case event.RunFinished:
		p, err := event.As[event.RunFinishedPayload](ev)
		if err == nil && p.Reason != event.ReasonCompleted && p.Reason != event.ReasonNothingToDo {
			line := "stopped: " + p.Reason
			if p.Error != "" {
				line += " — " + p.Error
			}
			fmt.Fprintf(&r.b, "\n_(%s)_\n", oneLine(line))
		}
	}
}

func (r *renderer) section(who, text string) {
	fmt.Fprintf(&r.b, "\n## %s\n\n%s\n", who, strings.TrimRight(text, "\n"))
}

func (r *renderer) unreadable(e protocol.Event) {
	fmt.Fprintf(&r.b, "\n_(event %d, a %s, could not be read)_\n", e.Seq, e.Type)
}

// toolLine is a tool call as one line: its name, its arguments shortened,
// how it ended and what it gave.
func (r *renderer) toolLine(name, args, status, detail string) {
	line := "> Tool `" + name + "`"
	if a := shorten(oneLine(args), 80); a != "" && a != "{}" {
		line += " " + strings.ReplaceAll(a, "`", "'")
	}
	if status != "" {
		line += " — " + status
	}
	if d := shorten(oneLine(detail), 120); d != "" {
		line += ": " + d
	}
	r.b.WriteString("\n" + line + "\n")
}

func resultSummary(p event.ToolResultPayload) string {
	if p.Name == "search_docs" {
		var res protocol.SearchResult
		if b, err := json.Marshal(p.Data); err == nil && json.Unmarshal(b, &res) == nil {
			if len(res.Hits) == 1 {
				return "1 passage"
			}
			return fmt.Sprintf("%d passages", len(res.Hits))
		}
	}
	return p.Content
}

// searched makes a search_docs result's passages the ones later "[n]" cite.
func (r *renderer) searched(data any) {
	var res protocol.SearchResult
	b, err := json.Marshal(data)
	if err != nil || json.Unmarshal(b, &res) != nil {
		return
	}
	r.latest = map[int]protocol.Citation{}
	for _, c := range res.Hits {
		r.latest[c.N] = c
	}
}

// cited turns each "[n]" naming a passage of the latest search into a
// footnote reference; other brackets stay as written.
func (r *renderer) cited(text string) string {
	return cite.ReplaceAllStringFunc(text, func(m string) string {
		n, _ := strconv.Atoi(m[1 : len(m)-1])
		c, ok := r.latest[n]
		if !ok {
			return m
		}
		key := fmt.Sprintf("%s\x00%d\x00%d", c.Path, c.StartLine, c.EndLine)
		k, seen := r.notes[key]
		if !seen {
			r.footnotes = append(r.footnotes, c)
			k = len(r.footnotes)
			r.notes[key] = k
		}
		return fmt.Sprintf("[^%d]", k)
	})
}

// footnote is "notes/plan.md, lines 12–30 (Goals › Budget)".
func footnote(c protocol.Citation) string {
	out := c.Path
	if out == "" {
		out = c.Name
	}
	switch {
	case c.StartLine > 0 && c.EndLine > c.StartLine:
		out += fmt.Sprintf(", lines %d–%d", c.StartLine, c.EndLine)
	case c.StartLine > 0:
		out += fmt.Sprintf(", line %d", c.StartLine)
	}
	if len(c.Headings) > 0 {
		out += " (" + strings.Join(c.Headings, " › ") + ")"
	}
	return oneLine(out)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func shorten(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// ErrFolder: the path to write an export to is a folder.
var ErrFolder = errors.New("is a folder, not a file: name a file in it")

// WriteFile writes an export to path where the path leads, as a shell's >
// does: through a link to its target (so `-o /dev/stdout` or a link to a
// note never has the link itself replaced), straight into a FIFO or a
// device, and a file through a temporary file beside it, so an export cut
// short never leaves half a file under the name asked for. A file that is
// there keeps its mode; a new one is 0644, like a file the user makes.
func WriteFile(path string, body []byte) error {
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.IsDir():
		return fmt.Errorf("%s %w", path, ErrFolder)
	case err == nil && !fi.Mode().IsRegular():
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			return err
		}
		if _, err := f.Write(body); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	perm := os.FileMode(0o644)
	if err == nil {
		perm = fi.Mode().Perm()
		if real, err := filepath.EvalSymlinks(path); err == nil {
			path = real
		}
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(body); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
