package assembly

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"slices"
	"strings"
	"time"

	"quire/eval"
	"quire/evolve"
	"quire/kernel/protocol"
	"quire/skills"
)

// Why an evaluation could not be made (Evaluator).
var (
	// ErrNotEvaluable is a candidate the evaluation cannot run with: a
	// workflow whose parameters lack defaults, a skill whose SKILL.md does
	// not parse, or a kind this Quire does not know.
	ErrNotEvaluable = errors.New("this kind of candidate cannot be evaluated yet")
	// ErrIncomplete is an evaluation cut short (a bound, a cancel): a
	// report with gaps cannot say the candidate breaks nothing.
	ErrIncomplete = errors.New("the evaluation did not run every scenario")
)

// maxFailure bounds the failure text a report keeps per scenario.
const maxFailure = 300

// logReader is what an evaluation reads the origin runs from (the
// kernel's Events).
type logReader interface {
	Events(ctx context.Context, session string, after int64) ([]protocol.Event, error)
}

// Evaluator is evolve.Evaluator over the eval set and the origin runs'
// replays, each in a temporary world assembled by the root's own wiring
// (EvalBuilder): the user's data folder and notes are never opened.
type Evaluator struct {
	build     eval.Builder
	scenarios fs.FS
	log       logReader
	opts      eval.CompareOptions
	now       func() time.Time
}

var _ evolve.Evaluator = (*Evaluator)(nil)

// NewEvaluator evaluates over scenarios (the eval set's YAML files) and
// the runs log holds (nil: a candidate with origin runs is refused); opts bound it and may run a real model
// (opts.Real, Host, Model) or report progress (opts.Progress).
func NewEvaluator(logger *slog.Logger, scenarios fs.FS, log logReader, opts eval.CompareOptions) *Evaluator {
	return &Evaluator{build: EvalBuilder(logger), scenarios: scenarios, log: log, opts: opts, now: time.Now}
}

// Evaluate runs, for a prompt fragment, every scenario of the eval set and
// a replay of each origin run without the candidate (with active's
// fragment, when a version of it is active) and with it (in active's
// place). A workflow adds nothing to a run's context, so the eval set is
// not what it changes: it runs its filled task as the user's message
// (without: the active version's task, or the same task when none is
// active, a control) and each origin run replayed as it was and with its
// first message replaced by the task.
// A skill is installed in each run's temporary data folder's skills:
// every scenario of the eval set and each origin run, without it (with
// the active version's SKILL.md when one is active) and with it.
func (e *Evaluator) Evaluate(ctx context.Context, c protocol.Candidate, active *protocol.Candidate, progress evolve.Progress) (protocol.EvaluationReport, error) {
	if err := evaluable(c); err != nil {
		return protocol.EvaluationReport{}, err
	}
	if active != nil {
		if err := evaluable(*active); err != nil {
			return protocol.EvaluationReport{}, err
		}
	}
	opts := e.opts
	var list []eval.Scenario
	switch c.Kind {
	case protocol.CandidateWorkflow:
		task, before, err := tasks(c, active)
		if err != nil {
			return protocol.EvaluationReport{}, err
		}
		name := "workflow: " + c.Name
		list = []eval.Scenario{eval.TaskScenario(name, task)}
		opts.Arms = func(sc eval.Scenario) (eval.Scenario, eval.Scenario) {
			if sc.Class == eval.Workflow {
				return eval.WithMessage(sc, before), sc
			}
			return sc, eval.WithMessage(sc, task)
		}
	case protocol.CandidateSkill:
		with, without, err := skillArms(c, active)
		if err != nil {
			return protocol.EvaluationReport{}, err
		}
		opts.Arms = func(sc eval.Scenario) (eval.Scenario, eval.Scenario) {
			return withSkill(sc, without), withSkill(sc, with)
		}
		if list, err = e.evalSet(); err != nil {
			return protocol.EvaluationReport{}, err
		}
	default:
		opts.Candidate = evolve.Render([]protocol.Candidate{c})
		if active != nil {
			opts.Active = evolve.Render([]protocol.Candidate{*active})
		}
		var err error
		if list, err = e.evalSet(); err != nil {
			return protocol.EvaluationReport{}, err
		}
	}
	if len(c.Origin.Runs) > 0 && e.log == nil {
		return protocol.EvaluationReport{}, fmt.Errorf("%w: no log to replay origin runs from", ErrNotEvaluable)
	}
	replays := map[string]protocol.RunRef{}
	for i, run := range c.Origin.Runs {
		evs, err := e.log.Events(ctx, run.Session, 0)
		if err != nil {
			return protocol.EvaluationReport{}, fmt.Errorf("reading origin run %s: %w", run.Run, err)
		}
		sc, err := eval.Replayed(fmt.Sprintf("replay %d: run %s", i+1, run.Run), evs, run.Run)
		if err != nil {
			return protocol.EvaluationReport{}, err
		}
		replays[sc.Name] = run
		list = append(list, sc)
	}
	if progress != nil {
		progress(0, min(len(list), cmp.Or(opts.MaxScenarios, eval.MaxCompareScenarios), eval.MaxCompareScenarios), "")
		then := opts.Progress
		opts.Progress = func(p eval.CompareProgress) {
			if then != nil {
				then(p)
			}
			progress(p.Done, p.Total, p.Scenario)
		}
	}
	res := eval.Compare(ctx, list, e.build, opts)
	if err := context.Cause(ctx); err != nil {
		return protocol.EvaluationReport{}, err
	}
	if !res.Complete() {
		return protocol.EvaluationReport{}, fmt.Errorf("%w: %s", ErrIncomplete, res.Stopped)
	}
	r := protocol.EvaluationReport{Candidate: c.ID, Scenarios: []protocol.ScenarioResult{}, At: e.now()}
	if opts.Real {
		r.Model = opts.Model
	}
	for _, p := range res.Pairs {
		s := protocol.ScenarioResult{Name: p.Name}
		switch {
		case p.Without.Skipped || p.With.Skipped:
			// Listed, not dropped: a report that hid them would read as
			// complete when it is not.
			s.Skipped = cmp.Or(p.Without.Why, p.With.Why, "not run")
		default:
			s.Without, s.With = sideOf(p.Without), sideOf(p.With)
		}
		if run, ok := replays[p.Name]; ok {
			s.Replay = &run
		}
		r.Scenarios = append(r.Scenarios, s)
	}
	return r, nil
}

// evalSet is the eval set's scenarios the options select.
func (e *Evaluator) evalSet() ([]eval.Scenario, error) {
	all, err := eval.LoadFS(e.scenarios, "evals")
	if err != nil {
		return nil, err
	}
	return eval.Select(all, e.opts.Options)
}

// skillArm is a skill installed in an arm's data folder: the skills
// folder's SKILL.md of name (text "" installs none, the name's folder
// still cleared).
type skillArm struct{ name, text string }

// skillArms are the candidate's SKILL.md (with) and the active version's
// (without; none when no version is active) as the scenarios install them
// in the temporary data folder's skills, where activation's catalog
// (skills.FromEvolution) puts it beside the user's.
func skillArms(c protocol.Candidate, active *protocol.Candidate) (with, without skillArm, err error) {
	sk, err := skills.ParseFile([]byte(c.Artifact.Skill.SkillMD))
	if err != nil {
		return with, without, protocol.Classify(protocol.ErrConflict, fmt.Errorf("%w: the SKILL.md of %s: %w", ErrNotEvaluable, c.ID, err))
	}
	with, without = skillArm{sk.Name, c.Artifact.Skill.SkillMD}, skillArm{name: sk.Name}
	if active != nil && active.Artifact.Skill != nil {
		without.text = active.Artifact.Skill.SkillMD
	}
	return with, without, nil
}

// withSkill is sc with arm's skill in its data folder's skills, in place
// of any the scenario installs under that name (a copy: the arms run at
// once and share sc).
func withSkill(sc eval.Scenario, arm skillArm) eval.Scenario {
	prefix := arm.name + "/"
	installed := slices.DeleteFunc(slices.Clone(sc.Setup.Skills.Installed), func(f eval.File) bool { return strings.HasPrefix(f.Path, prefix) })
	if arm.text != "" {
		installed = append(installed, eval.File{Path: prefix + skills.FileName, Text: arm.text})
	}
	sc.Setup.Skills.Installed = installed
	return sc
}

// tasks are the workflow's task filled with its defaults and the one it
// is compared with: the active version's, or its own when none is active.
func tasks(c protocol.Candidate, active *protocol.Candidate) (task, before string, err error) {
	task, err = c.Artifact.Workflow.Fill(nil)
	if err != nil {
		return "", "", protocol.Classify(protocol.ErrConflict, fmt.Errorf("%w: give every parameter of %s a default to evaluate it: %w", ErrNotEvaluable, c.Name, err))
	}
	before = task
	if active != nil && active.Artifact.Workflow != nil {
		if before, err = active.Artifact.Workflow.Fill(nil); err != nil {
			// The active version is compared with its own defaults; one
			// without them is compared as the candidate's task.
			before = task
		}
	}
	return task, before, nil
}

// evaluable refuses a candidate the scenarios cannot run with: a prompt
// fragment enters a run's context (evolve.Render), a workflow is a task a
// run is sent and a skill is installed in the temporary data folder's
// skills; any other is this Quire's gap.
func evaluable(c protocol.Candidate) error {
	ok := c.Kind == protocol.CandidatePrompt && c.Artifact.Prompt != nil || c.Kind == protocol.CandidateWorkflow && c.Artifact.Workflow != nil ||
		c.Kind == protocol.CandidateSkill && c.Artifact.Skill != nil
	if !ok {
		// A conflict for the hosts (409): the candidate is fine, this
		// Quire cannot run it yet.
		return protocol.Classify(protocol.ErrConflict, fmt.Errorf("%w: %s (%s)", ErrNotEvaluable, c.Kind, c.ID))
	}
	return nil
}

func sideOf(r eval.Result) protocol.ScenarioRun {
	failure := strings.Join(r.Failures, "; ")
	if len(failure) > maxFailure {
		failure = strings.ToValidUTF8(failure[:maxFailure], "") + "…"
	}
	return protocol.ScenarioRun{Passed: r.Pass, Tokens: r.Tokens, Steps: r.Steps, Failure: failure}
}
