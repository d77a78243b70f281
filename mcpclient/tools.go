package mcpclient

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"quire/config"
	"quire/kernel/protocol"
	"quire/kernel/tool"
	"quire/kernel/tool/registry"
)

// Tools offers the enabled tools of the running servers (a runtime
// ToolProvider): frozen into a run's capability snapshot when it starts,
// so a server that stops later changes only the next run.
func (m *Client) Tools() []tool.Tool {
	m.mu.Lock()
	defer m.mu.Unlock()
	offers := m.offersLocked()
	var out []tool.Tool
	for _, name := range m.namesLocked() {
		if m.servers[name].state != protocol.MCPRunning {
			continue
		}
		for _, t := range offers[name] {
			if t.info.Enabled && t.info.Problem == "" {
				out = append(out, t)
			}
		}
	}
	return out
}

// mcpTool is one server tool as a Quire tool.
type mcpTool struct {
	m    *Client
	spec tool.Spec
	info protocol.MCPTool
	// program is the config of the server it was offered from: a call
	// after the server was given another program is refused (Run).
	program protocol.MCPServerConfig
}

func (t *mcpTool) Spec() tool.Spec { return t.spec }

// Describe says, in the permission question, which server's tool it is
// and with what arguments, whole.
func (t *mcpTool) Describe(c tool.Call) string {
	return fmt.Sprintf("%s, a tool of the MCP server %s, with %s", t.info.Tool, t.info.Server, compactJSON(c.Arguments))
}

func compactJSON(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// Run calls the tool on its server's current connection. A server that is
// not running (it died, was stopped) fails the call in words; the deadline
// is the runtime's (Spec.Timeout), which cancels ctx.
func (t *mcpTool) Run(ctx context.Context, c tool.Call) (tool.Result, error) {
	t.m.mu.Lock()
	s := t.m.servers[t.info.Server]
	var cs *mcp.ClientSession
	state := protocol.MCPStopped
	replaced := false
	if s != nil {
		cs, state, replaced = s.session, s.state, !sameProgram(s.cfg, t.program)
	}
	t.m.mu.Unlock()
	if replaced {
		// Its effects, and so its question, were the old program's.
		return tool.Result{Status: tool.Failure, Content: fmt.Sprintf(
			"The MCP server %s was changed to another program after this conversation turn started, so its tool %s was not called. Tell the user; ask again to use the new program's tools.",
			t.info.Server, t.info.Tool)}, nil
	}
	if cs == nil || state != protocol.MCPRunning {
		return tool.Result{Status: tool.Failure, Content: fmt.Sprintf(
			"The MCP server %s is not running (%s), so its tool %s could not be called. Tell the user; they can restart it in Settings.",
			t.info.Server, state, t.info.Tool)}, nil
	}
	args := c.Arguments
	if len(args) == 0 {
		args = json.RawMessage(`{}`)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: t.info.Tool, Arguments: args})
	if err != nil {
		if ctx.Err() != nil {
			return tool.Result{}, context.Cause(ctx)
		}
		return tool.Result{Status: tool.Failure, Content: fmt.Sprintf(
			"The MCP server %s failed the call of %s: %v. If it stopped, Settings says why; its tools are withdrawn until it runs again.",
			t.info.Server, t.info.Tool, err)}, nil
	}
	return result(res), nil
}

// result turns an MCP result into a Quire one: text joined, other content
// described in words, isError a failure, structured content the Data;
// bounded (the pipeline then redacts and truncates for the model).
func result(r *mcp.CallToolResult) tool.Result {
	var parts []string
	for _, c := range r.Content {
		parts = append(parts, describeContent(c))
	}
	text := strings.Join(parts, "\n\n")
	if len(text) > protocol.MCPMaxResultBytes {
		text = strings.ToValidUTF8(text[:protocol.MCPMaxResultBytes], "") +
			fmt.Sprintf("\n[cut: the server sent more than %d KiB]", protocol.MCPMaxResultBytes>>10)
	}
	out := tool.Result{Status: tool.Success, Content: text}
	if r.StructuredContent != nil {
		if b, err := json.Marshal(r.StructuredContent); err == nil && len(b) <= protocol.MCPMaxResultBytes {
			out.Data = json.RawMessage(b)
			if text == "" {
				out.Content = string(b)
			}
		} else if text == "" {
			out.Content = fmt.Sprintf("[the server's structured result was over %d KiB and is left out]", protocol.MCPMaxResultBytes>>10)
		}
	}
	switch {
	case r.IsError:
		out.Status = tool.Failure
		if out.Content == "" {
			out.Content = "The tool reported an error and said nothing more."
		}
	case out.Content == "":
		out.Status = tool.Empty
	}
	return out
}

func describeContent(c mcp.Content) string {
	switch c := c.(type) {
	case *mcp.TextContent:
		return c.Text
	case *mcp.ImageContent:
		return fmt.Sprintf("[an image (%s, %d bytes), not shown to the model]", c.MIMEType, len(c.Data))
	case *mcp.AudioContent:
		return fmt.Sprintf("[audio (%s, %d bytes), not played to the model]", c.MIMEType, len(c.Data))
	case *mcp.ResourceLink:
		return fmt.Sprintf("[a link to the resource %q: %s]", c.Name, c.URI)
	case *mcp.EmbeddedResource:
		if c.Resource == nil {
			return "[an embedded resource with nothing in it]"
		}
		if c.Resource.Text != "" {
			return fmt.Sprintf("[the resource %s]\n%s", c.Resource.URI, c.Resource.Text)
		}
		return fmt.Sprintf("[the resource %s (%s, %d bytes), not shown to the model]", c.Resource.URI, c.Resource.MIMEType, len(c.Resource.Blob))
	default:
		return fmt.Sprintf("[content of a kind Quire does not show (%T)]", c)
	}
}

// offersLocked is every server's tools as Quire offers them, with the
// user's choices applied; names are unique across servers (a later one
// that clashes, in name order, gets a Problem). They are made again only
// after a change (changedLocked); callers only read them.
func (m *Client) offersLocked() map[string][]*mcpTool {
	if m.offers != nil {
		return m.offers
	}
	settings := m.settings
	choices := map[[2]string]config.MCPToolSetting{}
	for _, c := range settings.Tools {
		choices[[2]string{c.Server, c.Tool}] = c
	}
	timeout := time.Duration(settings.CallTimeoutSeconds) * time.Second
	if timeout <= 0 {
		timeout = protocol.MCPCallSeconds * time.Second
	}
	used := map[string]string{}
	out := map[string][]*mcpTool{}
	for _, name := range m.namesLocked() {
		for _, lt := range m.servers[name].listed {
			t := m.offer(m.servers[name].cfg, lt, choices[[2]string{name, lt.Name}], timeout)
			if other, clash := used[t.spec.Name]; clash && t.info.Problem == "" {
				t.info.Problem = fmt.Sprintf("Its name becomes %s, as %s's does; it is not offered.", t.spec.Name, other)
			} else if !clash {
				used[t.spec.Name] = name + "'s " + lt.Name
			}
			out[name] = append(out[name], t)
		}
	}
	m.offers = out
	return out
}

// listedTool is a tool as its server listed it, with its input schema
// read and checked once, when it was listed (outside the client's lock).
type listedTool struct {
	*mcp.Tool
	params map[string]any
	// description is the tool's as the model gets it (screen).
	description string
	notes       []string // what screening removed or cut
	problem     string   // why the tool cannot be offered
	// declaration is the fingerprint of what the server declares for it
	// (declaration): a "don't ask" is pinned to it.
	declaration string
}

// declaration fingerprints a tool as its server declares it — name,
// description, input schema and hints, before any screening, so a change
// of a hidden character counts too. A "don't ask" the user gave is pinned
// to it: a server that later rewrites the tool it was given to (a "rug
// pull": the same name, now told to do something else) is asked about
// again.
func declaration(t *mcp.Tool) string {
	b, err := json.Marshal(struct {
		Name        string               `json:"name"`
		Description string               `json:"description"`
		Input       any                  `json:"input"`
		Annotations *mcp.ToolAnnotations `json:"annotations"`
	}{t.Name, t.Description, t.InputSchema, t.Annotations})
	if err != nil {
		return "" // matches no pin: the tool is asked about
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}

// maxRemoteName bounds a server's own name for a tool (what a choice in
// settings.json names: config bounds it at 256 bytes).
const maxRemoteName = 128

// prepare reads and checks a listed tool's schema.
func prepare(server string, t *mcp.Tool) listedTool {
	lt := listedTool{Tool: t, declaration: declaration(t)}
	if len(t.Name) > maxRemoteName {
		// Kept short so a status stays small; such a tool is never offered.
		short := *t
		short.Name = strings.ToValidUTF8(t.Name[:maxRemoteName], "") + "…"
		lt.Tool = &short
		lt.problem = fmt.Sprintf("Its name is over %d characters; it is not offered.", maxRemoteName)
		return lt
	}
	if sc := screen(t.Name, t.Description, nil, protocol.MCPMaxDescription); sc.refused != "" {
		// Shown escaped: the name is what the user reads the tool by.
		short := *t
		short.Name = escapeHidden(t.Name)
		lt.Tool, lt.description, lt.problem = &short, sc.description, sc.refused
		return lt
	}
	raw, err := json.Marshal(t.InputSchema)
	switch {
	case err != nil:
		lt.problem = fmt.Sprintf("Its input schema cannot be read (%v); it is not offered.", err)
	case len(raw) > protocol.MCPMaxSchemaBytes:
		lt.problem = fmt.Sprintf("Its input schema is %d KiB, over the %d KiB Quire takes; it is not offered.", len(raw)>>10, protocol.MCPMaxSchemaBytes>>10)
	default:
		if err := json.Unmarshal(raw, &lt.params); err != nil || lt.params == nil {
			lt.params, lt.problem = nil, "Its input schema is not a JSON object; it is not offered."
			break
		}
		sc := screen(t.Name, t.Description, lt.params, protocol.MCPMaxDescription)
		lt.params, lt.description, lt.notes = sc.params, sc.description, sc.notes
		if sc.refused != "" {
			lt.problem = sc.refused
			break
		}
		// The registry refuses a whole run's tools for one bad schema:
		// the check is made here, so only this tool is withdrawn.
		spec := tool.Spec{Name: toolName(server, t.Name), Parameters: lt.params, Idempotency: tool.Unsafe}
		if _, err := registry.New(&mcpTool{spec: spec}); err != nil {
			lt.problem = fmt.Sprintf("Its input schema cannot be used (%v); it is not offered.", err)
		}
	}
	if lt.description == "" && lt.problem != "" {
		// Not offered, but shown: screened all the same.
		lt.description = screen(t.Name, t.Description, nil, protocol.MCPMaxDescription).description
	}
	return lt
}

// ChangedSinceLoosened is the screening note of a tool whose "don't ask"
// no longer holds.
const ChangedSinceLoosened = "Its server changed this tool (its description, input or hints) after you chose not to be asked before it: Quire asks again before each call. Choose \"Don't ask\" again if you trust what it says now."

// DeclaredLessCautious is the screening note of a tool whose server now
// declares it to do less (read-only, not destructive) than it declared
// before: the earlier declaration holds.
const DeclaredLessCautious = "Its server now declares this tool safer (read-only or not destructive) than it did before: Quire keeps to the earlier declaration and asks before each call. Choose \"Don't ask\" if you trust what it says now."

// caution is what a server declares a tool to do, from its hints.
type caution struct {
	effects     tool.Effect
	destructive bool
}

// hinted reads a tool's hints: readOnlyHint is read, anything else
// write+net; the spec's default for destructiveHint is true, when not
// read-only.
func hinted(ann *mcp.ToolAnnotations) caution {
	if ann != nil && ann.ReadOnlyHint {
		return caution{effects: tool.ReadFs}
	}
	return caution{effects: tool.WriteFs | tool.Net, destructive: ann == nil || ann.DestructiveHint == nil || *ann.DestructiveHint}
}

// rememberLocked adds what server's listing declares to what Quire has
// seen it declare. A hint is the server's word, and the server is what a
// question guards against: one that declared a tool destructive (asked,
// refused) and then re-declares it readOnlyHint: true would otherwise
// have it run unasked from the next run on. Only the user's "Don't ask"
// loosens a tool. Kept for the client's life (the process's), across
// restarts of the server.
func (m *Client) rememberLocked(server string, listed []listedTool) {
	for _, lt := range listed {
		k := [2]string{server, lt.Name}
		c, now := m.cautious[k], hinted(lt.Annotations)
		c.effects |= now.effects
		if c.effects != tool.ReadFs {
			c.effects &^= tool.ReadFs // write+net, as an undeclared tool's
		}
		m.cautious[k] = caution{effects: c.effects, destructive: c.destructive || now.destructive}
	}
}

// offer makes one listed tool a Quire tool.
func (m *Client) offer(program protocol.MCPServerConfig, lt listedTool, choice config.MCPToolSetting, timeout time.Duration) *mcpTool {
	server := program.Name
	now := hinted(lt.Annotations)
	was, seen := m.cautious[[2]string{server, lt.Name}]
	if !seen {
		was = now
	}
	info := protocol.MCPTool{Name: toolName(server, lt.Name), Server: server, Tool: lt.Name,
		Description: lt.description, Screening: lt.notes, ReadOnly: was.effects == tool.ReadFs, Destructive: was.destructive,
		Override: choice.Effects, Enabled: !choice.Disabled}
	declared := was.effects
	if was.effects&^now.effects != 0 || was.destructive && !now.destructive {
		info.Screening = append(slices.Clone(info.Screening), DeclaredLessCautious)
	}
	effects := declared
	if choice.Effects != "" {
		if e, err := parseEffects(choice.Effects); err == nil && declared&^e != 0 && choice.Pinned != lt.declaration {
			// A "don't ask" given to another declaration of this tool.
			info.Override = ""
			info.Screening = append(slices.Clone(info.Screening), ChangedSinceLoosened)
		} else if err == nil {
			effects = e
			info.Loosened = declared&^e != 0
		} else {
			info.Problem = fmt.Sprintf("The effects chosen for it (%q) are not a set Quire knows; choose again.", choice.Effects)
		}
	}
	info.Effects = effects.String()
	if info.Description == "" {
		info.Description = "A tool of the MCP server " + server + "."
	}
	// The status shows the description exactly as the model gets it.
	spec := tool.Spec{Name: info.Name, Description: info.Description, Effects: effects, Idempotency: tool.Unsafe, Timeout: timeout, Parameters: lt.params, Foreign: true}
	if info.Problem == "" {
		info.Problem = lt.problem
	}
	info.Tokens = m.tokens(spec)
	return &mcpTool{m: m, spec: spec, info: info, program: program}
}

// statusLocked is s as hosts see it.
func (m *Client) statusLocked(s *server, offers []*mcpTool) protocol.MCPServer {
	st := protocol.MCPServer{Config: masked(s.cfg), State: s.state, Reason: s.reason, PID: s.pid, SinceMs: s.since.UnixMilli(),
		Stderr: s.stderr.String(), ProtocolVersion: s.proto, Server: s.impl, Tools: []protocol.MCPTool{}, LeftOff: s.leftOff}
	for _, t := range offers {
		st.Tools = append(st.Tools, t.info)
		if t.info.Enabled && t.info.Problem == "" {
			st.Tokens += t.info.Tokens
		}
	}
	return st
}

// toolName is the namespaced name the model calls: server__tool, with
// what Ollama's tool names cannot hold made "_", cut to MCPMaxToolName
// with a hash of the whole name so two long names stay apart.
func toolName(server, name string) string {
	var b strings.Builder
	for _, r := range name {
		if r < utf8.RuneSelf && (r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	full := server + "__" + b.String()
	if len(full) <= protocol.MCPMaxToolName {
		return full
	}
	h := fnv.New32a()
	h.Write([]byte(name))
	suffix := fmt.Sprintf("-%08x", h.Sum32())
	return full[:protocol.MCPMaxToolName-len(suffix)] + suffix
}

// quarterOfJSON is a declaration's cost when the composition root gave no
// estimate (WithTokens): a quarter of its JSON.
func quarterOfJSON(s tool.Spec) int {
	decl, _ := json.Marshal(map[string]any{"name": s.Name, "description": s.Description, "parameters": s.Parameters})
	return (len(decl) + 3) / 4
}

// bounded cuts s to max characters.
func bounded(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	return string([]rune(s)[:max-1]) + "…"
}

// parseEffects reads an override in kernel/tool's spelling.
func parseEffects(s string) (tool.Effect, error) { return tool.ParseEffects(s) }

// allowedChoice reports whether a user's effects for a tool are ones the
// screens can say in words: "read" (the one loosening, which the window
// confirms natively and the status marks), or a set holding write and net,
// what an undeclared tool gets (so a choice can only add questions). "none",
// "write" alone or "memory" alone would each drop a question — "none" under
// every profile — while every screen still said "asks first".
func allowedChoice(e tool.Effect) bool {
	return e == tool.ReadFs || e&(tool.WriteFs|tool.Net) == tool.WriteFs|tool.Net
}

// inherited names the variables of Quire's own environment a stdio server
// starts with (the MCP SDKs' default set, plus the locale and the
// temporary folder): what a program needs to run and find its home, never
// the keys and tokens a user's shell holds, which a server gets only when
// its config's "env" names them. JSC_useJIT, which the window sets for its
// web process, is not among them, so a server on JavaScriptCore (Bun) is
// not slowed by it.
func inherited(name string) bool {
	switch name {
	case "HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR":
		return true
	}
	return false
}

// childEnviron is the environment a stdio server starts with, before its
// config's own env is added.
func childEnviron(environ []string) []string {
	return slices.DeleteFunc(slices.Clone(environ), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return !inherited(name)
	})
}
