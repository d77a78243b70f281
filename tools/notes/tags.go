package notes

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"unicode"

	"gopkg.in/yaml.v3"

	"quire/kernel/tool"
)

const (
	maxTags     = 50
	maxTagBytes = 100
)

func setTags(r *Root) tool.Tool {
	type args struct {
		Path string   `json:"path"`
		Tags []string `json:"tags"`
	}
	tags := map[string]any{
		"type":        "array",
		"description": "All its tags, replacing the current ones; [] removes them.",
		"items":       map[string]any{"type": "string", "minLength": 1, "maxLength": maxTagBytes},
		"maxItems":    maxTags,
	}
	params := []param{
		{"path", true, str(notePath)},
		{"tags", true, tags},
	}
	spec := writeSpec("set_tags", "Set a note's tags in its YAML front matter; the rest of the note is kept as it is.", tool.Unsafe)
	return newTool(spec, params, func(ctx context.Context, _ tool.Call, a args) (tool.Result, error) {
		if a.Tags == nil {
			return tool.Result{}, fail(tool.ErrInvalidArgs, "the tags argument is missing; give the list of tags, or [] to remove them all")
		}
		want, err := cleanTags(a.Tags)
		if err != nil {
			return tool.Result{}, err
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
		text, err := withTags(old, want)
		if err != nil {
			return tool.Result{}, fail(ErrFrontMatter, "the front matter of %q cannot be updated: %v", t.rel, err)
		}
		if text == old {
			return tool.Result{Status: tool.Success, Content: fmt.Sprintf("%s already has exactly these tags; nothing was changed.", t.rel)}, nil
		}
		c, err := r.rewrite(t, "set_tags", old, text)
		if err != nil {
			return tool.Result{}, err
		}
		if len(want) == 0 {
			return changed(c, "Removed the tags of %s", t.rel), nil
		}
		return changed(c, "Set the tags of %s to %s", t.rel, strings.Join(want, ", ")), nil
	})
}

// cleanTags trims each tag and a leading #, and drops repeats; it refuses
// empty tags, line breaks and control characters.
func cleanTags(in []string) ([]string, error) {
	if len(in) > maxTags {
		return nil, fail(tool.ErrInvalidArgs, "%d tags are too many; give at most %d", len(in), maxTags)
	}
	out := []string{}
	seen := map[string]bool{}
	for _, tag := range in {
		tag = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(tag), "#"))
		switch {
		case tag == "":
			return nil, fail(tool.ErrInvalidArgs, "a tag is empty; give tags like project or urgent")
		case len(tag) > maxTagBytes:
			return nil, fail(tool.ErrInvalidArgs, "the tag %q is longer than %d bytes; use a shorter tag", tag, maxTagBytes)
		case strings.IndexFunc(tag, unicode.IsControl) >= 0:
			return nil, fail(tool.ErrInvalidArgs, "the tag %q contains a line break or control character; give tags like project or urgent", tag)
		}
		if !seen[tag] {
			seen[tag] = true
			out = append(out, tag)
		}
	}
	return out, nil
}

// withTags returns doc with its front matter's top-level tags set to tags,
// every other byte unchanged: only the lines of the old tags entry are
// replaced (or a tags entry added at the end of the front matter, or a front
// matter added at the top). The result is parsed again and must hold
// exactly these tags and the same other keys, or it is refused.
func withTags(doc string, tags []string) (string, error) {
	bom, body := "", doc
	if strings.HasPrefix(body, "\ufeff") {
		bom, body = "\ufeff", body[len("\ufeff"):]
	}
	nl := lineEnding(body)
	block := renderTags(tags, nl)
	start, end, ok, err := frontMatter(body)
	if err != nil {
		return "", err
	}
	if !ok {
		out := bom + "---" + nl + block + "---" + nl + body
		return out, verifyTags(block, nil, tags)
	}
	yml := body[start:end]
	var before map[string]any
	if err := yaml.Unmarshal([]byte(yml), &before); err != nil {
		return "", fmt.Errorf("it is not valid YAML (%s); fix it with edit_note first", strings.Join(strings.Fields(err.Error()), " "))
	}
	lines := splitLines(yml)
	var newYml string
	if i := tagsLine(lines); i >= 0 {
		j := i + 1
		for j < len(lines) {
			if strings.TrimSpace(lines[j]) == "" { // a blank line belongs to the entry only if the entry goes on after it
				k := j
				for k < len(lines) && strings.TrimSpace(lines[k]) == "" {
					k++
				}
				if k < len(lines) && continues(lines[k]) {
					j = k
					continue
				}
				break
			}
			if !continues(lines[j]) {
				break
			}
			j++
		}
		newYml = strings.Join(lines[:i], "") + block + strings.Join(lines[j:], "")
	} else {
		newYml = yml + block
	}
	if err := verifyTags(newYml, before, tags); err != nil {
		return "", err
	}
	return bom + body[:start] + newYml + body[end:], nil
}

// frontMatter finds the YAML between a first line "---" and the next line
// "---" or "...": body[start:end]. ok is false when there is none; a front
// matter that never closes is an error.
func frontMatter(body string) (start, end int, ok bool, err error) {
	first, _, found := strings.Cut(body, "\n")
	if !found || strings.TrimRight(first, " \t\r") != "---" {
		return 0, 0, false, nil
	}
	start = len(first) + 1
	for pos := start; pos < len(body); {
		line, _, _ := strings.Cut(body[pos:], "\n")
		if l := strings.TrimRight(line, " \t\r"); l == "---" || l == "..." {
			return start, pos, true, nil
		}
		pos += len(line) + 1
	}
	return 0, 0, false, fmt.Errorf("the note starts with --- but the front matter never ends with a --- line; fix it with edit_note first")
}

// tagsLine is the index of the top-level tags key, or -1.
func tagsLine(lines []string) int {
	for i, line := range lines {
		for _, k := range []string{"tags", `"tags"`, `'tags'`} {
			if rest, ok := strings.CutPrefix(line, k); ok && strings.HasPrefix(strings.TrimLeft(rest, " \t"), ":") {
				return i
			}
		}
	}
	return -1
}

// continues reports whether a line carries on the entry above it: indented,
// or a list item at the left margin (YAML allows "tags:\n- a").
func continues(line string) bool {
	return strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t") || strings.HasPrefix(line, "-")
}

// renderTags writes the tags entry as a YAML block list, each tag quoted by
// the YAML encoder where it needs to be.
func renderTags(tags []string, nl string) string {
	if len(tags) == 0 {
		return "tags: []" + nl
	}
	var b strings.Builder
	b.WriteString("tags:" + nl)
	for _, tag := range tags {
		out, err := yaml.Marshal(tag)
		if err != nil {
			out = []byte(fmt.Sprintf("%q", tag))
		}
		b.WriteString("  - " + strings.TrimSuffix(string(out), "\n") + nl)
	}
	return b.String()
}

// verifyTags parses the new front matter and checks it holds exactly tags
// and, apart from tags, what it held before.
func verifyTags(yml string, before map[string]any, tags []string) error {
	var after map[string]any
	if err := yaml.Unmarshal([]byte(yml), &after); err != nil {
		return fmt.Errorf("the tags could not be written into it (%s); edit it with edit_note instead", strings.Join(strings.Fields(err.Error()), " "))
	}
	got, _ := after["tags"].([]any)
	if len(got) != len(tags) {
		return fmt.Errorf("the tags could not be written into it; edit it with edit_note instead")
	}
	for i := range tags {
		if s, ok := got[i].(string); !ok || s != tags[i] {
			return fmt.Errorf("the tag %q could not be written into it; edit it with edit_note instead", tags[i])
		}
	}
	delete(after, "tags")
	delete(before, "tags")
	if len(before) == 0 && len(after) == 0 {
		return nil
	}
	if !reflect.DeepEqual(before, after) {
		return fmt.Errorf("setting the tags would change its other entries; edit it with edit_note instead")
	}
	return nil
}
