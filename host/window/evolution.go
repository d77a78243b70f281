package window

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"quire/host"
	"quire/kernel/protocol"
)

// Evolution: the candidate improvements (issue 20), their evaluation, the
// user's approval, scoped activation and rollback. The page shows the diff,
// the evidence and the eval report; the yes of each step that changes what
// Quire does (approve, activate, roll back) is a native dialog here, as a
// batch's apply is: a candidate's text may come from the model, and a
// dialog is what none of it can click. The dialog says what Go will do —
// the candidate's artifact and the report's regressions as the log holds
// them, not words the page made.

// evolutionMaxRunes bounds the artifact text a dialog quotes: a fragment's
// most (protocol.MaxFragment), so one is always quoted whole; a longer one
// (a skill) is named by its length and digest, which the yes carries.
const evolutionMaxRunes = protocol.MaxFragment

func (h *Host) evolutionPort() (host.Evolution, error) {
	return partOf(h, h.evolution, errNoEvolution)
}

// eventEvaluation carries a protocol.EvaluationJob whenever an evaluation
// job changes (docs/PROTOCOL.md), in order per candidate.
const eventEvaluation = "quire:evaluation"

// startEvolution runs with the window: it forwards every evaluation job's
// progress.
func (h *Host) startEvolution(ctx context.Context) {
	if h.evolution == nil {
		return
	}
	go func() {
		for j := range h.evolution.WatchEvaluations(ctx) {
			h.emit(ctx, eventEvaluation, j)
		}
	}()
}

// ApproveCandidate is the user's yes to a candidate, after a native dialog
// that quotes what it would add and names, from its report, every scenario
// it breaks that passes now. A No changes nothing and returns the
// candidate as it is.
func (h *Host) ApproveCandidate(id string, ap protocol.Approval) (protocol.Candidate, error) {
	return h.askedStep(id, "Approve", func(d protocol.CandidateDetail) string {
		var b strings.Builder
		b.WriteString(artifactText(d.Candidate))
		if d.Active != nil {
			fmt.Fprintf(&b, "\n\nIt would replace version %d, active now.", d.Active.Version)
		}
		if ev := d.Candidate.Evaluation; ev != nil {
			if broken := ev.Regressions(); len(broken) > 0 {
				verb := "pass"
				if len(broken) == 1 {
					verb = "passes"
				}
				fmt.Fprintf(&b, "\n\nIt breaks %s that %s now, which you accept by approving:", count(len(broken), "scenario", "scenarios"), verb)
				for _, name := range broken {
					b.WriteString("\n• " + host.Visible(name))
				}
			}
		}
		b.WriteString("\n\nNothing changes until you activate it. Yes approves it; No changes nothing.")
		return b.String()
	}, func(e host.CandidateSteps, d protocol.CandidateDetail) (protocol.Candidate, error) {
		// The yes is to the text this dialog showed: a page that named
		// another is refused by the port.
		ap.Digest = cmp.Or(ap.Digest, d.Candidate.Digest)
		return e.Approve(h.callCtx(), id, ap)
	})
}

// ActivateCandidate makes an approved candidate active in ac's scope after
// a native dialog saying what will change, where, and which version it
// replaces. A No changes nothing.
func (h *Host) ActivateCandidate(id string, ac protocol.Activation) (protocol.Candidate, error) {
	return h.askedStep(id, "Activate", func(d protocol.CandidateDetail) string {
		where := "every conversation"
		if ac.Scope == protocol.ScopeFolder {
			where = "conversations over this notes folder"
		}
		text := artifactText(d.Candidate) + "\n\nFrom the next message on, in " + where + "."
		if d.Active != nil {
			text += fmt.Sprintf(" Version %d, active now, stops.", d.Active.Version)
		}
		return text + " Roll back undoes it in one step.\n\nYes activates it; No changes nothing."
	}, func(e host.CandidateSteps, d protocol.CandidateDetail) (protocol.Candidate, error) {
		ac.Digest = cmp.Or(ac.Digest, d.Candidate.Digest)
		return e.Activate(h.callCtx(), id, ac)
	})
}

// RollbackCandidate ends the activation of id after a native dialog saying
// what stops and what is active again. A No changes nothing.
func (h *Host) RollbackCandidate(id string) (protocol.Candidate, error) {
	return h.askedStep(id, "Roll back", func(d protocol.CandidateDetail) string {
		text := fmt.Sprintf("From the next message on, the model is no longer told what version %d adds.", d.Candidate.Version)
		if d.Candidate.Replaces != "" {
			text += " The version it replaced is active again."
		}
		return text + "\n\nYes rolls it back; No changes nothing."
	}, func(e host.CandidateSteps, _ protocol.CandidateDetail) (protocol.Candidate, error) {
		return e.Rollback(h.callCtx(), id)
	})
}

// askedStep takes step on candidate id only after a native Yes to
// "VERB NAME (version N)?" with the text ask makes of the candidate as the
// log holds it; a No returns the candidate unchanged.
func (h *Host) askedStep(id, verb string, ask func(protocol.CandidateDetail) string, step func(host.CandidateSteps, protocol.CandidateDetail) (protocol.Candidate, error)) (protocol.Candidate, error) {
	e, err := h.evolutionPort()
	if err != nil {
		return protocol.Candidate{}, err
	}
	d, err := e.Show(h.callCtx(), id)
	if err != nil {
		return protocol.Candidate{}, err
	}
	c := d.Candidate
	yes, err := h.confirm(fmt.Sprintf("%s %q (version %d)?", verb, host.Visible(c.Name), c.Version), ask(d))
	if err != nil || !yes {
		return c, err
	}
	c, err = step(e, d)
	return c, host.Spoken(err)
}

// artifactText is what a candidate changes, in words, its text quoted up
// to evolutionMaxRunes with every invisible character shown.
func artifactText(c protocol.Candidate) string {
	var head, body string
	switch art := c.Artifact; {
	case art.Prompt != nil:
		head, body = "While it is active, the model is told:", art.Prompt.Text
	case art.Skill != nil:
		head, body = "While it is active, the model may use this skill (it grants no tool):", art.Skill.SkillMD
	case art.Workflow != nil:
		head, body = "While it is active, this task is offered (it runs as any chat does, asking as usual):", art.Workflow.Task
	}
	body = host.Visible(body)
	if n := utf8.RuneCountInString(body); n > evolutionMaxRunes {
		return fmt.Sprintf("%s\n\n%s… \n\n(%d characters in all: the Evolution panel shows it whole, with digest %s; what you approve is that text exactly)",
			head, wrap(string([]rune(body)[:evolutionMaxRunes/2]), dialogWrap), n, c.Digest)
	}
	return head + "\n\n" + wrap(body, dialogWrap)
}
