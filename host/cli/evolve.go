package cli

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"quire/host"
	"quire/internal/datadir"
	"quire/kernel/protocol"
)

// maxDraft bounds a candidate file `quire evolve add` reads.
const maxDraft = 64 << 10

type evolveOptions struct {
	set      string
	scope    string
	accept   string
	replaces string
	reason   string
	// yes is -yes: a script's yes to approve or rollback, which are
	// otherwise asked y/n on a terminal.
	yes bool
	// terminal says whether standard input is a person's terminal; nil is
	// isTerminal (tests give their own).
	terminal func(any) bool
}

func (o *evolveOptions) register(fs *flag.FlagSet) {
	fs.StringVar(&o.scope, "scope", protocol.ScopeFolder, "approve: where the candidate applies, folder (this notes folder) or all (every conversation)")
	fs.StringVar(&o.accept, "accept", "", "approve: the regressions you accept, by scenario name, comma-separated")
	fs.StringVar(&o.replaces, "replaces", "", "approve: the active version it replaces (asked for when one is active)")
	fs.StringVar(&o.reason, "reason", "", "refuse: why, in a few words")
	fs.BoolVar(&o.yes, "yes", false, "approve, rollback: act without asking y/n (for scripts; without it, standard input must be a terminal)")
	fs.StringVar(&o.set, "set", "", "task: the workflow's parameters, NAME=VALUE, comma-separated")
}

const evolveUsage = `usage: quire evolve list
       quire evolve show ID
       quire evolve add FILE            (a candidate you wrote, as JSON; - reads standard input)
       quire evolve eval ID
       quire evolve approve ID [-scope folder|all] [-accept SCENARIO,...] [-replaces ID] [-yes]
       quire evolve refuse ID [-reason TEXT]
       quire evolve rollback [ID] [-yes]
       quire evolve task ID [-set NAME=VALUE,...]   (an active workflow's task, for quire run "TASK")`

// run is `quire evolve`: the candidate improvements, their evaluation, the
// user's approval and activation, and rollback, as the Evolution panel
// offers them. It owns the data folder for the command's life.
func (o *evolveOptions) run(ctx context.Context, args []string, env Env) int {
	if len(args) == 0 || !validEvolve(args) {
		fmt.Fprintln(env.Stderr, evolveUsage)
		return 2
	}
	p, err := env.Own(ctx)
	var inUse *datadir.InUseError
	switch {
	case errors.As(err, &inUse):
		fmt.Fprintf(env.Stderr, "quire: %s owns this data folder; use its Evolution panel, or close it and run this again.\n", inUse.Holder)
		return 1
	case err != nil:
		fmt.Fprintln(env.Stderr, "quire:", err)
		return 1
	}
	defer p.Close()
	e := p.Evolution()
	if e == nil {
		fmt.Fprintln(env.Stderr, "quire: evolution is not available; `quire doctor` says why.")
		return 1
	}
	if err := o.do(ctx, e, args, env); err != nil {
		fmt.Fprintln(env.Stderr, "quire:", err)
		return 1
	}
	return 0
}

func validEvolve(args []string) bool {
	switch args[0] {
	case "list":
		return len(args) == 1
	case "rollback":
		return len(args) <= 2
	case "show", "add", "eval", "approve", "refuse", "task":
		return len(args) == 2
	}
	return false
}

func (o *evolveOptions) do(ctx context.Context, e host.Evolution, args []string, env Env) error {
	out := env.Stdout
	switch args[0] {
	case "list":
		st, err := e.List(ctx)
		if err != nil {
			return err
		}
		printList(out, st)
	case "show":
		d, err := e.Show(ctx, args[1])
		if err != nil {
			return err
		}
		printDetail(out, d)
	case "add":
		d, err := readDraft(args[1], env.Stdin)
		if err != nil {
			return err
		}
		c, err := e.Propose(ctx, d)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "Added %s: %s v%d (%s). Evaluate it with `quire evolve eval %s`.\n", c.ID, c.Name, c.Version, c.Kind, c.ID)
	case "eval":
		return evaluate(ctx, e, args[1], out)
	case "approve":
		return o.approve(ctx, e, args[1], env)
	case "task":
		return o.task(ctx, e, args[1], out)
	case "refuse":
		c, err := e.Refuse(ctx, args[1], o.reason)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "Refused %s v%d; it will never be activated.\n", c.Name, c.Version)
	case "rollback":
		id := ""
		if len(args) == 2 {
			id = args[1]
		}
		return o.rollback(ctx, e, id, env)
	}
	return nil
}

// errNotAsked: approve or rollback with no terminal to ask on and no -yes.
var errNotAsked = errors.New("standard input is not a terminal, so nothing was asked and nothing was changed; add -yes to do it from a script")

// confirm asks y/n on a terminal after what will change was printed; -yes
// answers for a script. A no is (false, nil): nothing changes, not a failure.
func (o *evolveOptions) confirm(env Env, question string) (bool, error) {
	if o.yes {
		return true, nil
	}
	terminal := o.terminal
	if terminal == nil {
		terminal = isTerminal
	}
	if !terminal(env.Stdin) {
		return false, errNotAsked
	}
	fmt.Fprintf(env.Stdout, "%s [y/N] ", question)
	if !readYes(env.Stdin) {
		fmt.Fprintln(env.Stdout, "Nothing was changed.")
		return false, nil
	}
	return true, nil
}

// rollback says which version stops and which is active again, and asks.
// With no ID it is the one active version; with several, the user names it.
func (o *evolveOptions) rollback(ctx context.Context, e host.Evolution, id string, env Env) error {
	st, err := e.List(ctx)
	if err != nil {
		return err
	}
	var active []protocol.Candidate
	for _, c := range st.Candidates {
		if c.State == protocol.CandidateActive {
			active = append(active, c)
		}
	}
	if id == "" {
		switch len(active) {
		case 0:
			return errors.New("no candidate is active, so there is nothing to roll back")
		case 1:
			id = active[0].ID
		default:
			ids := make([]string, len(active))
			for i, c := range active {
				ids[i] = fmt.Sprintf("%s (%s v%d)", c.ID, c.Name, c.Version)
			}
			return fmt.Errorf("%d versions are active: %s; name the one to roll back: quire evolve rollback ID", len(active), strings.Join(ids, ", "))
		}
	}
	d, err := e.Show(ctx, id)
	if err != nil {
		return err
	}
	c := d.Candidate
	if c.State != protocol.CandidateActive {
		return fmt.Errorf("%s v%d is %s, not active; nothing to roll back", c.Name, c.Version, c.State)
	}
	fmt.Fprintf(env.Stdout, "Rolling back %s v%d (%s, a %s, active for %s): from the next run on the model is no longer told:\n", c.Name, c.Version, c.ID, c.Kind, scopeWords(c))
	quote(env.Stdout, artifactText(c.Artifact))
	if c.Replaces != "" {
		fmt.Fprintf(env.Stdout, "The version it replaced (%s), if still approved, is active again.\n", c.Replaces)
	}
	if ok, err := o.confirm(env, "Roll it back?"); !ok {
		return err
	}
	c, err = e.Rollback(ctx, id)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "Rolled back %s v%d (%s).\n", c.Name, c.Version, c.ID)
	if st, err := e.List(ctx); err == nil {
		for _, a := range st.Candidates {
			if a.Name == c.Name && a.State == protocol.CandidateActive {
				fmt.Fprintf(env.Stdout, "%s v%d (%s) is active again.\n", a.Name, a.Version, a.ID)
			}
		}
	}
	return nil
}

func scopeWords(c protocol.Candidate) string {
	if c.Scope == protocol.ScopeFolder {
		return "conversations over " + cmp.Or(c.Folder, "this notes folder")
	}
	return "every conversation"
}

// quote prints an artifact's text whole, indented: what the yes is about.
func quote(out io.Writer, text string) {
	for l := range strings.SplitSeq(text, "\n") {
		fmt.Fprintln(out, "  | "+l)
	}
}

// approve is the user's yes and the activation in one command: the
// regressions the user accepts are named, and a version active now is
// replaced only when named too.
func (o *evolveOptions) approve(ctx context.Context, e host.Evolution, id string, env Env) error {
	out := env.Stdout
	var accepted []string
	for a := range strings.SplitSeq(o.accept, ",") {
		if a = strings.TrimSpace(a); a != "" {
			accepted = append(accepted, a)
		}
	}
	d, err := e.Show(ctx, id)
	if err != nil {
		return err
	}
	c := d.Candidate
	if d.Active != nil && o.replaces != d.Active.ID {
		return fmt.Errorf("%s v%d (%s) is active; approving v%d replaces it, so say so: add -replaces %s", d.Active.Name, d.Active.Version, d.Active.ID, c.Version, d.Active.ID)
	}
	approve := c.State != protocol.CandidateApproved
	// What the port would refuse is said before anything is asked.
	var regressions []string
	if approve {
		if c.Evaluation == nil {
			return fmt.Errorf("%s v%d is not evaluated; evaluate it first: quire evolve eval %s", c.Name, c.Version, c.ID)
		}
		regressions = c.Evaluation.Regressions()
		var missing []string
		for _, r := range regressions {
			if !slices.Contains(accepted, r) {
				missing = append(missing, r)
			}
		}
		if len(missing) > 0 {
			return fmt.Errorf("it breaks %s, which pass now; approve only naming them: -accept %s", strings.Join(missing, ", "), strings.Join(regressions, ","))
		}
	}
	where := "every conversation"
	if o.scope == protocol.ScopeFolder {
		where = "conversations over this notes folder"
	}
	fmt.Fprintf(out, "Approving and activating %s v%d (%s, a %s) for %s: from the next run on the model is told:\n", c.Name, c.Version, c.ID, c.Kind, where)
	quote(out, artifactText(c.Artifact))
	if d.Active != nil {
		fmt.Fprintf(out, "It replaces the active v%d (%s), which stops.\n", d.Active.Version, d.Active.ID)
	}
	if len(regressions) > 0 {
		fmt.Fprintf(out, "You accept that it breaks %s.\n", strings.Join(regressions, ", "))
	}
	if ok, err := o.confirm(env, "Approve and activate it?"); !ok {
		return err
	}
	if approve {
		c, err := e.Approve(ctx, id, protocol.Approval{Accepted: accepted})
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "Approved %s v%d.\n", c.Name, c.Version)
	}
	replaces := ""
	if d.Active != nil {
		replaces = d.Active.ID
	}
	c, err = e.Activate(ctx, id, protocol.Activation{Scope: o.scope, Replaces: replaces})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%s v%d is active for %s, from the next run on. `quire evolve rollback %s` undoes it.\n", c.Name, c.Version, scopeWords(c), c.ID)
	return nil
}

// task prints an active workflow's task with its parameters filled: a
// workflow runs as a chat task (`quire run "$(quire evolve task ID)"`), so
// it is asked about as any chat is; only one the user approved and
// activated is given.
func (o *evolveOptions) task(ctx context.Context, e host.Candidates, id string, out io.Writer) error {
	d, err := e.Show(ctx, id)
	if err != nil {
		return err
	}
	c := d.Candidate
	if c.Artifact.Workflow == nil {
		return fmt.Errorf("%s v%d is a %s, not a workflow; only a workflow has a task", c.Name, c.Version, c.Kind)
	}
	if c.State != protocol.CandidateActive {
		return fmt.Errorf("%s v%d is %s; a workflow is run once you approved and activated it (`quire evolve approve %s`)", c.Name, c.Version, c.State, c.ID)
	}
	values := map[string]string{}
	for kv := range strings.SplitSeq(o.set, ",") {
		if kv = strings.TrimSpace(kv); kv == "" {
			continue
		}
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return fmt.Errorf("-set takes NAME=VALUE pairs, not %q", kv)
		}
		values[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	task, err := c.Artifact.Workflow.Fill(values)
	if err != nil {
		return err
	}
	fmt.Fprintln(out, task)
	return nil
}

func readDraft(path string, stdin io.Reader) (protocol.CandidateDraft, error) {
	var r io.Reader = stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return protocol.CandidateDraft{}, err
		}
		defer f.Close()
		r = f
	}
	b, err := io.ReadAll(io.LimitReader(r, maxDraft+1))
	if err != nil {
		return protocol.CandidateDraft{}, err
	}
	if len(b) > maxDraft {
		return protocol.CandidateDraft{}, fmt.Errorf("the candidate is more than %d KB; a candidate is a short text, a SKILL.md or a task", maxDraft>>10)
	}
	return decodeDraft(b)
}

func printList(out io.Writer, st protocol.EvolutionState) {
	if len(st.Candidates) == 0 {
		fmt.Fprintln(out, "No candidates yet.")
	}
	for _, c := range st.Candidates {
		scope := ""
		if c.State == protocol.CandidateActive {
			scope = " for " + c.Scope
		}
		fmt.Fprintf(out, "%s  %s v%d  %s  %s%s  by %s  %d runs, %d signals since\n", c.ID, c.Name, c.Version, c.Kind, c.State, scope, c.Author, c.Monitor.Runs, total(c.Monitor.Signals))
	}
	fmt.Fprintf(out, "%d signals recorded; the model proposes candidates: %v\n", len(st.Signals), st.Learn)
}

func total(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// artifactText is what an artifact says, for a person.
func artifactText(a protocol.Artifact) string {
	switch {
	case a.Prompt != nil:
		return a.Prompt.Text
	case a.Skill != nil:
		return a.Skill.SkillMD
	case a.Workflow != nil:
		var b strings.Builder
		b.WriteString(a.Workflow.Task)
		for _, p := range a.Workflow.Params {
			fmt.Fprintf(&b, "\n{%s}: %s (default %q)", p.Name, p.Description, p.Default)
		}
		return b.String()
	}
	return ""
}

func printDetail(out io.Writer, d protocol.CandidateDetail) {
	c := d.Candidate
	fmt.Fprintf(out, "%s v%d (%s), a %s by the %s, %s\n", c.Name, c.Version, c.ID, c.Kind, c.Author, c.State)
	if c.Why != "" {
		fmt.Fprintln(out, "Why:", c.Why)
	}
	text := artifactText(c.Artifact)
	if d.Active != nil {
		fmt.Fprintf(out, "Against the active v%d (%s):\n", d.Active.Version, d.Active.ID)
		old := strings.Split(artifactText(d.Active.Artifact), "\n")
		cur := strings.Split(text, "\n")
		for _, l := range old {
			if !slices.Contains(cur, l) {
				fmt.Fprintln(out, "- "+l)
			}
		}
		for _, l := range cur {
			prefix := "  "
			if !slices.Contains(old, l) {
				prefix = "+ "
			}
			fmt.Fprintln(out, prefix+l)
		}
	} else {
		for l := range strings.SplitSeq(text, "\n") {
			fmt.Fprintln(out, "  "+l)
		}
	}
	fmt.Fprintf(out, "Origin: %d runs, %d signals\n", len(c.Origin.Runs), len(c.Origin.Signals))
	for _, s := range d.Evidence {
		fmt.Fprintf(out, "  %s in %s (seqs %v): %s\n", s.Kind, s.Session, s.Seqs, s.Text)
	}
	if c.Evaluation != nil {
		printReport(out, *c.Evaluation)
	} else {
		fmt.Fprintf(out, "Not evaluated: `quire evolve eval %s`\n", c.ID)
	}
	if c.Monitor.Runs > 0 || len(d.Since) > 0 {
		fmt.Fprintf(out, "While active: %d runs, signals %v\n", c.Monitor.Runs, c.Monitor.Signals)
	}
}

// evaluate runs the candidate's evaluation job, printing a line as each
// scenario ends; Ctrl-C (ctx) cancels it, and nothing is recorded.
func evaluate(ctx context.Context, e host.Evaluations, id string, out io.Writer) error {
	watch, stop := context.WithCancel(context.WithoutCancel(ctx))
	defer stop()
	// Watched before the start, so not even a fast job's end is missed.
	w := e.WatchEvaluations(watch)
	if _, err := e.StartEvaluation(ctx, id); err != nil {
		return err
	}
	fmt.Fprintln(out, "Evaluating in a temporary folder (your notes are not touched); Ctrl-C cancels.")
	shown := 0
	for {
		select {
		case j := <-w:
			if j.Candidate != id {
				continue
			}
			if j.Done > shown {
				shown = j.Done
				fmt.Fprintf(out, "  %d of %d: %s\n", j.Done, j.Total, j.Scenario)
			}
			switch j.State {
			case protocol.EvaluationDone:
				printReport(out, *j.Report)
				return nil
			case protocol.EvaluationCancelled, protocol.EvaluationFailed:
				return errors.New(j.Error)
			}
		case <-ctx.Done():
			if _, err := e.CancelEvaluation(watch, id); err == nil {
				fmt.Fprintln(out, "Cancelled: nothing was recorded.")
			}
			return context.Cause(ctx)
		}
	}
}

func printReport(out io.Writer, r protocol.EvaluationReport) {
	fmt.Fprintf(out, "Evaluation (%d scenarios):\n", len(r.Scenarios))
	for _, s := range r.Scenarios {
		mark := "  "
		if s.Skipped != "" {
			fmt.Fprintf(out, "- %s: skipped, %s\n", s.Name, s.Skipped)
			continue
		}
		if s.Regressed() {
			mark = "! "
		}
		fmt.Fprintf(out, "%s%s: without %s (%d tokens, %d steps), with %s (%d tokens, %d steps)\n", mark, s.Name,
			passed(s.Without), s.Without.Tokens, s.Without.Steps, passed(s.With), s.With.Tokens, s.With.Steps)
	}
	if reg := r.Regressions(); len(reg) > 0 {
		fmt.Fprintf(out, "Regressions: %s — approve only naming them: -accept %s\n", strings.Join(reg, ", "), strings.Join(reg, ","))
	}
}

func passed(r protocol.ScenarioRun) string {
	if r.Passed {
		return "passed"
	}
	if r.Failure != "" {
		return "failed: " + r.Failure
	}
	return "failed"
}

// decodeDraft reads a candidate strictly: a field Quire does not know (a
// profile, grants, tools, an approve mode) is refused, not dropped.
func decodeDraft(b []byte) (protocol.CandidateDraft, error) {
	var d protocol.CandidateDraft
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		return d, fmt.Errorf("the candidate is not a name, kind, artifact and origin as Quire writes them (%v); a candidate cannot carry permissions or tools", err)
	}
	return d, nil
}
