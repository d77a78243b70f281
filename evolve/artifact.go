package evolve

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"quire/kernel/protocol"
	"quire/skills"
)

// decodeArtifact reads an artifact as written in the log or sent by a host,
// refusing unknown fields at every level: a candidate holds a fragment's
// text, a SKILL.md or a task with its parameters, and nothing that could
// name a profile, a grant, an effect, a tool or an approve mode.
func decodeArtifact(raw []byte) (protocol.Artifact, error) {
	var a protocol.Artifact
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return a, bad("the candidate's artifact is not one of a prompt fragment's text, a skill's SKILL.md or a workflow's task: %v", err)
	}
	if dec.More() {
		return a, bad("the candidate's artifact has data after its object")
	}
	return a, nil
}

// DecodeDraft reads a candidate draft strictly (unknown fields refused), as
// a host that takes JSON from the user does.
func DecodeDraft(raw []byte) (protocol.CandidateDraft, error) {
	var d protocol.CandidateDraft
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		return d, bad("the candidate is not a name, kind, artifact and origin: %v", err)
	}
	return d, nil
}

// Compiled on first use, not at every program start: with correctionCue
// its Unicode classes cost every CLI command 2 M instructions (issue 30).
var namePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[\p{L}\p{N}][\p{L}\p{N} ._-]*$`) })

// checkDraft refuses a draft that is not one bounded artifact of its kind.
func checkDraft(d protocol.CandidateDraft) error {
	name := strings.TrimSpace(d.Name)
	if name == "" || utf8.RuneCountInString(name) > protocol.MaxCandidateName || !namePattern().MatchString(name) {
		return bad("a candidate's name is 1 to %d letters, digits, spaces, dots, dashes or underscores; %q is not", protocol.MaxCandidateName, d.Name)
	}
	if utf8.RuneCountInString(d.Why) > protocol.MaxFragment {
		return bad("a candidate's reason is at most %d characters", protocol.MaxFragment)
	}
	if len(d.Origin.Runs) > protocol.MaxOrigin || len(d.Origin.Signals) > protocol.MaxOrigin {
		return bad("a candidate's origin names at most %d runs and %d signals", protocol.MaxOrigin, protocol.MaxOrigin)
	}
	a := d.Artifact
	set := 0
	for _, p := range []bool{a.Prompt != nil, a.Skill != nil, a.Workflow != nil} {
		if p {
			set++
		}
	}
	if set != 1 {
		return bad("a candidate holds exactly one artifact: a prompt fragment, a skill or a workflow")
	}
	switch d.Kind {
	case protocol.CandidatePrompt:
		if a.Prompt == nil {
			return bad("a prompt candidate holds a prompt fragment")
		}
		return checkText("a prompt fragment", a.Prompt.Text, protocol.MaxFragment)
	case protocol.CandidateSkill:
		if a.Skill == nil {
			return bad("a skill candidate holds a skill's SKILL.md")
		}
		if err := checkText("a skill's SKILL.md", a.Skill.SkillMD, protocol.MaxSkill); err != nil {
			return err
		}
		return checkSkill(name, a.Skill.SkillMD)
	case protocol.CandidateWorkflow:
		if a.Workflow == nil {
			return bad("a workflow candidate holds a workflow's task")
		}
		return checkWorkflow(*a.Workflow)
	}
	return bad("a candidate's kind is prompt, skill or workflow, not %q", d.Kind)
}

func checkText(what, text string, limit int) error {
	if strings.TrimSpace(text) == "" {
		return bad("%s cannot be empty", what)
	}
	if !utf8.ValidString(text) || strings.ContainsRune(text, 0) {
		return bad("%s must be text", what)
	}
	if n := utf8.RuneCountInString(text); n > limit {
		return bad("%s is at most %d characters; this one has %d", what, limit, n)
	}
	return nil
}

// checkSkill reads the SKILL.md with issue 19's own parser (skills'
// ParseFile: its front matter has no key that grants a tool or an effect —
// what a skill may use is granted by the user when it is installed — and
// refuses keys it does not know, such as allowed-tools). A candidate is the
// SKILL.md alone, so it may not declare files to ship beside it; it is
// named as its skill, so its versions are the versions of that one skill
// in the catalog (skills.FromEvolution).
func checkSkill(name, md string) error {
	sk, err := skills.ParseFile([]byte(md))
	if err != nil {
		return bad("the skill's SKILL.md cannot be used: %v", err)
	}
	if sk.Name != name {
		return bad("a skill candidate is named as its SKILL.md names the skill: name it %q, or change the SKILL.md's name", sk.Name)
	}
	if len(sk.Files) > 0 {
		return bad("a skill candidate is its SKILL.md alone; it cannot declare files (%s)", strings.Join(sk.Files, ", "))
	}
	return nil
}

var paramPattern = regexp.MustCompile(`^[a-z][a-z0-9_]{0,31}$`)

func checkWorkflow(w protocol.WorkflowArtifact) error {
	if err := checkText("a workflow's task", w.Task, protocol.MaxWorkflowTask); err != nil {
		return err
	}
	if len(w.Params) > protocol.MaxWorkflowParam {
		return bad("a workflow has at most %d parameters", protocol.MaxWorkflowParam)
	}
	seen := map[string]bool{}
	for _, p := range w.Params {
		if !paramPattern.MatchString(p.Name) || seen[p.Name] {
			return bad("a workflow's parameter is a distinct lowercase name of letters, digits and _; %q is not", p.Name)
		}
		seen[p.Name] = true
		if !strings.Contains(w.Task, "{"+p.Name+"}") {
			return bad("the workflow's task does not use its parameter {%s}", p.Name)
		}
		if utf8.RuneCountInString(p.Description) > 200 || utf8.RuneCountInString(p.Default) > 200 {
			return bad("a workflow parameter's description and default are at most 200 characters")
		}
	}
	return nil
}
