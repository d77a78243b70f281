package main

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"quire/kernel/store"
)

// BenchmarkServeStart is `quire serve`'s start, end to end, with nothing
// changed since a clean end (issue 30: ≤ 1 s and ≤ 1.5× the same start on
// an empty data folder at 200k passages). Each iteration runs this test
// binary as `quire serve -addr 127.0.0.1:0` (TestMain), measures from the
// process's start to its "Quire is serving on" line, reads the CPU it has
// used by then (/proc/PID/stat), and ends it with an interrupt, so it
// closes cleanly as a user's Ctrl-C does. vs-empty is the ratio of the
// medians (p50-ms): on a shared machine the mean follows the load. "empty" is the floor: a data
// folder whose database a first start made; "passages=N" a folder whose
// document index holds the SciFact abstracts (-scifact) written -serve.copies
// times over (each copy's sentences rotated), about 7,600 passages a copy:
//
//	go test -run '^$' -bench ServeStart -benchtime 10x -timeout 60m \
//	  -scifact ../shared/data/scifact -serve.copies 27 -serve.cache /tmp/serve200k .
//
// The folder is built once by `quire index` and kept in -serve.cache.
func BenchmarkServeStart(b *testing.B) {
	if *benchSciFact == "" {
		b.Skip("no -scifact data folder given")
	}
	base := *serveCache
	if base == "" {
		base = b.TempDir()
	}
	empty := filepath.Join(b.TempDir(), "empty")
	full := serveData(b, base, *serveCopies)
	notes := b.TempDir()
	var floor time.Duration
	for _, arm := range []struct{ name, data string }{
		{"empty", empty},
		{fmt.Sprintf("passages=%s", passagesOf(b, full)), full},
	} {
		b.Run(arm.name, func(b *testing.B) {
			serveOnce(b, arm.data, notes) // the empty folder's database is made as a first start makes it
			checkedOnce(b, arm.data)
			var cpu time.Duration
			ds := make([]time.Duration, 0, b.N)
			for b.Loop() {
				w, c := serveOnce(b, arm.data, notes)
				ds, cpu = append(ds, w), cpu+c
			}
			reportQuantiles(b, ds) // sorts ds
			per := ds[len(ds)/2]
			b.ReportMetric(float64(cpu)/1e6/float64(b.N), "cpu-ms/op")
			if floor == 0 {
				floor = per
			} else {
				b.ReportMetric(float64(per)/float64(floor), "vs-empty")
			}
		})
	}
}

var (
	serveCopies = flag.Int("serve.copies", 27, "BenchmarkServeStart: copies of the SciFact abstracts in the document index (27: about 200k passages)")
	serveCache  = flag.String("serve.cache", "", "BenchmarkServeStart: folder to keep the built data folder in between runs; empty = a temporary one")
)

// checkedOnce records a passed whole-file check in data's database, as a
// user's folder has one from the last week: without it each start would
// check the whole file in the background (assembly/filecheck.go).
func checkedOnce(b *testing.B, data string) {
	b.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(data, "quire.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	if at, err := st.LastFullCheck(ctx); err == nil && time.Since(at) < 24*time.Hour {
		return
	}
	if err := st.Check(ctx, true); err != nil {
		b.Fatal(err)
	}
}

// serveOnce starts `quire serve` on data and returns the time and CPU it
// took to listen; it then interrupts it and waits for its clean end.
func serveOnce(b *testing.B, data, notes string) (wall, cpu time.Duration) {
	b.Helper()
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(self, "serve", "-addr", "127.0.0.1:0", "-data-dir", data, "-notes-dir", notes, "-ollama-host", "http://127.0.0.1:1")
	cmd.Env = append(os.Environ(), "QUIRE_BENCH_AS_MAIN=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	r := bufio.NewReader(out)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			cmd.Wait()
			b.Fatalf("quire serve never listened: %v\n%s", err, stderr.String())
		}
		if strings.HasPrefix(line, "Quire is serving on") {
			break
		}
	}
	wall = time.Since(start)
	cpu = childCPU(b, cmd.Process.Pid)
	cmd.Process.Signal(os.Interrupt)
	go func() { _, _ = r.WriteTo(devNull{}) }()
	if err := cmd.Wait(); err != nil {
		b.Fatalf("quire serve: %v\n%s", err, stderr.String())
	}
	return wall, cpu
}

type devNull struct{}

func (devNull) Write(p []byte) (int, error) { return len(p), nil }

// childCPU is the user and system time process pid has used so far.
func childCPU(b *testing.B, pid int) time.Duration {
	b.Helper()
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	// The fields after the command's name (which may hold spaces) in parentheses.
	f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+2:]))
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	const hz = 100 // USER_HZ on Linux
	return time.Duration(utime+stime) * time.Second / hz
}

// serveData is a data folder under base whose document index holds copies
// of the SciFact abstracts, built by `quire index` once and kept.
func serveData(b *testing.B, base string, copies int) string {
	b.Helper()
	data := filepath.Join(base, "data")
	if _, err := os.Stat(filepath.Join(data, "quire.db")); err == nil {
		return data
	}
	corpus := filepath.Join(base, "corpus")
	old := time.Now().Add(-time.Hour) // older than the racy window: the pass's fingerprint is kept
	type doc struct{ ID, Title, Text string }
	var docs []doc
	eachJSONLine(b, filepath.Join(*benchSciFact, "docs.jsonl"), func(line []byte) {
		var d doc
		if err := json.Unmarshal(line, &d); err != nil {
			b.Fatal(err)
		}
		docs = append(docs, d)
	})
	for c := range copies {
		dir := filepath.Join(corpus, fmt.Sprintf("copy%02d", c))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for _, d := range docs {
			s := strings.SplitAfter(d.Text, ". ")
			r := c % max(1, len(s))
			text := "# " + d.Title + "\n\n" + strings.Join(append(append([]string{}, s[r:]...), s[:r]...), "") + "\n"
			p := filepath.Join(dir, d.ID+".md")
			if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
				b.Fatal(err)
			}
			if err := os.Chtimes(p, old, old); err != nil {
				b.Fatal(err)
			}
		}
	}
	var out, errOut bytes.Buffer
	if code := run([]string{"index", "-data-dir", data, "-ollama-host", "http://127.0.0.1:1", corpus}, &out, &errOut); code != 0 {
		b.Fatalf("index: exit %d\n%s%s", code, out.String(), errOut.String())
	}
	return data
}

// passagesOf names the size of data's document index ("205k").
func passagesOf(b *testing.B, data string) string {
	b.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(data, "quire.db")+"?mode=ro")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM rag_chunks`).Scan(&n); err != nil {
		b.Fatal(err)
	}
	return fmt.Sprintf("%dk", (n+500)/1000)
}
