package assembly

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"quire/config"

	"quire/doctor"
	"quire/test/ollamatest"
)

// TestAPageLoadChecksNoFile: the window's and `quire serve`'s start
// checks the whole file once, in the background; a page that loads, or
// its "Check again", is then shown the report without checking the file
// again (issue 30: a check linear in the file's size ran in front of
// every page).
func TestAPageLoadChecksNoFile(t *testing.T) {
	dir := t.TempDir()
	withOneSession(t, dir)
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	p := openOwner(t, dir, fake.URL())
	defer p.Close()
	h := p.Health(t.Context())
	<-p.fileCheck.done
	started := p.store.Checks()
	if started == 0 {
		t.Fatal("the start checked no file in the background")
	}
	for range 3 {
		if c := databaseCheck(t, h.Check(t.Context())); !c.OK {
			t.Fatalf("database line %+v", c)
		}
		if c := databaseCheck(t, p.ServeBackend(t.Context(), "").Doctor(t.Context())); !c.OK {
			t.Fatalf("database line %+v", c)
		}
	}
	if n := p.store.Checks() - started; n != 0 {
		t.Fatalf("page loads checked the whole file %d times", n)
	}
}

// TestDamageAtRestIsShownByTheStartsCheck: a file closed cleanly and then
// damaged (a failing disk) opens without a check in front of the window;
// the background check finds the damage and every page is sent a report
// that says so.
func TestDamageAtRestIsShownByTheStartsCheck(t *testing.T) {
	dir := t.TempDir()
	damagedAtRest(t, dir)
	p := openOwner(t, dir, "http://127.0.0.1:1")
	defer p.Close()
	if err := p.DatabaseError(); err != nil {
		t.Fatalf("the open checked the file in front (the test no longer reproduces the issue): %v", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	for r := range p.Health(ctx).Watch(ctx) {
		c := databaseCheck(t, r)
		if !c.OK {
			if !strings.Contains(c.Detail, "row not in PRIMARY KEY order") {
				t.Fatalf("database line %+v, want the full check's finding", c)
			}
			return
		}
		t.Logf("report before the check ended: %v", r.Lines())
	}
	t.Fatal("no report said the file is damaged")
}

// TestAStoppedCheckIsNoDamage: a whole-file check its context stopped (a
// tab closed, the app quitting) found nothing: no report says the file is
// damaged, and the store still takes writes (issue 31 item 1: "quire.db:
// the database file is damaged (context canceled)").
func TestAStoppedCheckIsNoDamage(t *testing.T) {
	dir := t.TempDir()
	withOneSession(t, dir)
	p := openOwner(t, dir, "http://127.0.0.1:1")
	defer p.Close()
	stopped, cancel := context.WithCancel(t.Context())
	cancel()
	for _, r := range []doctor.Report{p.Doctor(stopped), p.pageReport(t.Context())} {
		if c := databaseCheck(t, r); !c.OK {
			t.Fatalf("after a stopped check the database line says %+v", c)
		}
	}
	if err := p.checkFile(stopped); err != nil {
		t.Fatalf("a stopped check: %v", err)
	}
	if _, _, err := p.store.CreateSession(t.Context(), "after", "after", time.Date(2026, 12, 6, 9, 0, 0, 0, time.UTC), nil, nil); err != nil {
		t.Fatalf("the store refuses writes after a stopped check: %v", err)
	}
}

// TestAStartChecksTheFileOnceAWeek: the start's background check is made
// when the file never passed one, not again at the next start (at 1.36 GB
// it is 29 s of CPU, issue 30), and again once the last is a week old.
func TestAStartChecksTheFileOnceAWeek(t *testing.T) {
	dir := t.TempDir()
	withOneSession(t, dir)
	for _, c := range []struct {
		name  string
		later time.Duration
		want  int64
	}{
		{"never checked", 0, 1},
		{"checked just now", 0, 0},
		{"checked six days ago", 6 * 24 * time.Hour, 0},
		{"checked eight days ago", 8 * 24 * time.Hour, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := config.Config{DataDir: dir, OllamaHost: "http://127.0.0.1:1", Model: "qwen3:4b", NumCtx: 4096}
			now := func() time.Time { return time.Now().Add(c.later) }
			p, err := OpenWith(t.Context(), config.NewStore(cfg), slog.New(slog.DiscardHandler), Owner, Extras{Now: now})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			p.Health(ctx)
			<-p.fileCheck.done
			if got := p.store.Checks(); got != c.want {
				t.Fatalf("the start checked the file %d times, want %d", got, c.want)
			}
		})
	}
}
