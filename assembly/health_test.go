package assembly

import (
	"context"
	"testing"

	"quire/doctor"
	"quire/test/ollamatest"
)

// TestADownloadedModelEndsTheFirstRun: with no model installed the window
// is offered a download; once the pull of one ends, the watcher checks at
// once, without being asked, and every watcher is sent the healthy report.
func TestADownloadedModelEndsTheFirstRun(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddPullable(ollamatest.DefaultModel())
	p := openOwner(t, t.TempDir(), fake.URL())
	defer p.Close()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	reports := p.Health(ctx).Watch(ctx)
	next := func() doctor.Report {
		t.Helper()
		select {
		case r := <-reports:
			return r
		case <-ctx.Done():
		case <-t.Context().Done():
		}
		t.Fatal("no report")
		return doctor.Report{}
	}
	first := next()
	if action := actionOf(first, "Chat model"); action != doctor.ActionDownload {
		t.Fatalf("with nothing installed the window is offered %q: %+v", action, first.Checks)
	}
	if err := p.Models().Pull(ctx, ollamatest.DefaultModel().Name); err != nil {
		t.Fatal(err)
	}
	for r := first; ; r = next() {
		if actionOf(r, "Chat model") == "" && actionOf(r, "Tool use") == "" && passed(r, "Tool use") {
			return
		}
		t.Logf("report while the pull runs: %v", r.Lines())
	}
}

func actionOf(r doctor.Report, name string) string {
	for _, c := range r.Checks {
		if c.Name == name && !c.OK {
			return c.Action
		}
	}
	return ""
}

func passed(r doctor.Report, name string) bool {
	for _, c := range r.Checks {
		if c.Name == name {
			return c.OK
		}
	}
	return false
}
