package notes

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path"
	"strings"

	"quire/kernel/tool"
)

// notePath describes the path argument of the tools that take one note.
const notePath = "Note path, like projects/plan.md."

// requestIDDesc describes the requestId of the tools keyed by it.
const requestIDDesc = "Optional id of this request: a retry with the same id returns the first result instead of doing it twice."

func createNote(r *Root) tool.Tool {
	type args struct {
		Path      string `json:"path"`
		Content   string `json:"content"`
		RequestID string `json:"requestId"`
	}
	params := []param{
		{"path", true, str("New note path ending in .md, like projects/plan.md; missing folders are made.")},
		{"content", true, str("The note's Markdown text.")},
		{"requestId", false, str(requestIDDesc)},
	}
	spec := writeSpec("create_note", "Create a new note. Fails if the path exists: pick another name, or use edit_note or append_note.", tool.Keyed)
	return newTool(spec, params, func(ctx context.Context, call tool.Call, a args) (tool.Result, error) {
		unlock, err := r.lockWrite(ctx)
		if err != nil {
			return tool.Result{}, err
		}
		defer unlock()
		t, err := r.resolve(a.Path)
		if err != nil {
			return tool.Result{}, err
		}
		id := a.RequestID
		if id == "" {
			id = call.ID
		}
		key, asked := "create_note:"+id, t.real+"\x00"+digest(a.Content)
		if q, ok := r.requests.get(key); ok && id != "" {
			if q.args != asked {
				return tool.Result{}, fail(ErrRequestReused, "the requestId %q already created %s; use a new requestId for a different note", id, q.change.Path)
			}
			if now, err := r.resolve(q.change.Path); err == nil && now.exists {
				if text, err := r.readText(now); err == nil && text == a.Content {
					return changed(q.change, "%s was already created by an earlier try of this request", t.rel), nil
				}
			}
		}
		if err := mustBeVisible(t); err != nil {
			return tool.Result{}, err
		}
		if t.rel == "." || !isNoteName(t.rel) {
			return tool.Result{}, fail(ErrNotNote, "%q is not a note name: notes are Markdown or text files, so end the name in .md, like %s.md", t.rel, strings.TrimSuffix(path.Base(t.rel), "."))
		}
		if t.exists {
			return tool.Result{}, existsError(r, t, a.Content)
		}
		if err := r.checkNew(t, ""); err != nil {
			return tool.Result{}, err
		}
		if strings.ContainsRune(a.Content, 0) {
			return tool.Result{}, fail(tool.ErrInvalidArgs, "the content contains a NUL character, which would make the note a binary file; remove it")
		}
		if len(a.Content) > maxNoteBytes {
			return tool.Result{}, fail(ErrNotNote, "the content is %s, more than the %s a note may have; split it into several notes", humanSize(int64(len(a.Content))), humanSize(maxNoteBytes))
		}
		if err := r.makeParents(t.real); err != nil {
			return tool.Result{}, err
		}
		if err := r.createFile(t.real, []byte(a.Content)); err != nil {
			if errors.Is(err, errLanded) {
				return tool.Result{}, fail(ErrExists, "%q appeared while it was being created; create_note never overwrites, so choose another name", t.rel)
			}
			return tool.Result{}, err
		}
		c := Change{ID: r.newID(), Tool: "create_note", Kind: KindWrite, Path: t.real, After: ptr(a.Content), RequestID: id}
		if id != "" {
			r.requests.put(key, request{args: asked, change: c})
		}
		return changed(c, "Created %s (%s)", t.rel, humanSize(int64(len(a.Content)))), nil
	})
}

// existsError says why create_note will not write t, which exists.
func existsError(r *Root, t target, content string) error {
	if t.info.IsDir() {
		return fail(ErrExists, "%q is an existing folder; choose another name for the note", t.rel)
	}
	if text, err := r.readText(t); err == nil && text == content {
		return fail(ErrExists, "%q already exists with exactly this content, so there is nothing to create", t.rel)
	}
	return fail(ErrExists, "%q already exists, and create_note never overwrites a note; choose another name, or change it with edit_note or append_note", t.rel)
}

func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func appendNote(r *Root) tool.Tool {
	type args struct {
		Path string `json:"path"`
		Text string `json:"text"`
	}
	params := []param{
		{"path", true, str("Note path, like journal/2026-03.md.")},
		{"text", true, str("Text to add.")},
	}
	spec := writeSpec("append_note", "Add text on a new line at the end of an existing note; create_note makes a new one.", tool.Unsafe)
	return newTool(spec, params, func(ctx context.Context, _ tool.Call, a args) (tool.Result, error) {
		if a.Text == "" {
			return tool.Result{}, fail(tool.ErrInvalidArgs, "the text is empty; give the text to add")
		}
		unlock, err := r.lockWrite(ctx)
		if err != nil {
			return tool.Result{}, err
		}
		defer unlock()
		t, old, err := r.openNote(a.Path)
		if err != nil {
			return tool.Result{}, err
		}
		nl := lineEnding(old)
		text := old
		if text != "" && !strings.HasSuffix(text, "\n") {
			text += nl
		}
		text += a.Text
		if !strings.HasSuffix(text, "\n") {
			text += nl
		}
		c, err := r.rewrite(t, "append_note", old, text)
		if err != nil {
			return tool.Result{}, err
		}
		return changed(c, "Added %s to the end of %s", humanSize(int64(len(text)-len(old))), t.rel), nil
	})
}

func editNote(r *Root) tool.Tool {
	type args struct {
		Path    string `json:"path"`
		Find    string `json:"find"`
		Replace string `json:"replace"`
	}
	find := str("Exact text to replace, copied from the note with its spaces and line breaks; it must occur once.")
	find["minLength"] = 1
	params := []param{
		{"path", true, str(notePath)},
		{"find", true, find},
		{"replace", true, str("New text; empty deletes the passage.")},
	}
	spec := writeSpec("edit_note", "Replace one exact passage of a note with new text. Read the note first.", tool.Unsafe)
	return newTool(spec, params, func(ctx context.Context, _ tool.Call, a args) (tool.Result, error) {
		if a.Find == "" {
			return tool.Result{}, fail(tool.ErrInvalidArgs, "the find argument is empty; give the exact text to replace")
		}
		unlock, err := r.lockWrite(ctx)
		if err != nil {
			return tool.Result{}, err
		}
		defer unlock()
		t, old, err := r.openNote(a.Path)
		if err != nil {
			return tool.Result{}, err
		}
		find, replace := a.Find, a.Replace
		n := strings.Count(old, find)
		if n == 0 && lineEnding(old) == "\r\n" && strings.Contains(find, "\n") {
			// The note has Windows line endings; the model wrote \n.
			crlf := func(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "\r\n") }
			if m := strings.Count(old, crlf(find)); m > 0 {
				find, replace, n = crlf(find), crlf(replace), m
			}
		}
		switch {
		case n == 0:
			return tool.Result{}, fail(ErrNoMatch, "the text to find does not occur in %s%s; read_note shows its current text, so copy the passage exactly, including spaces and line breaks", t.rel, nearMiss(old, a.Find))
		case n > 1:
			return tool.Result{}, fail(ErrAmbiguous, "the text to find occurs %d times in %s (%s); include more of the surrounding text so that it matches exactly once", n, t.rel, linesOf(old, find))
		}
		text := strings.Replace(old, find, replace, 1)
		if text == old {
			return tool.Result{Status: tool.Success, Content: fmt.Sprintf("find and replace are the same, so %s is unchanged.", t.rel)}, nil
		}
		c, err := r.rewrite(t, "edit_note", old, text)
		if err != nil {
			return tool.Result{}, err
		}
		return changed(c, "Replaced 1 passage in %s at line %d", t.rel, strings.Count(old[:strings.Index(old, find)], "\n")+1), nil
	})
}

// nearMiss says where find would match if case or surrounding whitespace
// were ignored, to help the model copy the passage right.
func nearMiss(text, find string) string {
	if i := strings.Index(strings.ToLower(text), strings.ToLower(find)); i >= 0 && len(strings.ToLower(text)) == len(text) {
		return fmt.Sprintf(" (it occurs with different capitals at line %d)", strings.Count(text[:i], "\n")+1)
	}
	if trimmed := strings.TrimSpace(find); trimmed != find && trimmed != "" {
		if i := strings.Index(text, trimmed); i >= 0 {
			return fmt.Sprintf(" (without its leading or trailing spaces and line breaks it occurs at line %d)", strings.Count(text[:i], "\n")+1)
		}
	}
	return ""
}

// linesOf lists the lines where find starts, up to ten.
func linesOf(text, find string) string {
	var lines []string
	for at, line := 0, 1; ; {
		i := strings.Index(text[at:], find)
		if i < 0 {
			break
		}
		line += strings.Count(text[at:at+i], "\n")
		if len(lines) == 10 {
			lines = append(lines, "…")
			break
		}
		lines = append(lines, fmt.Sprint(line))
		line += strings.Count(find, "\n")
		at += i + len(find)
	}
	return "at lines " + strings.Join(lines, ", ")
}

// openNote resolves rel to an existing note the tools may change, and reads it.
func (r *Root) openNote(rel string) (target, string, error) {
	t, err := r.resolve(rel)
	if err != nil {
		return target{}, "", err
	}
	if err := mustBeNote(t); err != nil {
		return target{}, "", err
	}
	if err := mustBeVisible(t); err != nil {
		return target{}, "", err
	}
	text, err := r.readText(t)
	return t, text, err
}

// rewrite replaces the note t, whose content was old, with text, keeping its
// mode, and returns the change.
func (r *Root) rewrite(t target, toolName, old, text string) (Change, error) {
	if strings.ContainsRune(text, 0) {
		return Change{}, fail(tool.ErrInvalidArgs, "the new text contains a NUL character, which would make %q a binary file; remove it", t.rel)
	}
	if len(text) > maxNoteBytes {
		return Change{}, fail(ErrNotNote, "%q would grow to %s, more than the %s a note may have; split it into several notes", t.rel, humanSize(int64(len(text))), humanSize(maxNoteBytes))
	}
	if err := r.replaceFile(t.real, []byte(text), t.info.Mode().Perm()); err != nil {
		return Change{}, err
	}
	return Change{ID: r.newID(), Tool: toolName, Kind: KindWrite, Path: t.real, Before: ptr(old), After: ptr(text)}, nil
}
