//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io/fs"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"testing"

	"quire/assembly"
	"quire/config"
	"quire/host/cli"
)

// inspected is what the inspector case hands back (fixtures.InspectPath):
// the session, the call and what "Copy request as JSON" put on the
// clipboard.
type inspected struct {
	Session string `json:"session"`
	N       int    `json:"n"`
	Copied  string `json:"copied"`
}

// checkInspectorCopy: what the inspector case copied is, byte for byte,
// what `quire replay SESSION -request N` prints — run as main runs it,
// host/cli's replay over the composition root reading the serve's data
// folder while the serve still owns it.
func checkInspectorCopy(t *testing.T, fx *fixtureSet, passed []string) {
	t.Helper()
	b, err := os.ReadFile(fx.InspectPath)
	if errors.Is(err, fs.ErrNotExist) {
		if slices.Contains(passed, "inspector") {
			t.Error("the inspector case passed but handed back no copy")
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	var got inspected
	if err := json.Unmarshal(b, &got); err != nil || got.Session == "" || got.N < 1 {
		t.Fatalf("the inspector case's copy: %q (%v)", b, err)
	}
	fset := flag.NewFlagSet("quire replay", flag.ContinueOnError)
	replay := cli.Lookup("replay", fset)
	if err := fset.Parse([]string{"-request", strconv.Itoa(got.N)}); err != nil {
		t.Fatal(err)
	}
	// The settings as main resolves them for `quire -data-dir D replay`.
	cfg, err := config.Load(flag.NewFlagSet("quire", flag.ContinueOnError), []string{"-data-dir", fx.dataDir}, func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.DiscardHandler)
	var out, errOut bytes.Buffer
	code := replay.Run(t.Context(), []string{got.Session}, cli.Env{Stdout: &out, Stderr: &errOut, Log: log,
		Read: func(ctx context.Context) (cli.Parts, error) {
			return assembly.Open(ctx, config.NewStore(cfg), log, assembly.Reader)
		}})
	if code != 0 {
		t.Fatalf("quire replay %s -request %d: exit %d, %s", got.Session, got.N, code, errOut.String())
	}
	if got.Copied != out.String() {
		t.Fatalf("the inspector copied:\n%q\nquire replay -request %d printed:\n%q", got.Copied, got.N, out.String())
	}
}
