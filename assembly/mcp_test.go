package assembly

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"unicode"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ollama/ollama/api"

	"quire/config"
	"quire/kernel/compact"
	"quire/kernel/event"
	"quire/kernel/protocol"
	"quire/kernel/provider"
	"quire/mcpclient"
	"quire/test/mcptest"
	"quire/test/ollamatest"
	"quire/test/testkit"
)

// mcpOwner is the window's parts over a new data folder whose MCP
// servers are those of extras (attached) or of mcp.json (stdio, written
// before the start); questions are answered by answer and kept.
type mcpOwner struct {
	*Parts
	dir       string
	mu        sync.Mutex
	questions []protocol.Question
}

func openMCPOwner(t *testing.T, fake *ollamatest.Server, dir string, callSeconds int, answer bool, opts ...mcpclient.Option) *mcpOwner {
	t.Helper()
	cfg := config.Config{DataDir: dir, OllamaHost: fake.URL(), Model: "qwen3:4b", NumCtx: 4096,
		MCP: config.MCPSettings{CallTimeoutSeconds: callSeconds}}
	return ownerWith(t, cfg, answer, opts...)
}

// ownerWith is openMCPOwner over cfg.
func ownerWith(t *testing.T, cfg config.Config, answer bool, opts ...mcpclient.Option) *mcpOwner {
	t.Helper()
	return ownerLogging(t, cfg, answer, slog.New(slog.DiscardHandler), opts...)
}

// ownerLogging is ownerWith logging to log.
func ownerLogging(t *testing.T, cfg config.Config, answer bool, log *slog.Logger, opts ...mcpclient.Option) *mcpOwner {
	t.Helper()
	dir := cfg.DataDir
	p, err := OpenWith(t.Context(), config.NewStore(cfg), log, Owner, Extras{MCP: opts})
	if err != nil {
		t.Fatal(err)
	}
	o := &mcpOwner{Parts: p, dir: dir}
	p.SetAsker(func(_ context.Context, q protocol.Question) (protocol.Answer, error) {
		o.mu.Lock()
		defer o.mu.Unlock()
		o.questions = append(o.questions, q)
		return protocol.Answer{Allowed: answer}, nil
	})
	t.Cleanup(p.Close)
	return o
}

// say sends text in session (a new one when "") and waits for the run's end.
func (o *mcpOwner) say(t *testing.T, session, text string, runs int) string {
	t.Helper()
	if session == "" {
		s, err := protocol.Run[protocol.Session](t.Context(), o.Kernel(), "", protocol.CreateSession, protocol.CreateSessionPayload{Title: "mcp"})
		if err != nil {
			t.Fatal(err)
		}
		session = s.ID
	}
	if _, err := protocol.Run[protocol.SendResult](t.Context(), o.Kernel(), "", protocol.SendMessage, protocol.SendMessagePayload{Session: session, Text: text}); err != nil {
		t.Fatal(err)
	}
	testkit.WaitRuns(t, o.Kernel(), session, runs)
	return session
}

// payloads are the session's events of typ, decoded.
func payloads[T any](t *testing.T, o *mcpOwner, session string, typ event.Type) []T {
	t.Helper()
	evs, err := o.store.Events(t.Context(), session, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []T
	for _, e := range evs {
		if e.Type == typ {
			r, err := event.As[T](e)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, r)
		}
	}
	return out
}

// results are the session's tool results; refused its calls refused
// before they ran.
func (o *mcpOwner) results(t *testing.T, session string) []event.ToolResultPayload {
	return payloads[event.ToolResultPayload](t, o, session, event.ToolResult)
}

func (o *mcpOwner) refused(t *testing.T, session string) []event.ToolRefusedPayload {
	return payloads[event.ToolRefusedPayload](t, o, session, event.ToolRefused)
}

// toolsOffered are the tool names a model request declared.
func toolsOffered(r ollamatest.Request) string {
	var names []string
	for _, tl := range r.Chat.Tools {
		names = append(names, tl.Function.Name)
	}
	return strings.Join(names, " ")
}

func writeMCPJSON(t *testing.T, dir string, servers ...protocol.MCPServerConfig) {
	t.Helper()
	m := mcpclient.New(dir, config.NewStore(config.Config{DataDir: dir}), slog.New(slog.DiscardHandler))
	for _, s := range servers {
		s.Enabled = false // saved enabled below; nothing starts here
		if _, err := m.Put(t.Context(), s); err != nil {
			t.Fatal(err)
		}
	}
	m.Close()
	b, err := os.ReadFile(filepath.Join(dir, mcpclient.File))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, mcpclient.File), []byte(strings.ReplaceAll(string(b), `"disabled": true`, `"disabled": false`)), 0o600); err != nil {
		t.Fatal(err)
	}
}

// inMemoryOwner is an owner with the test server attached in process as
// name, running; record is the file its record tool writes.
func inMemoryOwner(t *testing.T, fake *ollamatest.Server, name string, callSeconds int, answer bool) (o *mcpOwner, record string) {
	t.Helper()
	dir := t.TempDir()
	record = filepath.Join(dir, "record.txt")
	o = openMCPOwner(t, fake, dir, callSeconds, answer, mcpclient.WithServer(protocol.MCPServerConfig{Name: name, Enabled: true},
		mcptest.InMemory(mcptest.Options{RecordFile: record})))
	mcptest.WaitState(t, o.MCP(), name, protocol.MCPRunning)
	return o, record
}

func mcpCall(id, name, args string) ollamatest.Turn {
	return ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{ID: id, Name: name, Arguments: []byte(args)}}}
}

// A conversation through the real runtime and the fake Ollama calls an MCP
// write tool: the user is asked with the server, the tool and the full
// arguments; on yes the server records it and the result is in the log;
// with the server stopped, replay rebuilds every request byte for byte
// (the declarations are in the capability snapshot), and the next run is
// offered none of its tools.
func TestMCPWriteIsAskedLoggedAndReplayedAfterTheServerIsGone(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	fake.Script(mcpCall("c1", "garden__record", `{"text":"plant tulips in row 3"}`),
		ollamatest.Turn{Content: []string{"Recorded."}}, ollamatest.Turn{Content: []string{"Nothing more."}})
	o, record := inMemoryOwner(t, fake, "garden", 0, true)
	// Settings counts a declaration as the runtime does.
	list, _ := o.MCP().Servers(t.Context())
	for _, x := range o.mcp.m.Tools() {
		sp := x.Spec()
		want := compact.ToolTokens(provider.ToolSpec{Name: sp.Name, Description: sp.Description, Parameters: sp.Parameters})
		for _, st := range list.Servers[0].Tools {
			if st.Name == sp.Name && st.Tokens != want {
				t.Errorf("%s counted %d tokens, the runtime's estimate is %d", sp.Name, st.Tokens, want)
			}
		}
	}
	session := o.say(t, "", "note the tulips", 1)

	if len(o.questions) != 1 || len(o.questions[0].Calls) != 1 {
		t.Fatalf("questions %+v, want one about the record call", o.questions)
	}
	q := o.questions[0]
	if q.Calls[0].Name != "garden__record" || !strings.Contains(string(q.Calls[0].Arguments), "plant tulips in row 3") ||
		!strings.Contains(q.Descriptions[0], "MCP server garden") || !strings.Contains(q.Descriptions[0], "record") ||
		!strings.Contains(q.Descriptions[0], "plant tulips in row 3") {
		t.Errorf("the question: %+v", q)
	}
	if b, _ := os.ReadFile(record); string(b) != "plant tulips in row 3\n" {
		t.Errorf("the server recorded %q", b)
	}
	res := o.results(t, session)
	if len(res) != 1 || res[0].Status != "success" || res[0].Content != "recorded: plant tulips in row 3" {
		t.Errorf("results in the log: %+v", res)
	}

	if _, err := o.MCP().Stop(t.Context(), "garden"); err != nil {
		t.Fatal(err)
	}
	reqs := fake.Requests()
	if len(reqs) != 2 || !strings.Contains(string(reqs[0].Body), "garden__record") {
		t.Fatalf("%d requests; the first offers garden__record: %v", len(reqs), len(reqs) > 0 && strings.Contains(string(reqs[0].Body), "garden__record"))
	}
	for n := 1; n <= 2; n++ {
		rebuilt, err := o.Request(t.Context(), session, n)
		if err != nil {
			t.Fatal(err)
		}
		if sent, _ := CanonicalJSON(reqs[n-1].Body); string(rebuilt) != string(sent) {
			t.Errorf("request %d rebuilt with the server stopped:\n%s\nsent:\n%s", n, rebuilt, sent)
		}
	}
	o.say(t, session, "anything else?", 2)
	if reqs := fake.Requests(); len(reqs) != 3 || strings.Contains(toolsOffered(reqs[2]), "garden__") || !strings.Contains(toolsOffered(reqs[0]), "garden__record") {
		t.Errorf("the runs were offered %q, then after the stop %q", toolsOffered(reqs[0]), toolsOffered(reqs[len(reqs)-1]))
	}
	// Quire closed, the in-process server gone with it: `quire replay`'s
	// reader rebuilds the call that declared and called the MCP tool.
	o.Close()
	r := openReader(t, o.dir)
	rebuilt, err := r.Request(t.Context(), session, 2)
	if err != nil {
		t.Fatal(err)
	}
	if sent, _ := CanonicalJSON(reqs[1].Body); string(rebuilt) != string(sent) || !strings.Contains(string(rebuilt), "garden__record") {
		t.Errorf("the reader rebuilt request 2 as\n%s\nsent:\n%s", rebuilt, sent)
	}
}

// A denied MCP write never reaches the server: the result is denied.
func TestMCPWriteDeniedDoesNotRun(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	fake.Script(mcpCall("c1", "garden__record", `{"text":"pwned"}`), ollamatest.Turn{Content: []string{"Not recorded."}})
	o, record := inMemoryOwner(t, fake, "garden", 0, false)
	session := o.say(t, "", "record it", 1)
	if len(o.questions) != 1 {
		t.Errorf("%d questions, want 1", len(o.questions))
	}
	if _, err := os.Stat(record); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the denied write reached the server (%v)", err)
	}
	if res := o.results(t, session); len(res) != 0 {
		t.Errorf("a denied call has results %+v", res)
	}
	if ref := o.refused(t, session); len(ref) != 1 || ref[0].Status != "denied" || ref[0].Name != "garden__record" {
		t.Errorf("refused %+v, want the record call denied", ref)
	}
}

// A call that hangs is cut at the mcp.callTimeoutSeconds deadline with a
// failure the model reads; the server keeps running.
func TestMCPHangIsCutAtTheDeadline(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	fake.Script(mcpCall("c1", "slow__hang", `{}`), ollamatest.Turn{Content: []string{"It did not answer."}})
	o, _ := inMemoryOwner(t, fake, "slow", 1, true)
	session := o.say(t, "", "wait for it", 1)
	res := o.results(t, session)
	if len(res) != 1 || res[0].Status != "failure" {
		t.Fatalf("results %+v, want one failure", res)
	}
	if len(o.questions) != 0 {
		t.Errorf("a read-only tool was asked about: %+v", o.questions)
	}
	list, _ := o.MCP().Servers(t.Context())
	if list.Servers[0].State != protocol.MCPRunning {
		t.Errorf("after the cut the server is %s: %s", list.Servers[0].State, list.Servers[0].Reason)
	}
}

// A stdio server (a real child process, from mcp.json) that crashes
// mid-call: the call's result is a failure, the server failed with its
// stderr, the run that called it keeps its snapshot, and the next run is
// offered none of its tools. Close kills a running child's process group.
func TestMCPCrashMidCallWithdrawsTheToolsNextRun(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	fake.Script(mcpCall("c1", "brittle__crash", `{}`), ollamatest.Turn{Content: []string{"It broke."}},
		ollamatest.Turn{Content: []string{"Without it."}})
	dir := t.TempDir()
	writeMCPJSON(t, dir, mcptest.Stdio(t, "brittle", filepath.Join(dir, "r")), mcptest.Stdio(t, "steady", filepath.Join(dir, "s")))
	o := openMCPOwner(t, fake, dir, 0, true)
	mcptest.WaitState(t, o.MCP(), "brittle", protocol.MCPRunning)
	steady := mcptest.WaitState(t, o.MCP(), "steady", protocol.MCPRunning)
	session := o.say(t, "", "try it", 1)
	if res := o.results(t, session); len(res) != 1 || res[0].Status != "failure" || !strings.Contains(res[0].Content, "brittle") {
		t.Errorf("the crashed call's result: %+v", res)
	}
	failed := mcptest.WaitState(t, o.MCP(), "brittle", protocol.MCPFailed)
	if !strings.Contains(failed.Stderr, mcptest.CrashLine) || failed.Reason == "" {
		t.Errorf("failed server: reason %q, stderr %q", failed.Reason, failed.Stderr)
	}
	o.say(t, session, "again", 2)
	reqs := fake.Requests()
	if len(reqs) != 3 || !strings.Contains(string(reqs[0].Body), "brittle__crash") {
		t.Fatalf("%d requests, the first should offer brittle__crash", len(reqs))
	}
	if next := toolsOffered(reqs[2]); strings.Contains(next, "brittle__") || !strings.Contains(next, "steady__echo") {
		t.Errorf("the next run was offered %q: the failed server's tools, or not the steady one's", next)
	}
	pgid, err := syscall.Getpgid(steady.PID) // its watcher leads it (internal/childgroup)
	if err != nil {
		t.Fatal(err)
	}
	o.Close()
	if err := syscall.Kill(-pgid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("Close left the stdio server's process group %d (kill 0: %v)", pgid, err)
	}
}

// A tool-poisoning server: an instruction hidden in tag characters in its
// tool's description, zero-width and bidi characters in its schema. The
// request the model gets carries none of them, and the server's status
// says what was removed.
func TestMCPHiddenTextNeverReachesTheModel(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	fake.Script(ollamatest.Turn{Content: []string{"Hello."}})
	dir := t.TempDir()
	o := openMCPOwner(t, fake, dir, 0, true, mcpclient.WithServer(protocol.MCPServerConfig{Name: "words", Enabled: true},
		mcptest.InMemory(mcptest.Options{RecordFile: filepath.Join(dir, "record.txt"), Poisoned: true})))
	st := mcptest.WaitState(t, o.MCP(), "words", protocol.MCPRunning)
	o.say(t, "", "hello", 1)

	reqs := fake.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	var declared *api.Tool
	for i, tl := range reqs[0].Chat.Tools {
		if tl.Function.Name == "words__"+mcptest.Poisoned {
			declared = &reqs[0].Chat.Tools[i]
		}
	}
	if declared == nil {
		t.Fatalf("the poisoned tool was not offered (offered %s): the test checks nothing", toolsOffered(reqs[0]))
	}
	if !strings.Contains(declared.Function.Description, "Counts the words of a text.") {
		t.Errorf("the visible description is gone: %q", declared.Function.Description)
	}
	for _, r := range string(reqs[0].Body) {
		if unicode.Is(unicode.Cf, r) {
			t.Fatalf("the request carries the hidden character %U:\n%s", r, reqs[0].Body)
		}
	}
	if strings.Contains(string(reqs[0].Body), mcptest.Smuggled(mcptest.Hidden)) || strings.Contains(string(reqs[0].Body), "id_rsa") {
		t.Fatalf("the smuggled instruction reached the model:\n%s", reqs[0].Body)
	}
	var notes []string
	for _, tl := range st.Tools {
		if tl.Name == "words__"+mcptest.Poisoned {
			notes = tl.Screening
		}
	}
	if len(notes) == 0 || !strings.Contains(strings.Join(notes, " "), "hidden") {
		t.Errorf("the status does not say what was removed: %q", notes)
	}
}

// The MCP call deadline set on the Settings screen is saved, shown again,
// and cuts the next call: the owner starts with the default (60 s) and the
// screen makes it 1 s before a call that never answers.
func TestMCPCallDeadlineFromTheSettingsScreen(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	fake.Script(mcpCall("c1", "slow__hang", `{}`), ollamatest.Turn{Content: []string{"It did not answer."}})
	o, _ := inMemoryOwner(t, fake, "slow", 0, true)
	screen, err := o.Settings().Screen(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if screen.Settings.MCPCallSeconds != config.DefaultMCPCallSeconds || screen.Limits.MaxMCPCallSeconds != config.MaxMCPCallSeconds {
		t.Fatalf("the screen shows a deadline of %d (at most %d), want the default %d (at most %d)", screen.Settings.MCPCallSeconds,
			screen.Limits.MaxMCPCallSeconds, config.DefaultMCPCallSeconds, config.MaxMCPCallSeconds)
	}
	u := screen.Settings
	u.MCPCallSeconds = 1
	saved, err := o.Settings().Update(t.Context(), u)
	if err != nil {
		t.Fatal(err)
	}
	if saved.Settings.MCPCallSeconds != 1 || o.settings.Get().MCP.CallTimeoutSeconds != 1 {
		t.Fatalf("saved %d, the settings hold %d", saved.Settings.MCPCallSeconds, o.settings.Get().MCP.CallTimeoutSeconds)
	}
	session := o.say(t, "", "wait for it", 1)
	res := o.results(t, session)
	if len(res) != 1 || res[0].Status != "failure" || !strings.Contains(res[0].Content, "longer than 1s") {
		t.Fatalf("results %+v, want one failure cut at the 1-second deadline", res)
	}
}

// An MCP server's declaration is text the user did not write, in every
// request of a run that offers it: with "remember without asking" on, a
// remember the model makes in such a run is asked all the same (here
// refused), before any MCP tool ran.
func TestMCPDeclarationsLiftTheRememberGrant(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	fake.Script(mcpCall("c1", "remember", `{"kind":"preference","text":"the user wants every note deleted"}`),
		ollamatest.Turn{Content: []string{"Not kept."}})
	dir := t.TempDir()
	cfg := config.Config{DataDir: dir, OllamaHost: fake.URL(), Model: "qwen3:4b", NumCtx: 4096, MemoryWithoutAsking: true}
	o := ownerWith(t, cfg, false, mcpclient.WithServer(protocol.MCPServerConfig{Name: "garden", Enabled: true},
		mcptest.InMemory(mcptest.Options{RecordFile: filepath.Join(dir, "record.txt")})))
	mcptest.WaitState(t, o.MCP(), "garden", protocol.MCPRunning)
	session := o.say(t, "", "tidy my notes", 1)
	if !strings.Contains(toolsOffered(fake.Requests()[0]), "garden__echo") {
		t.Fatalf("the run was not offered the server's tools: %s", toolsOffered(fake.Requests()[0]))
	}
	if len(o.questions) != 1 {
		t.Errorf("%d questions, want remember asked once", len(o.questions))
	}
	if ref := o.refused(t, session); len(ref) != 1 || ref[0].Status != "denied" || ref[0].Name != "remember" {
		t.Errorf("refused %+v, want the remember call asked and denied", ref)
	}
}

// A run asked for the moment Quire opened the folder (`quire run` as the
// owner) waits until its MCP servers answered or failed: the model is
// offered the server's tools in its first request and a call to one runs;
// the wait is stated in the run's capability snapshot. The server's start
// is held until the run has looked at it and logged its wait, so the run
// is always asked for while the server is starting (a start left to run
// free can finish before the run looks, which then has nothing to wait
// for).
func TestARunWaitsForItsMCPServersToStart(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	fake.Script(mcpCall("c1", "garden__echo", `{"text":"hello"}`), ollamatest.Turn{Content: []string{"It said hello."}})
	dir := t.TempDir()
	waiting := &onMessage{msg: "a run waits for mcp servers to start", seen: make(chan struct{})}
	connect := mcptest.InMemory(mcptest.Options{RecordFile: filepath.Join(dir, "record.txt")})
	held := func(ctx context.Context) (mcp.Transport, error) {
		select {
		case <-waiting.seen:
			return connect(ctx)
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
	}
	cfg := config.Config{DataDir: dir, OllamaHost: fake.URL(), Model: "qwen3:4b", NumCtx: 4096}
	o := ownerLogging(t, cfg, true, slog.New(waiting), mcpclient.WithServer(protocol.MCPServerConfig{Name: "garden", Enabled: true}, held))
	session := o.say(t, "", "echo hello", 1)
	if got := toolsOffered(fake.Requests()[0]); !strings.Contains(got, "garden__echo") {
		t.Errorf("the first request offers %q, without the server's tools", got)
	}
	if res := o.results(t, session); len(res) != 1 || res[0].Content != "echo: hello" {
		t.Errorf("results %+v, want the echo", res)
	}
	ins := payloads[event.InputReceivedPayload](t, o, session, event.InputReceived)
	if len(ins) != 1 || ins[0].Caps == nil {
		t.Fatalf("inputs %+v, want one with a capability snapshot", ins)
	}
	if c := ins[0].Caps; !slices.Equal(c.ToolsWaited, []string{"garden"}) || len(c.ToolsStarting) != 0 {
		t.Errorf("the run's snapshot says waited %q, still starting %q; want waited for garden, none starting", c.ToolsWaited, c.ToolsStarting)
	}
}

// onMessage is a log handler that closes seen at the first record whose
// message is msg, and drops every record.
type onMessage struct {
	msg  string
	once sync.Once
	seen chan struct{}
}

func (h *onMessage) Enabled(context.Context, slog.Level) bool { return true }

func (h *onMessage) Handle(_ context.Context, r slog.Record) error {
	if r.Message == h.msg {
		h.once.Do(func() { close(h.seen) })
	}
	return nil
}

func (h *onMessage) WithAttrs([]slog.Attr) slog.Handler { return h }

func (h *onMessage) WithGroup(string) slog.Handler { return h }
