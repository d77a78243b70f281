package eval

import (
	"cmp"
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// Bounds of one comparison (Compare), whatever the caller asks: an
// evaluation runs every scenario twice, so its size is capped.
const (
	// MaxCompareScenarios is how many scenarios one comparison runs.
	MaxCompareScenarios = 200
	// DefaultCompareTokens is the tokens (prompt and output, both arms)
	// a comparison spends before it starts no further scenario.
	DefaultCompareTokens = 2_000_000
	// DefaultCompareTime bounds a whole comparison.
	DefaultCompareTime = 15 * time.Minute
)

// CompareOptions say what a comparison runs: Options (filter, real model,
// parallel) for both arms, the fragments text of each arm, and its bounds.
type CompareOptions struct {
	Options
	// Active is the prompt fragments active now ("" none): the arm
	// without the candidate.
	Active string
	// Candidate is the fragments text with the candidate: the active
	// fragments with it added, or with the version it replaces swapped.
	Candidate string
	// MaxScenarios caps the scenarios run (0 or more than
	// MaxCompareScenarios: MaxCompareScenarios); the rest are reported
	// as not run.
	MaxScenarios int
	// Tokens is the budget of both arms together (0: DefaultCompareTokens);
	// once spent, no further scenario starts.
	Tokens int
	// Time bounds the whole comparison (0: DefaultCompareTime).
	Time time.Duration
	// Arms, when set, makes each arm's scenario from the listed one: a
	// candidate that adds no context (a workflow: a task the user runs)
	// changes what the user sends, not what the model is told.
	Arms func(Scenario) (without, with Scenario)
	// Progress, when set, is called after each scenario's two runs, one
	// call at a time, in the order they finished.
	Progress func(CompareProgress)
}

// CompareProgress is how far a comparison is.
type CompareProgress struct {
	Done     int    `json:"done"`
	Total    int    `json:"total"`
	Scenario string `json:"scenario"` // the one that just finished
}

// Pair is one scenario run without and with the candidate.
type Pair struct {
	Name    string `json:"name"`
	Class   string `json:"class"`
	File    string `json:"file"`
	Without Result `json:"without"`
	With    Result `json:"with"`
	// NotRun says why the scenario did not run (a bound reached, the
	// comparison cancelled); both results are then empty.
	NotRun string `json:"notRun,omitempty"`
}

// Regression reports whether the candidate breaks the scenario: it passed
// without and fails with.
func (p Pair) Regression() bool {
	return p.NotRun == "" && !p.Without.Skipped && p.Without.Pass && !p.With.Pass
}

// Fixed reports whether the candidate mends the scenario: it failed
// without and passes with.
func (p Pair) Fixed() bool {
	return p.NotRun == "" && !p.Without.Skipped && !p.Without.Pass && p.With.Pass
}

// Comparison is a candidate's evaluation report: every scenario, with and
// without, in the scenarios' order.
type Comparison struct {
	Pairs []Pair `json:"pairs"`
	// Regressions are the names of the scenarios the candidate breaks,
	// in order: what the user must see before approving.
	Regressions []string `json:"regressions"`
	Fixed       []string `json:"fixed,omitempty"`
	// Stopped says why some scenarios did not run ("" when all ran).
	Stopped string        `json:"stopped,omitempty"`
	Took    time.Duration `json:"tookNs"`
}

// Complete reports whether every scenario ran in both arms: a report with
// gaps cannot say the candidate breaks nothing.
func (c Comparison) Complete() bool { return c.Stopped == "" }

// Compare runs each scenario without the candidate (opts.Active) and with
// it (opts.Candidate), each run in its own temporary world as Run's are,
// and reports pass/fail, steps and tokens of both. It stops starting
// scenarios when ctx ends, the time bound passes or the token budget is
// spent; those not started are listed as not run, with the reason.
func Compare(ctx context.Context, scenarios []Scenario, build Builder, opts CompareOptions) Comparison {
	start := time.Now()
	limit := opts.MaxScenarios
	if limit <= 0 || limit > MaxCompareScenarios {
		limit = MaxCompareScenarios
	}
	budget := opts.Tokens
	if budget <= 0 {
		budget = DefaultCompareTokens
	}
	ctx, cancel := context.WithTimeoutCause(ctx, cmp.Or(opts.Time, DefaultCompareTime), ErrCompareTime)
	defer cancel()

	pairs := make([]Pair, len(scenarios))
	var spent atomic.Int64
	var mu sync.Mutex // orders Progress calls and the done count
	done := 0
	sem := make(chan struct{}, opts.parallel())
	var wg sync.WaitGroup
	for i, sc := range scenarios {
		pairs[i] = Pair{Name: sc.Name, Class: sc.Class, File: sc.File}
		if i >= limit {
			pairs[i].NotRun = fmt.Sprintf("%v (%d)", ErrCompareScenarios, limit)
			continue
		}
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if err := context.Cause(ctx); err != nil {
			pairs[i].NotRun = err.Error()
			continue
		}
		if spent.Load() >= int64(budget) {
			<-sem
			pairs[i].NotRun = fmt.Sprintf("%v (%d)", ErrCompareTokens, budget)
			continue
		}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			without, with := opts.Options, opts.Options
			without.Fragment, with.Fragment = opts.Active, opts.Candidate
			scWithout, scWith := sc, sc
			if opts.Arms != nil {
				scWithout, scWith = opts.Arms(sc)
			}
			pairs[i].Without = RunOne(ctx, scWithout, build, without)
			pairs[i].With = RunOne(ctx, scWith, build, with)
			if err := context.Cause(ctx); err != nil {
				// Cut short, a run fails for a reason that is not the
				// candidate's: no pass or regression is claimed of it.
				pairs[i] = Pair{Name: sc.Name, Class: sc.Class, File: sc.File, NotRun: err.Error()}
			}
			spent.Add(int64(pairs[i].Without.Tokens + pairs[i].With.Tokens))
			mu.Lock()
			defer mu.Unlock()
			done++
			if opts.Progress != nil {
				opts.Progress(CompareProgress{Done: done, Total: min(limit, len(scenarios)), Scenario: sc.Name})
			}
		}()
	}
	wg.Wait()
	c := Comparison{Pairs: pairs, Regressions: []string{}, Took: time.Since(start)}
	for _, p := range pairs {
		switch {
		case p.NotRun != "" && c.Stopped == "":
			c.Stopped = p.NotRun
		case p.Regression():
			c.Regressions = append(c.Regressions, p.Name)
		case p.Fixed():
			c.Fixed = append(c.Fixed, p.Name)
		}
	}
	return c
}
