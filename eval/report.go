package eval

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// Result is how one scenario went.
type Result struct {
	Name    string `json:"name"`
	Class   string `json:"class"`
	File    string `json:"file"`
	Pass    bool   `json:"pass"`
	Skipped bool   `json:"skipped,omitempty"`
	// Why says why a skipped scenario did not run, so a report that lists
	// it never reads as if it had.
	Why      string   `json:"why,omitempty"`
	Failures []string `json:"failures,omitempty"`
	// Answer is what the model last replied, shortened: a report against
	// a real model says what it returned, not only whether checks held.
	Answer    string        `json:"answer"`
	Steps     int           `json:"steps"`
	ToolCalls int           `json:"toolCalls"`
	Tokens    int           `json:"tokens"`
	Took      time.Duration `json:"tookNs"`
}

// Report is a whole run.
type Report struct {
	Results []Result      `json:"results"`
	Real    bool          `json:"real,omitempty"`
	Model   string        `json:"model,omitempty"`
	Took    time.Duration `json:"tookNs"`
}

// Passed reports whether every scenario that ran passed.
func (r Report) Passed() bool {
	for _, x := range r.Results {
		if !x.Skipped && !x.Pass {
			return false
		}
	}
	return true
}

// ClassRate is one class's tally.
type ClassRate struct {
	Class   string `json:"class"`
	Passed  int    `json:"passed"`
	Ran     int    `json:"ran"`
	Skipped int    `json:"skipped"`
}

// Rate is the share of scenarios that passed, 0..1 (1 when none ran).
func (c ClassRate) Rate() float64 {
	if c.Ran == 0 {
		return 1
	}
	return float64(c.Passed) / float64(c.Ran)
}

// Rates tallies each class, in Classes order.
func (r Report) Rates() []ClassRate {
	out := make([]ClassRate, len(Classes))
	for i, c := range Classes {
		out[i].Class = c
		for _, x := range r.Results {
			switch {
			case x.Class != c:
			case x.Skipped:
				out[i].Skipped++
			default:
				out[i].Ran++
				if x.Pass {
					out[i].Passed++
				}
			}
		}
	}
	return out
}

// Table writes one row per scenario: scenario, class, result, steps, tool
// calls, tokens, time; then each failure under its scenario.
func (r Report) Table(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SCENARIO\tCLASS\tRESULT\tSTEPS\tTOOL CALLS\tTOKENS\tTIME")
	for _, x := range r.Results {
		verdict := "pass"
		switch {
		case x.Skipped:
			verdict = "skip"
		case !x.Pass:
			verdict = "FAIL"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%s\n", x.Name, x.Class, verdict, x.Steps, x.ToolCalls, x.Tokens, x.Took.Round(time.Millisecond))
	}
	tw.Flush()
	for _, x := range r.Results {
		if r.Real && !x.Skipped {
			if strings.TrimSpace(x.Answer) == "" {
				fmt.Fprintf(w, "  %s: the model answered nothing\n", x.Name)
			} else {
				fmt.Fprintf(w, "  %s: the model answered %q\n", x.Name, x.Answer)
			}
		}
		for _, f := range x.Failures {
			fmt.Fprintf(w, "  %s: %s\n", x.Name, f)
		}
	}
}

// Summary is one line: totals, and per class the passed count (with the
// success rate against a real model).
func (r Report) Summary() string {
	passed, ran, skipped := 0, 0, 0
	var classes []string
	for _, c := range r.Rates() {
		passed, ran, skipped = passed+c.Passed, ran+c.Ran, skipped+c.Skipped
		if r.Real && c.Ran > 0 {
			classes = append(classes, fmt.Sprintf("%s %d/%d (%.0f%%)", c.Class, c.Passed, c.Ran, 100*c.Rate()))
		} else {
			classes = append(classes, fmt.Sprintf("%s %d/%d", c.Class, c.Passed, c.Ran))
		}
	}
	against := "scripted model"
	if r.Real {
		against = "model " + r.Model
	}
	line := fmt.Sprintf("eval: %d/%d scenarios passed against the %s; %s", passed, ran, against, strings.Join(classes, ", "))
	if skipped > 0 {
		line += fmt.Sprintf("; %d skipped (they stage failures only the fake server can, or need the stdio test server go test serves)", skipped)
	}
	return line + fmt.Sprintf("; %s", r.Took.Round(100*time.Millisecond))
}

// JSON writes the report as one JSON document.
func (r Report) JSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		Report
		Rates   []ClassRate `json:"rates"`
		Passed  bool        `json:"passed"`
		Summary string      `json:"summary"`
	}{r, r.Rates(), r.Passed(), r.Summary()})
}
