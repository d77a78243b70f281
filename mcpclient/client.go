package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"quire/config"
	"quire/kernel/protocol"
	"quire/kernel/tool"
)

// Choices is where the user's per-tool choices and the call deadline are
// kept: settings.json, through the one settings owner (config.Store).
type Choices interface {
	MCP() config.MCPSettings
	SetMCPTool(t config.MCPToolSetting) error
}

// Connect makes the transport of an attached server (WithServer).
type Connect func(ctx context.Context) (mcp.Transport, error)

// Option configures a Client.
type Option func(*Client)

// WithServer attaches a server for this process only, never saved in
// mcp.json: the eval set's and the tests' in-memory servers
// (test/mcptest). It starts with the others when cfg is enabled.
func WithServer(cfg protocol.MCPServerConfig, connect Connect) Option {
	return func(m *Client) { m.attached = append(m.attached, attachedServer{cfg, connect}) }
}

// WithClock sets the clock of the states' Since (default time.Now).
func WithClock(now func() time.Time) Option { return func(m *Client) { m.now = now } }

// WithTokens sets how a tool's declaration is counted in the model's
// context (the composition root gives compact.ToolTokens, the runtime's
// own estimate, so Settings shows what a run counts). Without it: a
// quarter of its JSON.
func WithTokens(count func(tool.Spec) int) Option { return func(m *Client) { m.tokens = count } }

// ReadOnly opens the servers to look at, for a process that only reads
// the data folder (`quire mcp list` with no Quire running): no server is
// started and every change (Put, Import, Remove, Start, SetTool) is
// refused with ErrReadOnly, so nothing is run and nothing is written.
func ReadOnly() Option { return func(m *Client) { m.readOnly = true } }

// WithInitTimeout sets the handshake's deadline (default
// protocol.MCPInitSeconds).
func WithInitTimeout(d time.Duration) Option { return func(m *Client) { m.initTimeout = d } }

type attachedServer struct {
	cfg     protocol.MCPServerConfig
	connect Connect
}

// Client is Quire's MCP client: it owns the servers of mcp.json — their
// config, connections, state and tools — and offers their tools as Quire
// tools (Tools). It is safe for concurrent use.
type Client struct {
	path        string
	choices     Choices
	log         *slog.Logger
	now         func() time.Time
	initTimeout time.Duration
	tokens      func(tool.Spec) int
	client      *mcp.Client
	attached    []attachedServer
	watch       watchers

	// setMu makes SetTool's save and its copy below one step at a time.
	setMu sync.Mutex

	mu sync.Mutex // guards what follows; never held across a network or process wait
	// settings is the choices' copy, taken at New and after each SetTool:
	// the settings owner's lock is never taken under mu (its OnChange
	// users run under its own lock and may call here).
	settings config.MCPSettings
	servers  map[string]*server
	// offers are every server's tools as offered, made again only after
	// what they are made of changed (a listing, a choice, the servers):
	// nil until then (changedLocked).
	offers  map[string][]*mcpTool
	problem string // why mcp.json could not be read: nothing is written over it
	// kept are mcp.json's entries not taken (refused, or past
	// MCPMaxServers), as written: each save writes them back, so a change
	// made in Quire loses none of the user's file.
	kept map[string]json.RawMessage
	// cautious is, per server and tool, the most a server has declared
	// the tool to do since Quire started (remember): a later declaration
	// can add to it, never take from it — only the user loosens a tool.
	cautious map[[2]string]caution
	readOnly bool // ReadOnly: nothing starts, nothing changes
	closed   bool
}

// server is one configured server and its current connection.
type server struct {
	cfg      protocol.MCPServerConfig
	connect  Connect // an attached server's; nil: from cfg
	state    string
	reason   string
	since    time.Time
	pid      int
	stderr   *tail
	proto    string
	impl     string
	listed   []listedTool // as the server listed them, at most MCPMaxToolsPerServer
	leftOff  int
	session  *mcp.ClientSession
	child    *stdioChild
	gen      int                // bumped by every start and stop: a connection of an older one is let go
	abort    context.CancelFunc // ends the start under way
	finished chan struct{}      // closed when the current connection's goroutine is done
	// relisting: a listing after tools/list_changed is under way on this
	// connection; relistAgain: another change came meanwhile. A flood of
	// notifications makes one listing at a time, not one each.
	relisting, relistAgain bool
}

// New reads dataDir's mcp.json and starts every enabled server in the
// background (Watch and Servers say how each start went). A file that
// cannot be read is the list's Problem; nothing is written over it until
// the user fixes it.
func New(dataDir string, choices Choices, log *slog.Logger, opts ...Option) *Client {
	m := &Client{path: filepath.Join(dataDir, File), choices: choices, log: log, now: time.Now,
		initTimeout: protocol.MCPInitSeconds * time.Second, servers: map[string]*server{}, tokens: quarterOfJSON,
		cautious: map[[2]string]caution{}}
	for _, o := range opts {
		o(m)
	}
	m.client = mcp.NewClient(&mcp.Implementation{Name: "quire", Version: protocol.Version},
		&mcp.ClientOptions{ToolListChangedHandler: m.toolsChanged})
	m.settings = choices.MCP()
	cfgs, issues, raw, err := readFile(m.path)
	if err != nil {
		m.problem = fmt.Sprintf("Quire could not read %s (%v). Fix or remove the file, then restart Quire; until then no MCP server runs.", m.path, err)
		log.Error("mcp config", "path", m.path, "err", err)
	}
	for _, is := range issues {
		log.Warn("mcp server refused", "server", is.Name, "reason", is.Reason)
	}
	if len(cfgs) > protocol.MCPMaxServers {
		log.Warn("mcp servers over the bound are left off", "servers", len(cfgs), "max", protocol.MCPMaxServers)
		cfgs = cfgs[:protocol.MCPMaxServers]
	}
	for _, c := range cfgs {
		delete(raw, c.Name)
	}
	m.kept = raw
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, c := range cfgs {
		m.servers[c.Name] = &server{cfg: c, state: protocol.MCPStopped, since: m.now(), stderr: newTail(protocol.MCPStderrBytes)}
	}
	for _, a := range m.attached {
		m.servers[a.cfg.Name] = &server{cfg: a.cfg, connect: a.connect, state: protocol.MCPStopped, since: m.now(), stderr: newTail(protocol.MCPStderrBytes)}
	}
	for _, s := range m.servers {
		switch {
		case m.readOnly:
			s.reason = "Not started: this look at the servers only reads. Its tools show while the Quire window or `quire serve` runs."
		case s.cfg.Enabled:
			m.startLocked(s)
		default:
			s.reason = "Turned off: start it to offer its tools."
		}
	}
	return m
}

// Close stops every server (a stdio child's whole process group is killed)
// and refuses what comes after.
func (m *Client) Close() {
	m.mu.Lock()
	m.closed = true
	var wg sync.WaitGroup
	for _, s := range m.servers {
		cs, child, done := m.stopLocked(s, "Quire closed.")
		wg.Add(1)
		go func() { defer wg.Done(); release(cs, child, done) }()
	}
	m.mu.Unlock()
	wg.Wait()
}

// Servers is every configured server, in name order.
func (m *Client) Servers(ctx context.Context) (protocol.MCPList, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	list := protocol.MCPList{Servers: []protocol.MCPServer{}, Problem: m.problem}
	offers := m.offersLocked()
	for _, name := range m.namesLocked() {
		st := m.statusLocked(m.servers[name], offers[name])
		list.Tokens += st.Tokens
		list.Servers = append(list.Servers, st)
	}
	return list, nil
}

// Put adds or replaces a server, saves mcp.json and (re)starts it when
// enabled.
func (m *Client) Put(ctx context.Context, cfg protocol.MCPServerConfig) (protocol.MCPServer, error) {
	if err := Check(cfg); err != nil {
		return protocol.MCPServer{}, err
	}
	res, changed, err := m.put([]protocol.MCPServerConfig{cfg})
	if err == nil {
		err = m.forgetLoosenings(changed)
	}
	if err != nil {
		return protocol.MCPServer{}, err
	}
	if len(res.Refused) > 0 {
		return protocol.MCPServer{}, protocol.Refusef(protocol.ErrBadPayload, ErrBadConfig, "%s", res.Refused[0].Reason)
	}
	return m.status(cfg.Name)
}

// Import adds (or replaces, by name) every server of a pasted mcp.json.
func (m *Client) Import(ctx context.Context, text string) (protocol.MCPImport, error) {
	cfgs, issues, err := Parse([]byte(text))
	if err != nil {
		return protocol.MCPImport{}, err
	}
	res, changed, err := m.put(cfgs)
	if err == nil {
		err = m.forgetLoosenings(changed)
	}
	if err != nil {
		return protocol.MCPImport{}, err
	}
	res.Refused = append(issues, res.Refused...)
	return res, nil
}

// put saves cfgs (each already checked) and starts the enabled ones; it
// says which servers it gave another program (forgetLoosenings).
func (m *Client) put(cfgs []protocol.MCPServerConfig) (protocol.MCPImport, []string, error) {
	res := protocol.MCPImport{Added: []string{}, Refused: []protocol.MCPImportIssue{}}
	var releases []func()
	defer func() {
		for _, r := range releases {
			r()
		}
	}()
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.writableLocked(); err != nil {
		return res, nil, err
	}
	saved := m.savedLocked()
	kept := maps.Clone(m.kept)
	var take []protocol.MCPServerConfig
	count := len(m.servers)
	for _, c := range cfgs {
		s, exists := m.servers[c.Name]
		var stored *protocol.MCPServerConfig
		if exists {
			stored = &s.cfg
		}
		c, err := unmasked(c, stored)
		switch {
		case err != nil:
			res.Refused = append(res.Refused, protocol.MCPImportIssue{Name: c.Name, Reason: err.Error()})
			continue
		case exists && s.connect != nil:
			res.Refused = append(res.Refused, protocol.MCPImportIssue{Name: c.Name, Reason: fmt.Sprintf("A server named %s is built in for this run; give this one another name.", c.Name)})
			continue
		case !exists && count >= protocol.MCPMaxServers:
			res.Refused = append(res.Refused, protocol.MCPImportIssue{Name: c.Name, Reason: fmt.Sprintf("Quire runs at most %d MCP servers; remove one first.", protocol.MCPMaxServers)})
			continue
		case !exists:
			count++
		}
		take = append(take, c)
		delete(kept, c.Name)
		saved = slices.DeleteFunc(saved, func(o protocol.MCPServerConfig) bool { return o.Name == c.Name })
		saved = append(saved, c)
	}
	if len(take) == 0 {
		return res, nil, nil
	}
	if err := writeFile(m.path, saved, kept); err != nil {
		return res, nil, fmt.Errorf("the MCP servers were not changed: %w", err)
	}
	m.kept = kept
	var changed []string
	for _, c := range take {
		s := m.servers[c.Name]
		if s != nil && !sameProgram(s.cfg, c) {
			changed = append(changed, c.Name)
		}
		if s != nil {
			cs, child, done := m.stopLocked(s, "Replaced by a new config.")
			releases = append(releases, func() { release(cs, child, done) })
		} else {
			s = &server{stderr: newTail(protocol.MCPStderrBytes)}
			m.servers[c.Name] = s
			m.changedLocked()
		}
		s.cfg = c
		if c.Enabled {
			m.startLocked(s)
		} else {
			m.setLocked(s, protocol.MCPStopped, "Turned off: start it to offer its tools.")
		}
		res.Added = append(res.Added, c.Name)
	}
	return res, changed, nil
}

// sameProgram reports whether b runs what a ran: the same command and
// arguments, or the same address.
func sameProgram(a, b protocol.MCPServerConfig) bool {
	return a.Command == b.Command && slices.Equal(a.Args, b.Args) && a.URL == b.URL
}

// forgetLoosenings drops the effects the user chose for the tools of
// servers that ask less than write+net: a "don't ask" was given to the
// program that server ran, and another one under its name (a pasted
// config's, or one added after a removal) must be asked about again. A
// tightening and a tool turned off are kept.
func (m *Client) forgetLoosenings(servers []string) error {
	if len(servers) == 0 {
		return nil
	}
	m.setMu.Lock()
	defer m.setMu.Unlock()
	for _, c := range m.choices.MCP().Tools {
		if c.Effects == "" || !slices.Contains(servers, c.Server) {
			continue
		}
		const asked = tool.WriteFs | tool.Net
		if e, err := parseEffects(c.Effects); err == nil && e&asked == asked {
			continue
		}
		if err := m.choices.SetMCPTool(config.MCPToolSetting{Server: c.Server, Tool: c.Tool, Disabled: c.Disabled}); err != nil {
			return fmt.Errorf("the server %s was changed, but the choice not to ask before %s could not be taken back (choose again in Settings): %w", c.Server, c.Tool, err)
		}
	}
	settings := m.choices.MCP()
	m.mu.Lock()
	m.settings = settings
	m.changedLocked()
	m.mu.Unlock()
	return nil
}

// SetCallDeadline makes seconds (0: the default) the deadline of every
// MCP call offered from now on; a run already going keeps the tools it was
// given. Settings saves it and calls this after the save.
func (m *Client) SetCallDeadline(seconds int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.settings.CallTimeoutSeconds != seconds {
		m.settings.CallTimeoutSeconds = seconds
		m.changedLocked()
	}
}

// Remove stops a server and forgets its config.
func (m *Client) Remove(ctx context.Context, name string) error {
	m.mu.Lock()
	if err := m.writableLocked(); err != nil {
		m.mu.Unlock()
		return err
	}
	s, err := m.serverLocked(name)
	if err == nil && s.connect != nil {
		err = protocol.Refusef(protocol.ErrConflict, ErrBadConfig, "The server %s is built in for this run and cannot be removed.", name)
	}
	if err != nil {
		m.mu.Unlock()
		return err
	}
	saved := slices.DeleteFunc(m.savedLocked(), func(o protocol.MCPServerConfig) bool { return o.Name == name })
	if err := writeFile(m.path, saved, m.kept); err != nil {
		m.mu.Unlock()
		return fmt.Errorf("the server %s was not removed: %w", name, err)
	}
	cs, child, done := m.stopLocked(s, "Removed.")
	delete(m.servers, name)
	m.changedLocked()
	m.mu.Unlock()
	release(cs, child, done)
	return m.forgetLoosenings([]string{name})
}

// Start starts a stopped or failed server (a running one is left as it is).
func (m *Client) Start(ctx context.Context, name string) (protocol.MCPServer, error) {
	m.mu.Lock()
	s, err := m.serverLocked(name)
	switch {
	case err != nil:
	case m.closed:
		err = ErrClosed
	case m.readOnly:
		err = m.writableLocked()
	}
	if err != nil {
		m.mu.Unlock()
		return protocol.MCPServer{}, err
	}
	if s.state != protocol.MCPRunning && s.state != protocol.MCPStarting {
		m.startLocked(s)
	}
	m.mu.Unlock()
	return m.status(name)
}

// Stop stops a server: a stdio child's whole process group is killed.
func (m *Client) Stop(ctx context.Context, name string) (protocol.MCPServer, error) {
	m.mu.Lock()
	s, err := m.serverLocked(name)
	if err != nil {
		m.mu.Unlock()
		return protocol.MCPServer{}, err
	}
	cs, child, done := m.stopLocked(s, "Stopped by you: start it again to offer its tools.")
	m.mu.Unlock()
	release(cs, child, done)
	return m.status(name)
}

// Restart stops a server, then starts it.
func (m *Client) Restart(ctx context.Context, name string) (protocol.MCPServer, error) {
	if _, err := m.Stop(ctx, name); err != nil {
		return protocol.MCPServer{}, err
	}
	return m.Start(ctx, name)
}

// SetTool saves the user's choice for one tool. The effects are checked
// (kernel/tool's spelling); the server need not be running, but it must
// be configured and, when it has listed its tools, have this one. A
// "read" (don't ask) is pinned to the tool's declaration as listed, so it
// needs a listing; offer drops it while the server declares another.
func (m *Client) SetTool(ctx context.Context, c protocol.MCPToolChoice) (protocol.MCPServer, error) {
	m.mu.Lock()
	err := m.writableLocked()
	m.mu.Unlock()
	if err != nil {
		return protocol.MCPServer{}, err
	}
	readOnly := false // the choice "read": the one that can drop a question
	if c.Effects != "" {
		e, err := parseEffects(c.Effects)
		if err != nil {
			return protocol.MCPServer{}, protocol.Refusef(protocol.ErrBadPayload, ErrBadConfig,
				"The effects %q are not a set Quire knows: write \"read\", or \"write+net\", or leave it empty for the server's own.", c.Effects)
		}
		if !allowedChoice(e) {
			return protocol.MCPServer{}, protocol.Refusef(protocol.ErrBadPayload, ErrBadConfig,
				"The effects %q would let the tool run with fewer questions in a way Quire cannot show: choose \"read\" (reads only, asked never), a set with write and net (asked first), or leave it empty for the server's own.", c.Effects)
		}
		readOnly = e == tool.ReadFs
	}
	m.mu.Lock()
	s, err := m.serverLocked(c.Server)
	pinned := ""
	if err == nil && s.listed != nil {
		i := slices.IndexFunc(s.listed, func(t listedTool) bool { return t.Name == c.Tool })
		if i < 0 {
			err = protocol.Refusef(protocol.ErrNotFound, ErrUnknownTool, "The server %s has no tool %q.", c.Server, c.Tool)
		} else {
			pinned = s.listed[i].declaration
		}
	}
	m.mu.Unlock()
	if err == nil && readOnly && pinned == "" {
		// Only a listed tool's declaration can be what the user trusts.
		err = protocol.Refusef(protocol.ErrConflict, ErrNotRunning,
			"Start the server %s first: a \"Don't ask\" holds for the tool as its server declares it, and Quire has not seen %q declared yet.", c.Server, c.Tool)
	}
	if err != nil {
		return protocol.MCPServer{}, err
	}
	m.setMu.Lock()
	err = m.choices.SetMCPTool(config.MCPToolSetting{Server: c.Server, Tool: c.Tool, Disabled: !c.Enabled, Effects: c.Effects, Pinned: pinned})
	if err == nil {
		settings := m.choices.MCP()
		m.mu.Lock()
		m.settings = settings
		m.changedLocked()
		m.mu.Unlock()
	}
	m.setMu.Unlock()
	if err != nil {
		return protocol.MCPServer{}, fmt.Errorf("the choice for %s was not saved: %w", c.Tool, err)
	}
	st, err := m.status(c.Server)
	if err == nil {
		m.watch.publish(st)
	}
	return st, err
}

// ServerRunning says whether the server named name is running now (its
// handshake done): what a skill that needs it is judged against
// (skills.Servers).
func (m *Client) ServerRunning(name string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.servers[name]
	return ok && s.state == protocol.MCPRunning
}

// Watch delivers every server's changes until ctx ends.
func (m *Client) Watch(ctx context.Context) <-chan protocol.MCPServer { return m.watch.watch(ctx) }

// status is one server's state now.
func (m *Client) status(name string) (protocol.MCPServer, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, err := m.serverLocked(name)
	if err != nil {
		return protocol.MCPServer{}, err
	}
	return m.statusLocked(s, m.offersLocked()[name]), nil
}

func (m *Client) serverLocked(name string) (*server, error) {
	s, ok := m.servers[name]
	if !ok {
		return nil, protocol.Refusef(protocol.ErrNotFound, ErrUnknownServer, "No MCP server is named %q; add it in Settings first.", name)
	}
	return s, nil
}

// writableLocked refuses a change while mcp.json could not be read, so the
// user's file is never written over with less than it held.
func (m *Client) writableLocked() error {
	if m.closed {
		return ErrClosed
	}
	if m.readOnly {
		return protocol.Refusef(protocol.ErrConflict, ErrReadOnly, "This look at the MCP servers only reads (no Quire runs on this data folder): change them in the Quire window, `quire serve` or `quire mcp add`/`remove`.")
	}
	if m.problem != "" {
		return protocol.Refusef(protocol.ErrConflict, ErrBadConfig, "%s", m.problem)
	}
	return nil
}

// savedLocked is what mcp.json holds: the servers not attached.
func (m *Client) savedLocked() []protocol.MCPServerConfig {
	var out []protocol.MCPServerConfig
	for _, name := range m.namesLocked() {
		if s := m.servers[name]; s.connect == nil {
			out = append(out, s.cfg)
		}
	}
	return out
}

// changedLocked drops the offers: what they are made of changed.
func (m *Client) changedLocked() { m.offers = nil }

func (m *Client) namesLocked() []string {
	names := make([]string, 0, len(m.servers))
	for n := range m.servers {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// setLocked moves s to state and tells the watchers.
func (m *Client) setLocked(s *server, state, reason string) {
	s.state, s.reason, s.since = state, reason, m.now()
	m.watch.publish(m.statusLocked(s, m.offersLocked()[s.cfg.Name]))
}

// startLocked starts a connection in the background.
func (m *Client) startLocked(s *server) {
	s.gen++
	gen := s.gen
	ctx, cancel := context.WithTimeoutCause(context.Background(), m.initTimeout, errHandshakeDeadline)
	s.abort = cancel
	s.stderr = newTail(protocol.MCPStderrBytes)
	s.pid, s.proto, s.impl, s.listed, s.leftOff = 0, "", "", nil, 0
	s.relisting, s.relistAgain = false, false
	m.changedLocked()
	done := make(chan struct{})
	s.finished = done
	m.setLocked(s, protocol.MCPStarting, "")
	go func() {
		defer close(done)
		defer cancel()
		m.run(ctx, s, gen)
	}()
}

var errHandshakeDeadline = errors.New("the handshake took too long")

// stopLocked ends s's connection or start; release finishes the job
// without the lock.
func (m *Client) stopLocked(s *server, reason string) (*mcp.ClientSession, *stdioChild, chan struct{}) {
	s.gen++
	if s.abort != nil {
		s.abort()
	}
	cs, child, done := s.session, s.child, s.finished
	s.session, s.child, s.pid = nil, nil, 0
	if s.state != protocol.MCPStopped || s.reason != reason {
		m.setLocked(s, protocol.MCPStopped, reason)
	}
	return cs, child, done
}

// release closes a connection (a stdio child gets its stdin closed, then
// its whole process group is killed) and waits for its goroutine.
func release(cs *mcp.ClientSession, child *stdioChild, done chan struct{}) {
	// A hung or misbehaving child is not waited for: its group goes.
	child.kill()
	if cs != nil {
		_ = cs.Close()
	}
	if done != nil {
		<-done
	}
}

// run connects, lists the tools and waits for the connection's end. A
// failure (or the end of a connection nobody stopped) makes s failed with
// a sentence; a stop or restart meanwhile (gen moved on) lets it go.
func (m *Client) run(ctx context.Context, s *server, gen int) {
	m.mu.Lock()
	cfg, connect, stderr := s.cfg, s.connect, s.stderr
	m.mu.Unlock()
	t, child, err := m.transport(ctx, cfg, connect, stderr)
	var cs *mcp.ClientSession
	if err == nil {
		cs, err = m.client.Connect(ctx, t, nil)
	}
	if err == nil {
		m.mu.Lock()
		if s.gen == gen {
			// Known before the first listing, so a tools/list_changed
			// that comes during it is not lost: it makes one listing
			// more after it (toolsChanged).
			s.session, s.relisting, s.relistAgain = cs, true, false
		}
		m.mu.Unlock()
	}
	var listed []listedTool
	leftOff := 0
	if err == nil {
		listed, leftOff, err = listTools(ctx, cfg.Name, cs)
	}
	m.mu.Lock()
	if s.gen != gen {
		m.mu.Unlock()
		release(cs, child, nil)
		return
	}
	if err != nil {
		reason := startFailure(cfg, err, context.Cause(ctx), m.initTimeout)
		s.session, s.child = nil, nil
		m.setLocked(s, protocol.MCPFailed, reason)
		m.mu.Unlock()
		m.log.Warn("mcp server failed to start", "server", cfg.Name, "err", err)
		release(cs, child, nil)
		return
	}
	init := cs.InitializeResult()
	s.session, s.child, s.listed, s.leftOff = cs, child, listed, leftOff
	m.rememberLocked(cfg.Name, listed)
	m.changedLocked()
	if init != nil {
		s.proto = init.ProtocolVersion
		if init.ServerInfo != nil {
			s.impl = strings.TrimSpace(init.ServerInfo.Name + " " + init.ServerInfo.Version)
		}
	}
	s.pid = child.pid()
	proto := s.proto
	m.setLocked(s, protocol.MCPRunning, "")
	again := s.relistAgain
	s.relisting, s.relistAgain = again, false
	m.mu.Unlock()
	if again {
		go m.relist(s, cs, gen, cfg.Name)
	}
	m.log.Info("mcp server running", "server", cfg.Name, "tools", len(listed), "protocol", proto)

	waitErr := cs.Wait()
	m.mu.Lock()
	if s.gen != gen {
		m.mu.Unlock()
		return
	}
	s.gen++ // this connection is over: a late call finds it gone
	s.session, s.child, s.pid = nil, nil, 0
	why := "its process ended"
	if cfg.URL != "" {
		why = "the connection ended"
	}
	if waitErr != nil {
		why += ": " + waitErr.Error()
	}
	m.setLocked(s, protocol.MCPFailed, fmt.Sprintf("The server %s stopped on its own (%s). Its tools are withdrawn from the next conversation turn; its output below may say why. Restart it when it is fixed.", cfg.Name, why))
	m.mu.Unlock()
	m.log.Warn("mcp server stopped on its own", "server", cfg.Name, "err", waitErr)
	release(nil, child, nil)
}

// toolsChanged lists a server's tools again when it says they changed, so
// the next run is offered the new list (a running run keeps its own). The
// handler runs on the connection's reader, which the listing waits on: it
// is done on a goroutine of its own, bounded by the handshake's deadline,
// and one at a time per connection (a change that comes during a listing
// makes one more listing after it, however many come).
func (m *Client) toolsChanged(_ context.Context, req *mcp.ToolListChangedRequest) {
	cs := req.Session
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, s := range m.servers {
		if s.session != cs {
			continue
		}
		if s.relisting {
			s.relistAgain = true
			return
		}
		s.relisting = true
		go m.relist(s, cs, s.gen, s.cfg.Name)
		return
	}
	// Not (or no longer) a running server's connection.
}

func (m *Client) relist(s *server, cs *mcp.ClientSession, gen int, name string) {
	for {
		ctx, cancel := context.WithTimeout(context.Background(), m.initTimeout)
		listed, leftOff, err := listTools(ctx, name, cs)
		cancel()
		m.mu.Lock()
		if s.gen != gen || s.session != cs {
			m.mu.Unlock()
			return // a new connection has its own flags (startLocked)
		}
		if err != nil {
			m.log.Warn("mcp server's changed tools could not be listed; the earlier list stays", "server", name, "err", err)
		} else {
			s.listed, s.leftOff = listed, leftOff
			m.rememberLocked(name, listed)
			m.changedLocked()
			m.watch.publish(m.statusLocked(s, m.offersLocked()[name]))
		}
		again := s.relistAgain
		s.relisting, s.relistAgain = again, false
		m.mu.Unlock()
		if !again {
			return
		}
	}
}

// transport is the connection a server's config asks for.
func (m *Client) transport(ctx context.Context, cfg protocol.MCPServerConfig, connect Connect, stderr *tail) (mcp.Transport, *stdioChild, error) {
	switch {
	case connect != nil:
		t, err := connect(ctx)
		return t, nil, err
	case cfg.URL != "":
		client := &http.Client{Transport: headers{cfg.Headers, http.DefaultTransport}, CheckRedirect: sameOrigin}
		return &mcp.StreamableClientTransport{Endpoint: cfg.URL, HTTPClient: client, MaxRetries: 2, DisableStandaloneSSE: true}, nil, nil
	default:
		cmd := exec.Command(cfg.Command, cfg.Args...)
		cmd.Env = childEnviron(os.Environ())
		for k, v := range cfg.Env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		cmd.Stderr = stderr
		// Wait does not wait on a grandchild that kept stderr open.
		cmd.WaitDelay = 2 * time.Second
		child := &stdioChild{CommandTransport: mcp.CommandTransport{Command: cmd, TerminateDuration: time.Second}}
		return child, child, nil
	}
}

// errRedirectedAway: an HTTP server sent Quire to another origin.
var errRedirectedAway = errors.New("the server redirected to another address")

// sameOrigin follows a redirect only to the configured server's own
// scheme and host: the configured headers (often a token) are added to
// every request, so a redirect elsewhere would hand them to whoever is
// there (net/http's own stripping does not see headers a transport adds).
func sameOrigin(r *http.Request, via []*http.Request) error {
	first := via[0].URL
	if r.URL.Scheme != first.Scheme || r.URL.Host != first.Host {
		return fmt.Errorf("%w (%s://%s): put that address in the server's config if you trust it", errRedirectedAway, r.URL.Scheme, r.URL.Host)
	}
	if len(via) >= 10 {
		return fmt.Errorf("%w: more than 10 times", errRedirectedAway)
	}
	return nil
}

// headers adds the configured headers to every request to the server and
// bounds each answer's body at maxAnswerBytes (the SDK bounds one stdio
// line and one SSE event the same; a JSON answer it reads whole).
type headers struct {
	h    map[string]string
	next http.RoundTripper
}

// maxAnswerBytes is the SDK's own bound on one stdio message or SSE event.
const maxAnswerBytes = mcp.DefaultMaxLineLength

var errAnswerTooBig = fmt.Errorf("the server's answer is over %d MiB", maxAnswerBytes>>20)

func (h headers) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(h.h) > 0 {
		r = r.Clone(r.Context())
		for k, v := range h.h {
			r.Header.Set(k, v)
		}
	}
	resp, err := h.next.RoundTrip(r)
	if err == nil {
		resp.Body = &boundedBody{ReadCloser: resp.Body, left: maxAnswerBytes}
	}
	return resp, err
}

// boundedBody fails a read past its bound instead of growing without one.
type boundedBody struct {
	io.ReadCloser
	left int64
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, errAnswerTooBig
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	return n, err
}

// listTools takes up to MCPMaxToolsPerServer tools and counts (a bounded
// number of) the rest.
func listTools(ctx context.Context, server string, cs *mcp.ClientSession) ([]listedTool, int, error) {
	listed := []listedTool{}
	leftOff := 0
	if init := cs.InitializeResult(); init != nil && init.Capabilities != nil && init.Capabilities.Tools == nil {
		return listed, 0, nil // a server with no tools (prompts or resources only)
	}
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, 0, err
		}
		if len(listed) < protocol.MCPMaxToolsPerServer {
			listed = append(listed, prepare(server, t))
			continue
		}
		leftOff++
		if leftOff >= 16*protocol.MCPMaxToolsPerServer {
			break
		}
	}
	return listed, leftOff, nil
}

// startFailure says why a start failed and what to do.
func startFailure(cfg protocol.MCPServerConfig, err, cause error, init time.Duration) string {
	switch {
	case errors.Is(cause, errHandshakeDeadline):
		return fmt.Sprintf("The server %s did not finish the MCP handshake within %s. Its output below may say why; check its command or address, then restart it.", cfg.Name, init)
	case errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission):
		return fmt.Sprintf("Quire could not start the server %s (%v). Check its command: is the program installed, on PATH and executable? Then start it again.", cfg.Name, err)
	case cfg.URL != "":
		return fmt.Sprintf("The server %s at %s did not answer as an MCP server (%v). Check the address and that the server runs, then restart it.", cfg.Name, cfg.URL, err)
	default:
		return fmt.Sprintf("The server %s ended or failed the MCP handshake (%v). Its output below may say why; fix it, then restart it.", cfg.Name, err)
	}
}
