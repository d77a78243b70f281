package skills

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// FileName is the file that makes a folder a skill.
const FileName = "SKILL.md"

// Bounds of a skill. The name and description bounds are the Agent Skills
// ones, so a skill written for another agent fits; the rest keep what one
// skill can put in a request small next to a small model's context.
const (
	MaxSkillFile   = 64 << 10  // bytes of SKILL.md, front matter and instructions
	MaxName        = 64        // characters of the name
	MaxDescription = 1024      // characters of the one-line description
	MaxWhen        = 1024      // characters of "when to use it"
	MaxLicense     = 200       // characters of the licence line
	MaxFiles       = 16        // files a skill ships besides SKILL.md
	MaxFilePath    = 128       // characters of a shipped file's path
	MaxFileSize    = 256 << 10 // bytes of one shipped file
	MaxFilesTotal  = 1 << 20   // bytes of all shipped files together
	MaxServers     = 8         // MCP servers a skill may require
	MaxServerName  = 64        // characters of an MCP server's name
)

// Capability is a model capability a skill may require, named as Ollama's
// /api/show names it.
type Capability string

// The capabilities a skill may require.
const (
	CapTools    Capability = "tools"
	CapVision   Capability = "vision"
	CapThinking Capability = "thinking"
)

var capabilities = []Capability{CapTools, CapVision, CapThinking}

// Requires is what a skill needs to be offered: model capabilities, MCP
// servers by name (running when the run starts) and a notes folder.
type Requires struct {
	Model []Capability `yaml:"model,omitempty"`
	MCP   []string     `yaml:"mcp,omitempty"`
	Notes bool         `yaml:"notes,omitempty"`
}

// Skill is one parsed, checked skill package.
type Skill struct {
	Name        string
	Description string // one line: what the skill does
	When        string // when to use it (optional; Quire's own field)
	Requires    Requires
	Files       []string // slash paths inside the folder, besides SKILL.md
	License     string   // optional, as in Agent Skills
	// Instructions is the Markdown body: what the model follows once it
	// loads the skill.
	Instructions string
}

// frontMatter is the YAML head of SKILL.md. Its keys are the only ones
// accepted (fields lists them for the refusal).
type frontMatter struct {
	Name        string   `yaml:"name"`
	Description string   `yaml:"description"`
	When        string   `yaml:"when,omitempty"`
	Requires    Requires `yaml:"requires,omitempty"`
	Files       []string `yaml:"files,omitempty"`
	License     string   `yaml:"license,omitempty"`
}

var (
	fields         = []string{"name", "description", "when", "requires", "files", "license"}
	requiresFields = []string{"model", "mcp", "notes"}
	nameRE         = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	serverRE       = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]*$`)
)

// ParseDir reads the skill in a folder on disk. Access goes through an
// os.Root, so no symlink leads out of the folder, and the skill's name must
// be the folder's name (as Agent Skills asks), so two folders cannot claim
// one name.
func ParseDir(dir string) (Skill, error) {
	root, sk, err := parseRoot(dir)
	if err != nil {
		return Skill{}, err
	}
	root.Close()
	if base := filepath.Base(dir); sk.Name != base {
		return Skill{}, refuse(ErrBadField, fmt.Sprintf("The skill is named %q but its folder is %q: rename the folder or the skill so they match.", sk.Name, base))
	}
	return sk, nil
}

// parseRoot opens dir as an os.Root and parses the skill in it; the root
// is the caller's to close (Install reads the files through it again).
func parseRoot(dir string) (*os.Root, Skill, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, Skill{}, refuse(ErrNoSkillFile, fmt.Sprintf("Quire cannot open the skill folder %s (%v): check that it exists and is readable.", dir, err))
	}
	sk, err := Parse(root.FS())
	if err != nil {
		root.Close()
		return nil, Skill{}, err
	}
	return root, sk, nil
}

// Parse reads and checks the skill whose folder is fsys: SKILL.md and the
// files it declares. It refuses symlinks (where fsys can tell) and anything
// over the bounds, with a sentence saying what to fix.
func Parse(fsys fs.FS) (Skill, error) {
	data, err := readRegular(fsys, FileName, MaxSkillFile)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Skill{}, refuse(ErrNoSkillFile, "The folder has no SKILL.md: a skill is a folder with a SKILL.md file at its top.")
		}
		return Skill{}, skillFileError(FileName, err)
	}
	sk, err := ParseFile(data)
	if err != nil {
		return Skill{}, err
	}
	total := 0
	for _, p := range sk.Files {
		b, err := readRegular(fsys, p, MaxFileSize)
		if err != nil {
			return Skill{}, shippedFileError(p, err)
		}
		total += len(b)
		if total > MaxFilesTotal {
			return Skill{}, refuse(ErrTooLarge, fmt.Sprintf("The files the skill ships add up to more than %d KiB: ship fewer or smaller files.", MaxFilesTotal>>10))
		}
	}
	return sk, nil
}

// ParseFile parses and checks SKILL.md's text alone, without the files it
// declares (Parse checks those): what a proposed skill is checked with
// before it is written to a folder.
func ParseFile(data []byte) (Skill, error) {
	if len(data) > MaxSkillFile {
		return Skill{}, refuse(ErrTooLarge, fmt.Sprintf("SKILL.md is %d KiB; the most is %d KiB: shorten the instructions or move material into files the skill ships.", len(data)>>10, MaxSkillFile>>10))
	}
	if !utf8.Valid(data) {
		return Skill{}, refuse(ErrFrontMatter, "SKILL.md is not UTF-8 text: save it as UTF-8.")
	}
	head, body, err := split(data)
	if err != nil {
		return Skill{}, err
	}
	fm, err := decode(head)
	if err != nil {
		return Skill{}, err
	}
	sk := Skill{
		Name:         fm.Name,
		Description:  strings.TrimSpace(fm.Description),
		When:         strings.TrimSpace(fm.When),
		Requires:     fm.Requires,
		Files:        fm.Files,
		License:      strings.TrimSpace(fm.License),
		Instructions: strings.TrimSpace(string(body)),
	}
	if err := Check(sk); err != nil {
		return Skill{}, err
	}
	return sk, nil
}

// Format renders a skill as the text of its SKILL.md; ParseFile reads it
// back to the same skill.
func Format(sk Skill) ([]byte, error) {
	if err := Check(sk); err != nil {
		return nil, err
	}
	head, err := yaml.Marshal(frontMatter{
		Name: sk.Name, Description: sk.Description, When: sk.When,
		Requires: sk.Requires, Files: sk.Files, License: sk.License,
	})
	if err != nil {
		return nil, fmt.Errorf("format the front matter of %s: %w", sk.Name, err)
	}
	var b bytes.Buffer
	b.WriteString("---\n")
	b.Write(head)
	b.WriteString("---\n\n")
	b.WriteString(sk.Instructions)
	b.WriteString("\n")
	if b.Len() > MaxSkillFile {
		return nil, refuse(ErrTooLarge, fmt.Sprintf("The skill's SKILL.md would be more than %d KiB: shorten the instructions.", MaxSkillFile>>10))
	}
	return b.Bytes(), nil
}

// Check checks every field of a skill against its bounds and rules.
func Check(sk Skill) error {
	switch n := utf8.RuneCountInString(sk.Name); {
	case n == 0:
		return refuse(ErrBadField, "SKILL.md has no name: add a line `name: my-skill` to its front matter.")
	case n > MaxName:
		return refuse(ErrBadField, fmt.Sprintf("The skill name has %d characters; the most is %d: shorten it.", n, MaxName))
	case !nameRE.MatchString(sk.Name):
		return refuse(ErrBadField, fmt.Sprintf("The skill name %q may hold only lowercase letters, digits and single hyphens between them (like weekly-review): rename it.", sk.Name))
	}
	if err := oneLine("description", sk.Description, MaxDescription, true); err != nil {
		return err
	}
	if err := oneLine("when", sk.When, MaxWhen, false); err != nil {
		return err
	}
	if err := oneLine("license", sk.License, MaxLicense, false); err != nil {
		return err
	}
	if err := checkRequires(sk.Requires); err != nil {
		return err
	}
	if err := checkFiles(sk.Files); err != nil {
		return err
	}
	if strings.TrimSpace(sk.Instructions) == "" {
		return refuse(ErrNoInstruction, "SKILL.md has no instructions: write them in Markdown below the front matter's closing ---.")
	}
	if len(sk.Instructions) > MaxSkillFile {
		return refuse(ErrTooLarge, fmt.Sprintf("The instructions are longer than %d KiB: shorten them.", MaxSkillFile>>10))
	}
	return nil
}

func oneLine(field, v string, max int, required bool) error {
	switch n := utf8.RuneCountInString(v); {
	case n == 0 && required:
		return refuse(ErrBadField, fmt.Sprintf("SKILL.md has no %s: add a one-line `%s:` to its front matter saying what the skill does.", field, field))
	case n > max:
		return refuse(ErrBadField, fmt.Sprintf("The skill's %s has %d characters; the most is %d: shorten it.", field, n, max))
	case strings.ContainsFunc(v, unicode.IsControl):
		return refuse(ErrBadField, fmt.Sprintf("The skill's %s must be one line of plain text: remove its line breaks and control characters.", field))
	}
	return nil
}

func checkRequires(r Requires) error {
	for _, c := range r.Model {
		if !slices.Contains(capabilities, c) {
			return refuse(ErrBadField, fmt.Sprintf("requires.model lists %q, which Quire does not know: use %s.", c, list(capabilities)))
		}
	}
	if len(r.MCP) > MaxServers {
		return refuse(ErrBadField, fmt.Sprintf("requires.mcp lists %d servers; the most is %d: split the skill.", len(r.MCP), MaxServers))
	}
	for i, s := range r.MCP {
		if len(s) == 0 || len(s) > MaxServerName || !serverRE.MatchString(s) {
			return refuse(ErrBadField, fmt.Sprintf("requires.mcp lists %q, which is not an MCP server name: use the name the server has in Settings → Extensions (letters, digits, - and _, up to %d).", s, MaxServerName))
		}
		if slices.Contains(r.MCP[:i], s) {
			return refuse(ErrBadField, fmt.Sprintf("requires.mcp lists %q twice: remove one.", s))
		}
	}
	return nil
}

func checkFiles(files []string) error {
	if len(files) > MaxFiles {
		return refuse(ErrBadFile, fmt.Sprintf("The skill lists %d files; the most is %d: ship fewer.", len(files), MaxFiles))
	}
	for i, p := range files {
		switch {
		case len(p) == 0 || len(p) > MaxFilePath:
			return refuse(ErrBadFile, fmt.Sprintf("The file %q has an empty or too long path (the most is %d characters): fix it in files:.", p, MaxFilePath))
		case strings.Contains(p, `\`) || !fs.ValidPath(p) || p == ".":
			return refuse(ErrBadFile, fmt.Sprintf("The file %q is not a path inside the skill's folder: write it relative to the folder with / between parts, without .. or a leading /.", p))
		case strings.EqualFold(path.Base(p), FileName) && !strings.Contains(p, "/"):
			return refuse(ErrBadFile, "files: lists SKILL.md itself: list only the other files the skill ships.")
		case slices.Contains(files[:i], p):
			return refuse(ErrBadFile, fmt.Sprintf("files: lists %q twice: remove one.", p))
		}
	}
	return nil
}

func list[T ~string](vs []T) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = string(v)
	}
	return strings.Join(s, ", ")
}

// split cuts SKILL.md into its front matter (between a first line "---" and
// the next line "---") and its Markdown body.
func split(data []byte) (head, body []byte, err error) {
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	rest, ok := bytes.CutPrefix(data, []byte("---\n"))
	if !ok {
		return nil, nil, refuse(ErrFrontMatter, "SKILL.md must start with a line --- then the front matter (name:, description:) and another line ---.")
	}
	if bytes.HasPrefix(rest, []byte("---\n")) || bytes.Equal(rest, []byte("---")) {
		return nil, nil, refuse(ErrFrontMatter, "SKILL.md's front matter is empty: add name: and description: between the two --- lines.")
	}
	head, body, ok = bytes.Cut(rest, []byte("\n---\n"))
	if !ok {
		if h, found := bytes.CutSuffix(rest, []byte("\n---")); found {
			return h, nil, nil
		}
		return nil, nil, refuse(ErrFrontMatter, "SKILL.md's front matter has no closing line ---: add one after description:.")
	}
	return head, body, nil
}

// decode reads the front matter with yaml.v3, refusing keys Quire does not
// know by name (so a misspelt field is not silently ignored).
func decode(head []byte) (frontMatter, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(head, &doc); err != nil {
		return frontMatter{}, refuse(ErrFrontMatter, fmt.Sprintf("SKILL.md's front matter is not valid YAML (%s): fix it.", yamlReason(err)))
	}
	if len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return frontMatter{}, refuse(ErrFrontMatter, "SKILL.md's front matter must be fields like `name: my-skill`, one a line.")
	}
	top := doc.Content[0]
	if err := knownKeys(top, "", fields); err != nil {
		return frontMatter{}, err
	}
	for i := 0; i+1 < len(top.Content); i += 2 {
		if v := top.Content[i+1]; top.Content[i].Value == "requires" && v.Kind == yaml.MappingNode {
			if err := knownKeys(v, "requires.", requiresFields); err != nil {
				return frontMatter{}, err
			}
		}
	}
	var fm frontMatter
	if err := top.Decode(&fm); err != nil {
		return frontMatter{}, refuse(ErrFrontMatter, fmt.Sprintf("A field of SKILL.md's front matter has the wrong kind of value (%s): name, description, when and license are text, requires.model and requires.mcp and files are lists, requires.notes is true or false.", yamlReason(err)))
	}
	return fm, nil
}

func knownKeys(m *yaml.Node, prefix string, known []string) error {
	seen := map[string]bool{}
	for i := 0; i < len(m.Content); i += 2 {
		k := m.Content[i].Value
		if seen[k] {
			return refuse(ErrFrontMatter, fmt.Sprintf("SKILL.md's front matter has the field %q twice (line %d): keep one.", prefix+k, m.Content[i].Line))
		}
		seen[k] = true
		if !slices.Contains(known, k) {
			return refuse(ErrFrontMatter, fmt.Sprintf("SKILL.md's front matter has an unknown field %q (line %d): the fields are %s; remove it or fix its spelling.", prefix+k, m.Content[i].Line, prefixed(prefix, known)))
		}
	}
	return nil
}

func prefixed(prefix string, names []string) string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = prefix + n
	}
	return strings.Join(out, ", ")
}

// yamlReason is yaml.v3's message without its "yaml: " prefix, on one line.
func yamlReason(err error) string {
	s := strings.TrimPrefix(err.Error(), "yaml: ")
	s = strings.TrimPrefix(s, "unmarshal errors:\n  ")
	return strings.Join(strings.Fields(s), " ")
}

// readRegular reads a regular file of at most max bytes, refusing symlinks
// and every folder on the way that is one (fs.Lstat needs an fs.ReadLinkFS;
// embed.FS has no symlinks, and os.Root refuses those that lead out).
func readRegular(fsys fs.FS, name string, max int64) ([]byte, error) {
	parts := strings.Split(name, "/")
	for i := range parts {
		fi, err := fs.Lstat(fsys, strings.Join(parts[:i+1], "/"))
		if err != nil {
			if errors.Is(err, errors.ErrUnsupported) {
				break
			}
			return nil, err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return nil, errSymlink
		}
		if i == len(parts)-1 {
			if !fi.Mode().IsRegular() {
				return nil, errNotRegular
			}
			if fi.Size() > max {
				return nil, errTooBig
			}
		}
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var b bytes.Buffer
	if _, err := b.ReadFrom(io.LimitReader(f, max+1)); err != nil {
		return nil, err
	}
	if int64(b.Len()) > max {
		return nil, errTooBig
	}
	return b.Bytes(), nil
}

var (
	errSymlink    = errors.New("is a symlink")
	errNotRegular = errors.New("is not a regular file")
	errTooBig     = errors.New("is too large")
)

func skillFileError(name string, err error) error {
	switch {
	case errors.Is(err, errSymlink):
		return refuse(ErrNoSkillFile, "SKILL.md is a symlink: put the file itself in the skill's folder.")
	case errors.Is(err, errNotRegular):
		return refuse(ErrNoSkillFile, "SKILL.md is not a file: a skill is a folder with a SKILL.md file at its top.")
	case errors.Is(err, errTooBig):
		return refuse(ErrTooLarge, fmt.Sprintf("SKILL.md is larger than %d KiB: shorten the instructions or move material into files the skill ships.", MaxSkillFile>>10))
	}
	return refuse(ErrNoSkillFile, fmt.Sprintf("Quire cannot read %s (%v): check that it is readable.", name, err))
}

func shippedFileError(p string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return refuse(ErrBadFile, fmt.Sprintf("files: lists %q, which is not in the skill's folder: add the file or remove it from files:.", p))
	case errors.Is(err, errSymlink):
		return refuse(ErrBadFile, fmt.Sprintf("The file %q is or passes through a symlink: put the file itself in the skill's folder.", p))
	case errors.Is(err, errNotRegular):
		return refuse(ErrBadFile, fmt.Sprintf("%q is not a regular file: files: lists only files.", p))
	case errors.Is(err, errTooBig):
		return refuse(ErrTooLarge, fmt.Sprintf("The file %q is larger than %d KiB: ship a smaller one.", p, MaxFileSize>>10))
	}
	return refuse(ErrBadFile, fmt.Sprintf("Quire cannot read the file %q (%v): it may lead outside the skill's folder; put it inside.", p, err))
}
