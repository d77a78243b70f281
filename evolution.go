package main

import (
	"errors"
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

// errNoEvolution: this window was built without the evolution part.
var errNoEvolution = errors.New("evolution is not available in this window")

// evolutionMaxRunes bounds the artifact text a dialog quotes; the panel
// shows it whole.
const evolutionMaxRunes = 600

func (a *App) evolutionPort() (host.Evolution, error) {
	if err := a.ready(); err != nil {
		return nil, err
	}
	if a.evolution == nil {
		return nil, errNoEvolution
	}
	return a.evolution, nil
}

// Evolution is every candidate, newest first, with the latest signals.
func (a *App) Evolution() (protocol.EvolutionState, error) {
	e, err := a.evolutionPort()
	if err != nil {
		return protocol.EvolutionState{}, err
	}
	return e.List(a.callCtx())
}

// EvolutionCandidate is one candidate with the active version it would
// replace, its evidence and the signals seen while it was active.
func (a *App) EvolutionCandidate(id string) (protocol.CandidateDetail, error) {
	e, err := a.evolutionPort()
	if err != nil {
		return protocol.CandidateDetail{}, err
	}
	return e.Show(a.callCtx(), id)
}

// ProposeCandidate adds a candidate the user wrote; it changes nothing
// until it is evaluated, approved and activated.
func (a *App) ProposeCandidate(d protocol.CandidateDraft) (protocol.Candidate, error) {
	e, err := a.evolutionPort()
	if err != nil {
		return protocol.Candidate{}, err
	}
	c, err := e.Propose(a.callCtx(), d)
	return c, spoken(err)
}

// EvaluateCandidate runs the candidate's isolated evaluation (temporary
// folders, never the user's notes) and returns its report.
func (a *App) EvaluateCandidate(id string) (protocol.EvaluationReport, error) {
	e, err := a.evolutionPort()
	if err != nil {
		return protocol.EvaluationReport{}, err
	}
	r, err := e.Evaluate(a.callCtx(), id)
	return r, spoken(err)
}

// RefuseCandidate is the user's no; it needs no dialog (a no changes what
// Quire does in no way).
func (a *App) RefuseCandidate(id, reason string) (protocol.Candidate, error) {
	e, err := a.evolutionPort()
	if err != nil {
		return protocol.Candidate{}, err
	}
	c, err := e.Refuse(a.callCtx(), id, reason)
	return c, spoken(err)
}

// ApproveCandidate is the user's yes to a candidate, after a native dialog
// that quotes what it would add and names, from its report, every scenario
// it breaks that passes now. A No changes nothing and returns the
// candidate as it is.
func (a *App) ApproveCandidate(id string, ap protocol.Approval) (protocol.Candidate, error) {
	e, err := a.evolutionPort()
	if err != nil {
		return protocol.Candidate{}, err
	}
	d, err := e.Show(a.callCtx(), id)
	if err != nil {
		return protocol.Candidate{}, err
	}
	c := d.Candidate
	var b strings.Builder
	b.WriteString(artifactText(c))
	if d.Active != nil {
		fmt.Fprintf(&b, "\n\nIt would replace version %d, active now.", d.Active.Version)
	}
	if c.Evaluation != nil {
		if broken := c.Evaluation.Regressions(); len(broken) > 0 {
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
	yes, err := a.confirm(fmt.Sprintf("Approve %q (version %d)?", host.Visible(c.Name), c.Version), b.String())
	if err != nil || !yes {
		return c, err
	}
	c, err = e.Approve(a.callCtx(), id, ap)
	return c, spoken(err)
}

// ActivateCandidate makes an approved candidate active in ac's scope after
// a native dialog saying what will change, where, and which version it
// replaces. A No changes nothing.
func (a *App) ActivateCandidate(id string, ac protocol.Activation) (protocol.Candidate, error) {
	e, err := a.evolutionPort()
	if err != nil {
		return protocol.Candidate{}, err
	}
	d, err := e.Show(a.callCtx(), id)
	if err != nil {
		return protocol.Candidate{}, err
	}
	c := d.Candidate
	where := "every conversation"
	if ac.Scope == protocol.ScopeFolder {
		where = "conversations over this notes folder"
	}
	text := artifactText(c) + "\n\nFrom the next message on, in " + where + "."
	if d.Active != nil {
		text += fmt.Sprintf(" Version %d, active now, stops.", d.Active.Version)
	}
	text += " Roll back undoes it in one step.\n\nYes activates it; No changes nothing."
	yes, err := a.confirm(fmt.Sprintf("Activate %q (version %d)?", host.Visible(c.Name), c.Version), text)
	if err != nil || !yes {
		return c, err
	}
	c, err = e.Activate(a.callCtx(), id, ac)
	return c, spoken(err)
}

// RollbackCandidate ends the activation of id after a native dialog saying
// what stops and what is active again. A No changes nothing.
func (a *App) RollbackCandidate(id string) (protocol.Candidate, error) {
	e, err := a.evolutionPort()
	if err != nil {
		return protocol.Candidate{}, err
	}
	d, err := e.Show(a.callCtx(), id)
	if err != nil {
		return protocol.Candidate{}, err
	}
	c := d.Candidate
	text := fmt.Sprintf("From the next message on, the model is no longer told what version %d adds.", c.Version)
	if c.Replaces != "" {
		text += " The version it replaced is active again."
	}
	text += "\n\nYes rolls it back; No changes nothing."
	yes, err := a.confirm(fmt.Sprintf("Roll back %q (version %d)?", host.Visible(c.Name), c.Version), text)
	if err != nil || !yes {
		return c, err
	}
	c, err = e.Rollback(a.callCtx(), id)
	return c, spoken(err)
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
	if utf8.RuneCountInString(body) > evolutionMaxRunes {
		body = string([]rune(body)[:evolutionMaxRunes]) + "… (the Evolution panel shows it whole)"
	}
	return head + "\n\n" + wrap(body, dialogWrap)
}
