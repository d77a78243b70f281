package assembly

import (
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"quire/config"
	"quire/kernel/event"
	"quire/kernel/protocol"
	"quire/kernel/provider/ollama"
	"quire/kernel/tool"
	"quire/test/ollamatest"
	"quire/test/testkit"
)

// say starts a conversation with one message and waits for its run.
func say(t *testing.T, p *Parts, text string) string {
	t.Helper()
	sess, err := protocol.Run[protocol.Session](t.Context(), p.Kernel(), "", protocol.CreateSession, protocol.CreateSessionPayload{Title: "s"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := protocol.Run[protocol.SendResult](t.Context(), p.Kernel(), "", protocol.SendMessage, protocol.SendMessagePayload{Session: sess.ID, Text: text}); err != nil {
		t.Fatal(err)
	}
	testkit.WaitRuns(t, p.Kernel(), sess.ID, 1)
	return sess.ID
}

// screenSettings is the settings of the screen as it now is, edited.
func screenSettings(t *testing.T, p *Parts, edit func(*protocol.UserSettings)) protocol.UserSettings {
	t.Helper()
	sc, err := p.Settings().Screen(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	u := sc.Settings
	edit(&u)
	return u
}

// TestSettingsScreenChangesReachTheNextRun: a change saved on the screen —
// temperature, thinking off, the text about the user, the permission
// profile, the context length — is in the next run's request (and in
// settings.json), while the request of the run before it is still rebuilt
// from the log exactly as it was sent.
func TestSettingsScreenChangesReachTheNextRun(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	dir := t.TempDir()
	p := openOwner(t, dir, fake.URL())
	defer p.Close()
	first := say(t, p, "hello")

	temp, off := 0.3, false
	sc, err := p.Settings().Update(t.Context(), screenSettings(t, p, func(u *protocol.UserSettings) {
		u.Temperature, u.Think, u.AboutYou, u.Profile, u.NumCtx, u.Theme = &temp, &off, "Call me Ada.", "write", 6144, "dark"
	}))
	if err != nil {
		t.Fatal(err)
	}
	if s := sc.Settings; s.Temperature == nil || *s.Temperature != temp || s.AboutYou != "Call me Ada." || s.Theme != "dark" ||
		!sc.Model.Known || !sc.Model.CanThink || sc.Limits.MaxNumCtx != 40960 || !slices.Contains(sc.Models, "qwen3:4b") {
		t.Fatalf("the screen after the change: %+v", sc)
	}
	saved, _ := config.ReadSettings(dir)
	if saved.Temperature == nil || *saved.Temperature != temp || saved.Profile != "write" || saved.NumCtx != 6144 {
		t.Fatalf("saved %+v", saved)
	}
	second := say(t, p, "again")

	reqs := fake.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	var body struct {
		Options  map[string]json.Number `json:"options"`
		Think    *bool                  `json:"think"`
		Messages []struct{ Role, Content string }
	}
	if err := json.Unmarshal(reqs[1].Body, &body); err != nil {
		t.Fatal(err)
	}
	if body.Options["temperature"] != "0.3" || body.Options["num_ctx"] != "6144" || body.Think == nil || *body.Think ||
		!strings.Contains(body.Messages[0].Content, "Call me Ada.") {
		t.Errorf("the next run sent %s", reqs[1].Body)
	}
	if strings.Contains(string(reqs[0].Body), "temperature") || strings.Contains(string(reqs[0].Body), "Ada") {
		t.Errorf("the first run sent the later settings: %s", reqs[0].Body)
	}
	if caps := capsOf(t, p, second); caps.Profile != string(tool.Write) || caps.AboutYou != "Call me Ada." {
		t.Errorf("the next run froze %+v, want the write profile and the text about the user", caps)
	}
	rebuilt, err := p.Request(t.Context(), first, 1)
	if err != nil {
		t.Fatal(err)
	}
	if sent, _ := CanonicalJSON(reqs[0].Body); string(rebuilt) != string(sent) {
		t.Errorf("the first run's request, rebuilt after the change:\n%s\nsent:\n%s", rebuilt, sent)
	}
}

// capsOf is the capability snapshot of the session's first run.
func capsOf(t *testing.T, p *Parts, session string) event.Capabilities {
	t.Helper()
	evs, err := p.store.Events(t.Context(), session, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evs {
		if e.Type == event.InputReceived {
			in, err := event.As[event.InputReceivedPayload](e)
			if err != nil || in.Caps == nil {
				t.Fatalf("input.received %+v: %v", in, err)
			}
			return *in.Caps
		}
	}
	t.Fatal("no input.received")
	return event.Capabilities{}
}

func mustParse(t *testing.T, s string) string {
	t.Helper()
	u, err := ollama.ParseHost(s)
	if err != nil {
		t.Fatal(err)
	}
	return u.String()
}

// TestSavingANewAddressMovesTheNextRun: the next run's request goes to the
// address saved on the screen, and each run's snapshot freezes the address
// it started on (its later steps go there, whatever is saved meanwhile).
func TestSavingANewAddressMovesTheNextRun(t *testing.T) {
	old, moved := ollamatest.New(t), ollamatest.New(t)
	old.AddModel(ollamatest.DefaultModel())
	moved.AddModel(ollamatest.DefaultModel())
	p := openOwner(t, t.TempDir(), old.URL())
	defer p.Close()
	before := say(t, p, "where were you")
	if _, err := p.Settings().Update(t.Context(), screenSettings(t, p, func(u *protocol.UserSettings) { u.OllamaHost = moved.URL() })); err != nil {
		t.Fatal(err)
	}
	after := say(t, p, "where are you")
	if len(old.Requests()) != 1 || len(moved.Requests()) != 1 {
		t.Errorf("requests: %d at the old address, %d at the new one; want 1 and 1", len(old.Requests()), len(moved.Requests()))
	}
	for sess, want := range map[string]string{before: mustParse(t, old.URL()), after: mustParse(t, moved.URL())} {
		var in event.InputReceivedPayload
		testkit.Until(t, p.Kernel(), sess, "a run's snapshot", func(evs []protocol.Event) bool {
			e := evs[len(evs)-1]
			return e.Type == string(event.InputReceived) && json.Unmarshal(e.Payload, &in) == nil && in.Caps != nil
		})
		if in.Caps.Host != want {
			t.Errorf("a run froze the address %q, want %q", in.Caps.Host, want)
		}
	}
}

// TestSettingsScreenRefusesWhatCannotWork: each refusal names its field
// with a sentence, and nothing is saved.
func TestSettingsScreenRefusesWhatCannotWork(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.Model{Name: "small:1b", Capabilities: []string{"completion", "tools"}, ContextLength: 4096})
	dir := t.TempDir()
	p := openOwner(t, dir, fake.URL())
	defer p.Close()
	for _, c := range []struct {
		name   string
		edit   func(*protocol.UserSettings)
		field  string
		phrase string
	}{
		{"longer than the model was trained for", func(u *protocol.UserSettings) { u.Model, u.NumCtx = "small:1b", 8192 },
			"numCtx", "small:1b was trained for 4,096 tokens"},
		{"an address Quire cannot read", func(u *protocol.UserSettings) { u.OllamaHost = "ftp://x" }, "ollamaHost", "type it like http://127.0.0.1:11434"},
		{"too hot", func(u *protocol.UserSettings) { t2 := 2.5; u.Temperature = &t2 }, "temperature", "The temperature must be between 0 and 2"},
		{"an unknown profile", func(u *protocol.UserSettings) { u.Profile = "everything" }, "profile", "minimal, ask, write"},
		{"too long about you", func(u *protocol.UserSettings) { u.AboutYou = strings.Repeat("x", 2001) }, "aboutYou", "at most 2000"},
		{"a chat model Ollama would not take", func(u *protocol.UserSettings) { u.Model = "../../x" }, "model", `Ollama does not take "../../x" as a model name`},
		{"a digest for a chat model", func(u *protocol.UserSettings) { u.Model = "x@sha256:00" }, "model", "as a model name"},
		{"an embedding model Ollama would not take", func(u *protocol.UserSettings) { u.EmbedModel = "a/b/c/d/e" }, "embedModel", "as a model name"},
		{"an MCP call deadline past its bound", func(u *protocol.UserSettings) { u.MCPCallSeconds = 601 }, "mcpCallSeconds", "between 1 and 600 seconds"},
		{"a negative MCP call deadline", func(u *protocol.UserSettings) { u.MCPCallSeconds = -1 }, "mcpCallSeconds", "between 1 and 600 seconds"},
	} {
		_, err := p.Settings().Update(t.Context(), screenSettings(t, p, c.edit))
		var se *protocol.SettingError
		if !errors.As(err, &se) || se.Field != c.field || !strings.Contains(se.Message, c.phrase) || !strings.HasSuffix(se.Message, ".") {
			t.Errorf("%s: %v, want a %s error saying %q", c.name, err, c.field, c.phrase)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, config.SettingsFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused change was saved (%v)", err)
	}
}

// TestThinkingGoesOnlyToAModelThatCanThink: Ollama refuses "think" from a
// model without the capability, so the choice is not sent to one.
func TestThinkingGoesOnlyToAModelThatCanThink(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	fake.AddModel(ollamatest.Model{Name: "plain:1b", Capabilities: []string{"completion", "tools"}})
	p := openOwner(t, t.TempDir(), fake.URL())
	defer p.Close()
	on := true
	for _, model := range []string{"qwen3:4b", "plain:1b"} {
		if _, err := p.Settings().Update(t.Context(), screenSettings(t, p, func(u *protocol.UserSettings) { u.Model, u.Think = model, &on })); err != nil {
			t.Fatal(err)
		}
		say(t, p, "think?")
	}
	reqs := fake.Requests()
	if len(reqs) != 2 || !strings.Contains(string(reqs[0].Body), `"think":true`) || strings.Contains(string(reqs[1].Body), `"think"`) {
		t.Fatalf("requests:\n%q", requestBodies(reqs))
	}
}

// TestCheckingAnAddressSavesNothing: the check says what answers where,
// in a sentence, and the address in use stays.
func TestCheckingAnAddressSavesNothing(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	dir := t.TempDir()
	p := openOwner(t, dir, fake.URL())
	defer p.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	ln.Close()
	for _, c := range []struct {
		address string
		ok      bool
		phrase  string
	}{
		{fake.URL(), true, "answers here (1 model installed)"},
		{closed, false, "Nothing answers at " + closed + ": is Ollama running?"},
		{"ftp://x", false, "Quire cannot read this as an address"},
		{"", false, "Quire cannot read this as an address"},
	} {
		got := p.Settings().CheckOllama(t.Context(), c.address)
		if got.OK != c.ok || !strings.Contains(got.Message, c.phrase) || (c.ok && (got.Version == "" || !slices.Contains(got.Models, "qwen3:4b"))) {
			t.Errorf("check %q: %+v, want ok %v saying %q", c.address, got, c.ok, c.phrase)
		}
	}
	if p.settings.Get().OllamaHost != fake.URL() || p.ollama.Host() != mustParse(t, fake.URL()) {
		t.Errorf("a check changed the address in use: %s", p.ollama.Host())
	}
	if saved, _ := config.ReadSettings(dir); saved.OllamaHost != "" {
		t.Errorf("a check saved %q", saved.OllamaHost)
	}
}

// TestProfilesAreTheKernelsProfiles: the screen offers exactly the
// profiles kernel/tool decides by, so no choice is one the policy denies
// everything under.
func TestProfilesAreTheKernelsProfiles(t *testing.T) {
	want := []string{string(tool.Minimal), string(tool.AskMe), string(tool.Write)}
	if !slices.Equal(config.Profiles, want) || config.DefaultProfile != string(tool.AskMe) {
		t.Errorf("config's profiles %v (default %s), kernel/tool's %v", config.Profiles, config.DefaultProfile, want)
	}
}

// requestBodies are the bodies the fake received, for a failure message.
func requestBodies(reqs []ollamatest.Request) []string {
	out := make([]string, len(reqs))
	for i, r := range reqs {
		out[i] = string(r.Body)
	}
	return out
}

// TestAboutSaysWhereQuireKeepsThings: the help drawer's About is the data
// folder, the protocol and the Ollama address in use, asking no one.
func TestAboutSaysWhereQuireKeepsThings(t *testing.T) {
	fake := ollamatest.New(t)
	dir := t.TempDir()
	p := openOwner(t, dir, fake.URL())
	defer p.Close()
	a, err := p.Settings().About(t.Context())
	if err != nil || a.DataDir != dir || a.Protocol != protocol.Version || a.Ollama != fake.URL() || a.Go == "" {
		t.Fatalf("About: %+v, %v", a, err)
	}
	if n := len(fake.Requests()); n != 0 {
		t.Errorf("About asked Ollama %d times", n)
	}
}
