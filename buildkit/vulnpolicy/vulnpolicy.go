// Package vulnpolicy is build equipment: it reads govulncheck's JSON stream
// (-format json) and decides what fails `make test`.
//
// govulncheck alone cannot be the gate: it exits non-zero for findings
// nobody here can act on — module-wide advisories with no fixed version
// (Ollama's server-side ones, which name the whole module). So the policy
// is:
//
//   - a called vulnerability in a required module that has a fixed version
//     fails: go.mod can and must move to it;
//   - a called vulnerability in the standard library that a Go release
//     fixes fails too: the Makefile's GOTOOLCHAIN (the release every step
//     builds with, whatever Go the machine has) can and must move to it;
//   - a called one with no fix, and every finding the code does not call,
//     is listed, so nothing is hidden.
//
// It imports only the standard library and is imported by nothing but its
// command.
package vulnpolicy

import (
	"encoding/json"
	"errors"
	"fmt"
	"go/version"
	"io"
	"slices"
	"strings"
)

// Finding is one vulnerability as the policy sees it: the advisory, the
// module it is in, the version that fixes it ("" when none), and whether
// the code calls a vulnerable symbol.
type Finding struct {
	ID      string
	Summary string
	Module  string
	Version string
	Fixed   string
	Called  bool
}

// Verdict sorts findings by what they mean for the build.
type Verdict struct {
	GoVersion string    // the Go that ran the scan
	Fail      []Finding // called, in a required module, with a fix
	Stdlib    []Finding // called, in the standard library, with a fix: fails too
	Unfixed   []Finding // called, no fixed version exists
	Uncalled  []Finding // in the build graph, not called
}

// ErrNoScan: the stream held no govulncheck config record, so it was not a
// scan's output (govulncheck failed before scanning, or wrote text).
var ErrNoScan = errors.New("the input is not govulncheck -format json output")

// message is one record of the stream; only the fields the policy reads.
type message struct {
	Config *struct {
		GoVersion string `json:"go_version"`
	} `json:"config"`
	OSV *struct {
		ID      string `json:"id"`
		Summary string `json:"summary"`
	} `json:"osv"`
	Finding *struct {
		OSV          string `json:"osv"`
		FixedVersion string `json:"fixed_version"`
		Trace        []struct {
			Module   string `json:"module"`
			Version  string `json:"version"`
			Function string `json:"function"`
		} `json:"trace"`
	} `json:"finding"`
}

// Read classifies the findings of one scan. govulncheck reports a finding
// once per trace and level (module, package, symbol); a vulnerability is
// called when any of its findings names a function.
func Read(r io.Reader) (Verdict, error) {
	var v Verdict
	seenConfig := false
	summaries := map[string]string{}
	byID := map[string]*Finding{}
	var order []string
	dec := json.NewDecoder(r)
	for {
		var m message
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return Verdict{}, fmt.Errorf("%w: %w", ErrNoScan, err)
		}
		switch {
		case m.Config != nil:
			seenConfig = true
			v.GoVersion = m.Config.GoVersion
		case m.OSV != nil:
			summaries[m.OSV.ID] = m.OSV.Summary
		case m.Finding != nil && len(m.Finding.Trace) > 0:
			top := m.Finding.Trace[0]
			// One advisory can name several modules (net/http's and
			// golang.org/x/net's HTTP/2): each is a finding of its own.
			key := m.Finding.OSV + " " + top.Module
			f, ok := byID[key]
			if !ok {
				f = &Finding{ID: m.Finding.OSV, Module: top.Module, Version: top.Version, Fixed: m.Finding.FixedVersion}
				byID[key] = f
				order = append(order, key)
			}
			if top.Function != "" {
				f.Called = true
			}
		}
	}
	if !seenConfig {
		return Verdict{}, ErrNoScan
	}
	slices.Sort(order)
	for _, key := range order {
		f := *byID[key]
		f.Summary = summaries[f.ID]
		switch {
		case !f.Called:
			v.Uncalled = append(v.Uncalled, f)
		case f.Fixed == "":
			v.Unfixed = append(v.Unfixed, f)
		case f.Module == "stdlib":
			v.Stdlib = append(v.Stdlib, f)
		default:
			v.Fail = append(v.Fail, f)
		}
	}
	return v, nil
}

// Failed says whether the build must fail: a called vulnerability that a
// move of go.mod or of the Go release fixes.
func (v Verdict) Failed() bool { return len(v.Fail) > 0 || len(v.Stdlib) > 0 }

// Report writes the verdict for a person: what fails and how to fix it
// first, then the warnings and the rest.
func (v Verdict) Report(w io.Writer) {
	line := func(f Finding) string {
		s := fmt.Sprintf("  %s  %s@%s", f.ID, f.Module, f.Version)
		if f.Fixed != "" {
			s += " (fixed in " + f.Fixed + ")"
		}
		if f.Summary != "" {
			s += ": " + f.Summary
		}
		return s
	}
	section := func(title string, fs []Finding) {
		if len(fs) == 0 {
			return
		}
		fmt.Fprintln(w, title)
		for _, f := range fs {
			fmt.Fprintln(w, line(f))
		}
	}
	section("govulncheck: FAIL — called vulnerabilities with a fix; move go.mod to the fixed version (go get MODULE@VERSION):", v.Fail)
	if len(v.Stdlib) > 0 {
		newest := ""
		for _, f := range v.Stdlib {
			// The standard library's fixed versions are Go releases
			// ("v1.26.10"), which go/version orders.
			if f.Fixed != "" && (newest == "" || version.Compare(goRelease(newest), goRelease(f.Fixed)) < 0) {
				newest = f.Fixed
			}
		}
		section(fmt.Sprintf("govulncheck: FAIL — the standard library of %s has called vulnerabilities; move GOTOOLCHAIN (Makefile, .ci/run, README) to go%s or a newer release the Go module proxy serves:", v.GoVersion, strings.TrimPrefix(newest, "v")), v.Stdlib)
	}
	section("govulncheck: known, no fixed version exists (reviewed in docs/DECISIONS.md):", v.Unfixed)
	if len(v.Uncalled) > 0 {
		fmt.Fprintf(w, "govulncheck: %d more in the build graph that Quire's code does not call\n", len(v.Uncalled))
	}
	if !v.Failed() {
		fmt.Fprintln(w, "govulncheck: pass — no called vulnerability that go.mod or the Go release can fix")
	}
}

// goRelease spells a standard-library version ("v1.26.10") as go/version
// wants it ("go1.26.10").
func goRelease(v string) string { return "go" + strings.TrimPrefix(v, "v") }
