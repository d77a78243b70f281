//go:build desktoptest

package desktop

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"quire/kernel/event"
	"quire/kernel/store"
	"quire/test/ollamatest"
)

// slowStory streams a long reply, a word every 150 ms, to any message that
// asks for a story; anything else gets the fake's echo.
func slowStory(lastUser string) (ollamatest.Turn, bool) {
	if !strings.Contains(lastUser, "story") {
		return ollamatest.Turn{}, false
	}
	words := make([]string, 400)
	for i := range words {
		words[i] = fmt.Sprintf("word%d ", i)
	}
	return ollamatest.Turn{Content: words, Delay: 150 * time.Millisecond}, true
}

// runEnds reads, from the data folder's log (read-only, after the app has
// quit), the reason of every run.finished of every session.
func runEnds(t *testing.T, dataDir string) []string {
	t.Helper()
	st, err := store.OpenReadOnly(context.Background(), filepath.Join(dataDir, "quire.db"))
	if err != nil {
		t.Fatalf("open the log: %v", err)
	}
	defer st.Close()
	sessions, err := st.Sessions(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var reasons []string
	for _, s := range sessions {
		evs, err := st.EventsOfType(context.Background(), s.ID, event.RunFinished)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range evs {
			p, err := event.As[event.RunFinishedPayload](e)
			if err != nil {
				t.Fatal(err)
			}
			reasons = append(reasons, p.Reason)
		}
	}
	return reasons
}

// TestDesktopEscStopsTheReply: in the real window, Esc while a reply is
// streaming stops it — the run ends cancelled in the log, the reply keeps
// what had arrived, and Esc with nothing going does nothing; a message's
// copy button puts its text where Ctrl+V finds it.
func TestDesktopEscStopsTheReply(t *testing.T) {
	display := startXvfb(t)
	fake := ollamatest.New(t, ollamatest.WithReplies(slowStory))
	fake.AddModel(ollamatest.DefaultModel())
	dataDir := t.TempDir()
	probe := filepath.Join(t.TempDir(), "view.json")
	a := startApp(t, display, dataDir, probe, fake.URL())
	failedShot(t, display, probe, "desktop-esc-FAILED.png")
	waitView(t, a, probe, "the frontend to load", func(v view) bool { return v.Messages != nil })

	w := findWindow(t, display, a, probe)
	w.typeText("tell me a long story")
	w.keys("Return")
	waitView(t, a, probe, "the story streaming", func(v view) bool { return v.Streaming && v.has("assistant", "word3 ") })
	w.keys("Escape")
	stopped := waitView(t, a, probe, "the reply stopped", func(v view) bool { return !v.Streaming && v.has("assistant", "word3") })
	screenshot(t, display, "desktop-esc-stopped.png")
	last := stopped.Messages[len(stopped.Messages)-1]
	if strings.Contains(last.Text, "word399") {
		t.Fatalf("the whole story arrived: Esc did not stop it (%q)", last.Text)
	}

	// Esc with nothing going is nothing: a message after it is answered.
	w.keys("Escape")
	w.typeText("hello again")
	w.keys("Return")
	waitView(t, a, probe, "the next reply", func(v view) bool { return v.has("assistant", "You said: hello again") && !v.Streaming })

	// The copy button works in the window (WebKitGTK, through Wails'
	// clipboard): the first message copied, pasted into the composer with
	// Ctrl+V and sent asks for the story again, and Esc stops it again.
	w.click("copy-message")
	w.click("composer")
	w.keys("ctrl+v", "Return")
	again := waitView(t, a, probe, "the pasted message streaming its story", func(v view) bool {
		n := 0
		for _, m := range v.Messages {
			if m.Role == "user" && m.Text == "tell me a long story" {
				n++
			}
		}
		return n == 2 && v.Streaming && strings.Contains(v.Messages[len(v.Messages)-1].Text, "word3 ")
	})
	w.keys("Escape")
	waitView(t, a, probe, "the second story stopped", func(v view) bool { return !v.Streaming && len(v.Messages) == len(again.Messages) })
	a.stop(t)

	got := runEnds(t, dataDir)
	if want := []string{"cancelled", "completed", "cancelled"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("the runs ended %v, want %v", got, want)
	}
}

// The benchmarks below measure the real window's cost (issue 17 item 6);
// they assert nothing about time. docs/BENCHMARKS-NOTEBOOK.md has their figures:
//
//	QUIRE_APP_BIN=$PWD/build/bin/quire go test -tags desktoptest -run '^$' -bench Desktop -benchtime 1x ./test/desktop/

// userHz is the unit of /proc's CPU times: USER_HZ, 100 on every Linux
// architecture Quire ships for (the kernel converts to it for user space).
const userHz = 100

// family is the app's process and every process under it (WebKit's web and
// network processes, through bwrap or not), by pid.
func family(root int) []int {
	children := map[int][]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if f := statFields(pid); len(f) > 1 {
			ppid, _ := strconv.Atoi(f[1])
			children[ppid] = append(children[ppid], pid)
		}
	}
	out := []int{root}
	for i := 0; i < len(out); i++ {
		out = append(out, children[out[i]]...)
	}
	return out
}

// statFields is /proc/PID/stat after the command name: field 4 (ppid) is
// [1], utime [11], stime [12]. Nil when the process is gone.
func statFields(pid int) []string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(s[i+1:])
}

func comm(pid int) string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	return strings.TrimSpace(string(b))
}

// cpuTicks is the user+system time a process has used, in USER_HZ ticks.
func cpuTicks(pid int) int64 {
	f := statFields(pid)
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return u + s
}

// pssKB is the proportional set size of a process (smaps_rollup), in kB.
func pssKB(pid int) int64 { return rollupKB(pid, "Pss:") }

// anonKB is the anonymous memory a process holds itself (smaps_rollup's
// Anonymous: heaps, JIT code), in kB: unlike PSS, another process mapping
// the same library does not move it.
func anonKB(pid int) int64 { return rollupKB(pid, "Anonymous:") }

// rollupKB reads one field of /proc/PID/smaps_rollup, in kB (0 when gone).
func rollupKB(pid int, field string) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return n
		}
	}
	return 0
}

// split sums f over the app itself and over the processes under it.
func split(root int, f func(int) int64) (app, webkit int64) {
	for _, pid := range family(root) {
		if pid == root {
			app += f(pid)
		} else {
			webkit += f(pid)
		}
	}
	return app, webkit
}

// benchWindow starts the real window on a fresh data folder with the fake
// model (a short delay per chunk), and returns it ready for a message.
func benchWindow(b *testing.B) (w *window, pid int) {
	display := startXvfb(b)
	fake := ollamatest.New(b, ollamatest.WithDelay(5*time.Millisecond), ollamatest.WithReplies(hangOnPlease))
	fake.AddModel(ollamatest.DefaultModel())
	probe := filepath.Join(b.TempDir(), "view.json")
	a := startApp(b, display, b.TempDir(), probe, fake.URL())
	waitView(b, a, probe, "the frontend to load", func(v view) bool { return v.Messages != nil })
	return findWindow(b, display, a, probe), a.cmd.Process.Pid
}

// hangOnPlease holds the reply to a message asking it to hang, as a model
// that is slow to start does; anything else gets the echo.
func hangOnPlease(lastUser string) (ollamatest.Turn, bool) {
	if !strings.Contains(lastUser, "hang") {
		return ollamatest.Turn{}, false
	}
	return ollamatest.Turn{Fail: ollamatest.Failure{Kind: ollamatest.FailHang}}, true
}

// turn sends one message and waits for its reply to be on screen.
func (w *window) turn(text string) {
	w.t.Helper()
	w.typeText(text)
	w.keys("Return")
	waitView(w.t, w.a, w.probe, "the reply to "+text, func(v view) bool { return v.has("assistant", "You said: "+text) && !v.Streaming })
}

// idleShare is the share of a core (in %) the app and its WebKit processes
// use over the next 20 s.
func idleShare(b *testing.B, pid int) (app, webkit float64) {
	appBefore, webBefore := split(pid, cpuTicks)
	const window = 20 * time.Second
	<-time.After(window) // the measured stretch, not a wait for anything
	appAfter, webAfter := split(pid, cpuTicks)
	pct := func(ticks int64) float64 { return float64(ticks) / userHz / window.Seconds() * 100 }
	var names []string
	for _, p := range family(pid) {
		names = append(names, comm(p))
	}
	b.Logf("processes measured: %s", strings.Join(names, ", "))
	return pct(appAfter - appBefore), pct(webAfter - webBefore)
}

// cpuBench starts a window, brings it to the state `start` leaves it in,
// and reports the share of a core quire and its WebKit processes use over
// the next 20 s.
func cpuBench(b *testing.B, start func(w *window)) {
	for range b.N {
		w, pid := benchWindow(b)
		start(w)
		app, webkit := idleShare(b, pid)
		b.ReportMetric(app, "%core-quire")
		b.ReportMetric(webkit, "%core-webkit")
	}
}

// BenchmarkDesktopIdleCPU: one message and its reply, then 20 s with
// nothing happening.
func BenchmarkDesktopIdleCPU(b *testing.B) {
	cpuBench(b, func(w *window) { w.turn("hello idle") })
}

// BenchmarkDesktopIdleAfterTurns: in one window, the idle share after
// reply 1 and after reply 50 (issue 30: it doubled), each over two 20 s
// stretches — the first right after the reply, the second after it — so a
// cost that only follows a reply (collections of its garbage) is told from
// one that stays. QUIRE_BENCH_PERF names a folder for `perf record` of the
// first stretch (turnN.data), to read where an idle cost goes.
func BenchmarkDesktopIdleAfterTurns(b *testing.B) {
	for range b.N {
		w, pid := benchWindow(b)
		done := 0
		for _, n := range []int{1, 50} {
			for ; done < n; done++ {
				w.turn(fmt.Sprintf("turn %d", done+1))
			}
			stop := perfRecord(b, pid, n)
			app, web := idleShare(b, pid)
			stop()
			b.ReportMetric(app, fmt.Sprintf("%%core-quire-turn%d-0s", n))
			b.ReportMetric(web, fmt.Sprintf("%%core-webkit-turn%d-0s", n))
			app, web = idleShare(b, pid)
			b.ReportMetric(app, fmt.Sprintf("%%core-quire-turn%d-20s", n))
			b.ReportMetric(web, fmt.Sprintf("%%core-webkit-turn%d-20s", n))
		}
	}
}

// perfRecord starts `perf record` of the window's processes when
// QUIRE_BENCH_PERF names a folder; the returned func ends it.
func perfRecord(b *testing.B, root, turn int) (stop func()) {
	dir := os.Getenv("QUIRE_BENCH_PERF")
	if dir == "" {
		return func() {}
	}
	var pids []string
	for _, p := range family(root) {
		pids = append(pids, strconv.Itoa(p))
	}
	cmd := exec.Command("perf", "record", "-g", "-F", "999", "-o", filepath.Join(dir, fmt.Sprintf("turn%d.data", turn)), "-p", strings.Join(pids, ","))
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	return func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	}
}

// BenchmarkDesktopWaitingCPU: a message whose model never answers (the
// fake holds the reply), so the window shows a request going with nothing
// arriving — the answering dot and the "writing" dots on screen — for 20 s.
func BenchmarkDesktopWaitingCPU(b *testing.B) {
	cpuBench(b, func(w *window) {
		w.typeText("please hang")
		w.keys("Return")
		waitView(b, w.a, w.probe, "the request going", func(v view) bool { return v.Streaming })
	})
}

// keepSmaps copies /proc/PID/smaps of the window's processes into the folder
// QUIRE_BENCH_SMAPS names, if any, as turnN-COMM-PID.smaps: which mapping
// grew is read from two of them (docs/BENCHMARKS-NOTEBOOK.md).
func keepSmaps(b *testing.B, root, turn int) {
	dir := os.Getenv("QUIRE_BENCH_SMAPS")
	if dir == "" {
		return
	}
	for _, p := range family(root) {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps", p))
		if err != nil {
			continue // the process ended meanwhile
		}
		name := filepath.Join(dir, fmt.Sprintf("turn%d-%s-%d.smaps", turn, comm(p), p))
		if err := os.WriteFile(name, data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDesktop200Turns: 200 messages and replies in one conversation;
// reports the window's processes' PSS after the first turn and after the
// last, each read twice: at once, and at rest — after 15 s with nothing
// happening, when the garbage of the turns (Go's heap above its live size,
// WebKit's JavaScript heap) has had its collections — and how much each grew.
func BenchmarkDesktop200Turns(b *testing.B) {
	for range b.N {
		w, pid := benchWindow(b)
		read := func(turn int) (now, rest int64) {
			keepSmaps(b, pid, turn)
			app, web := split(pid, pssKB)
			appAnon, webAnon := split(pid, anonKB)
			<-time.After(15 * time.Second) // the rest measured, not a wait for anything
			appRest, webRest := split(pid, pssKB)
			appAnonRest, webAnonRest := split(pid, anonKB)
			b.Logf("PSS after turn %d: quire %d kB, WebKit %d kB; at rest: quire %d kB, WebKit %d kB", turn, app, web, appRest, webRest)
			b.Logf("anonymous after turn %d: quire %d kB, WebKit %d kB; at rest: quire %d kB, WebKit %d kB", turn, appAnon, webAnon, appAnonRest, webAnonRest)
			return app + web, appRest + webRest
		}
		w.turn("turn 1")
		now1, rest1 := read(1)
		// What the turns cost, for a setting that trades memory for speed
		// (the JIT's): the wall time of turns 2–200 and the CPU the
		// processes spent on them.
		appCPU, webCPU := split(pid, cpuTicks)
		start := time.Now()
		for i := 2; i <= 200; i++ {
			w.turn(fmt.Sprintf("turn %d", i))
			if i%50 == 0 && i < 200 {
				app, web := split(pid, pssKB)
				appAnon, webAnon := split(pid, anonKB)
				b.Logf("PSS after turn %d: quire %d kB, WebKit %d kB; anonymous: quire %d kB, WebKit %d kB", i, app, web, appAnon, webAnon)
			}
		}
		took := time.Since(start)
		appCPUEnd, webCPUEnd := split(pid, cpuTicks)
		now200, rest200 := read(200)
		b.ReportMetric(float64(took.Milliseconds())/199, "ms/turn")
		b.ReportMetric(float64(webCPUEnd-webCPU)/userHz, "s-cpu-webkit")
		b.ReportMetric(float64(appCPUEnd-appCPU)/userHz, "s-cpu-quire")
		mb := func(kb int64) float64 { return float64(kb) / 1024 }
		growth := func(from, to int64) float64 { return float64(to-from) / float64(from) * 100 }
		b.ReportMetric(mb(now1), "MB-pss-turn1")
		b.ReportMetric(mb(now200), "MB-pss-turn200")
		b.ReportMetric(growth(now1, now200), "%growth")
		b.ReportMetric(mb(rest1), "MB-rest-turn1")
		b.ReportMetric(mb(rest200), "MB-rest-turn200")
		b.ReportMetric(growth(rest1, rest200), "%growth-rest")
	}
}
