package vulnpolicy

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
)

// The fixtures are real govulncheck v1.9.0 scans of this repository (the
// vulnerability database golang.org/x/vulndb at the Makefile's version),
// trimmed to one finding per advisory and level: on go1.26.8 before and
// after moving golang.org/x/crypto past GO-2026-5018, which Ollama's
// client reaches through Provider.Pull, and on go1.27.3 (the Makefile's
// GOTOOLCHAIN). go1.26.8's standard library has 12 called vulnerabilities
// that Go 1.26.9 and 1.26.10 fix: they fail the build as a module's do.
func TestVerdict(t *testing.T) {
	tests := []struct {
		file       string
		wantFail   []string
		wantStdlib bool
		wantFailed bool
		wantInOut  []string
	}{
		{"crypto-v0.43.0.json", []string{"GO-2026-5018"}, true, true, []string{"FAIL", "golang.org/x/crypto@v0.43.0 (fixed in v0.52.0)", "move GOTOOLCHAIN (Makefile, .ci/run, README) to go1.26.10"}},
		{"crypto-v0.59.0.json", nil, true, true, []string{"FAIL — the standard library of go1.26.8", "GO-2026-6609", "go1.26.10 or a newer release", "GO-2025-4251"}},
		{"go1.27.3.json", nil, false, false, []string{"pass", "GO-2025-4251"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			f, err := os.Open("testdata/" + tt.file)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			v, err := Read(f)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, x := range v.Fail {
				ids = append(ids, x.ID)
			}
			if strings.Join(ids, ",") != strings.Join(tt.wantFail, ",") {
				t.Errorf("failing = %v, want %v", ids, tt.wantFail)
			}
			if (len(v.Stdlib) > 0) != tt.wantStdlib {
				t.Errorf("standard-library findings = %d, want some: %v", len(v.Stdlib), tt.wantStdlib)
			}
			if v.Failed() != tt.wantFailed {
				t.Errorf("Failed() = %v, want %v", v.Failed(), tt.wantFailed)
			}
			for _, x := range v.Unfixed {
				if x.Fixed != "" || !x.Called {
					t.Errorf("%s listed as unfixed but fixed=%q called=%v", x.ID, x.Fixed, x.Called)
				}
			}
			if len(v.Uncalled) == 0 {
				t.Error("no uncalled findings: the scan lists required modules' advisories too")
			}
			var out bytes.Buffer
			v.Report(&out)
			for _, want := range tt.wantInOut {
				if !strings.Contains(out.String(), want) {
					t.Errorf("report lacks %q:\n%s", want, out.String())
				}
			}
		})
	}
}

func TestReadRefusesWhatIsNotAScan(t *testing.T) {
	for _, in := range []string{"", "Scanning your code and 312 packages across 64 dependent modules for known vulnerabilities...\n", `{"progress":{"message":"x"}}`} {
		if _, err := Read(strings.NewReader(in)); !errors.Is(err, ErrNoScan) {
			t.Errorf("Read(%q) = %v, want ErrNoScan", in, err)
		}
	}
}
