package protocol

// The MCP shapes: the servers the user plugged in (Model Context Protocol,
// stdio or Streamable HTTP), their state, and the tools each offers, which
// become Quire tools behind the same permission table. The kernel does not
// produce these; package mcpclient does, and every host passes them through
// unchanged (Settings, `quire mcp list`, the browser).

// MCP server states (MCPServer.State).
const (
	MCPStarting = "starting" // the process is starting or the handshake is under way
	MCPRunning  = "running"  // handshake done: its enabled tools are offered from the next run on
	MCPStopped  = "stopped"  // not started (disabled, or stopped by the user)
	MCPFailed   = "failed"   // it died or failed its handshake: Reason says why and what to do
)

// MCP bounds: every input has one.
const (
	MCPMaxServers        = 16       // servers configured at once
	MCPMaxToolsPerServer = 64       // tools taken from one server; the rest are listed as left off
	MCPMaxServerName     = 32       // characters of a server's name ([A-Za-z0-9_-])
	MCPMaxToolName       = 64       // characters of a namespaced tool name (server__tool), what Ollama takes
	MCPMaxDescription    = 2048     // characters of a tool's description kept (longer is cut)
	MCPMaxSchemaBytes    = 16 << 10 // bytes of a tool's input schema; a bigger one withdraws the tool
	MCPMaxArgs           = 64       // arguments of a stdio command
	MCPMaxEnv            = 64       // environment variables (or headers) of a server
	MCPMaxValue          = 4096     // characters of one command, argument, env value, header or URL
	MCPMaxConfigBytes    = 256 << 10
	MCPStderrBytes       = 64 << 10 // the stderr tail kept per server
	MCPInitSeconds       = 30       // the handshake's deadline
	MCPCallSeconds       = 60       // the default deadline of one tool call (the mcp.callTimeoutSeconds setting)
	MCPMaxCallSeconds    = 600
	MCPMaxResultBytes    = 256 << 10 // bytes of a call's result read before the tool pipeline truncates it
)

// MCPMasked stands for every env and header value in a status that leaves
// the MCP client (MCPServer.Config): names are shown, values (often tokens)
// never reach a page, a -json or a screenshot. A config put back with a
// value still MCPMasked keeps the value stored under that name, so a
// round trip through Settings never replaces a secret with the mask.
const MCPMasked = "••••••••"

// MCPServerConfig is one configured server: a stdio command (Command,
// Args, Env) or a Streamable HTTP address (URL, Headers), never both.
// Disabled servers stay configured and are not started. In an MCPServer
// its Env and Headers values are MCPMasked.
type MCPServerConfig struct {
	Name    string            `json:"name"`
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	Enabled bool              `json:"enabled"`
}

// MCPServer is one server as it is now.
type MCPServer struct {
	Config MCPServerConfig `json:"config"`
	State  string          `json:"state"` // MCP* states
	// Reason says, for people, why the server is failed or stopped and what
	// to do ("" when running).
	Reason string `json:"reason,omitempty"`
	PID    int    `json:"pid,omitempty"` // the stdio child's process id while it runs
	// SinceMs is when it entered State (Unix ms).
	SinceMs int64 `json:"sinceMs"`
	// Stderr is the last MCPStderrBytes the child wrote to its stderr (kept
	// after it died, so a failure can be read).
	Stderr string `json:"stderr,omitempty"`
	// ProtocolVersion is the MCP version the handshake agreed on; Server
	// the server's own name and version.
	ProtocolVersion string    `json:"protocolVersion,omitempty"`
	Server          string    `json:"server,omitempty"`
	Tools           []MCPTool `json:"tools"`
	// Tokens is what the enabled tools' declarations cost in the model's
	// context (an estimate: 4 characters a token), summed.
	Tokens int `json:"tokens"`
	// LeftOff is how many tools past MCPMaxToolsPerServer were not taken.
	LeftOff int `json:"leftOff,omitempty"`
}

// MCPTool is one tool of a server, as Quire offers it.
type MCPTool struct {
	Name   string `json:"name"`   // the namespaced name the model calls (server__tool)
	Server string `json:"server"` // the server's configured name
	Tool   string `json:"tool"`   // the server's own name for it
	// Description is exactly what the model is told the tool does: the
	// server's, its hidden characters removed and cut at
	// MCPMaxDescription (Screening says so), or Quire's one line when the
	// server gave none.
	Description string `json:"description"`
	// Screening says, in sentences, what Quire removed or cut from the
	// tool's description and input schema before the model sees them
	// (hidden characters: Unicode tags, zero-width, bidi controls…).
	Screening []string `json:"screening,omitempty"`
	// Effects are what Quire treats the tool as doing, in the settings
	// spelling ("read", "write+net"): the declared ones, or the user's
	// override.
	Effects string `json:"effects"`
	// ReadOnly and Destructive are the server's annotations (readOnlyHint,
	// destructiveHint); a tool with no readOnlyHint is write+net.
	ReadOnly    bool `json:"readOnly"`
	Destructive bool `json:"destructive"`
	// Override is the user's effects choice ("" for none).
	Override string `json:"override,omitempty"`
	// Loosened: the override asks less than the annotations would (the
	// user made the choice; the screens show it).
	Loosened bool `json:"loosened,omitempty"`
	Enabled  bool `json:"enabled"`
	// Tokens is the declaration's cost in the model's context (estimate).
	Tokens int `json:"tokens"`
	// Problem says why the tool is not offered though enabled (its schema
	// does not compile, its name clashes); "" when it is offered.
	Problem string `json:"problem,omitempty"`
}

// MCPToolChoice is what the user chose for one tool of one server: kept
// by Quire (settings.json), so re-pasting a server's config loses nothing.
type MCPToolChoice struct {
	Server  string `json:"server"`
	Tool    string `json:"tool"` // the server's own name for it
	Enabled bool   `json:"enabled"`
	// Effects overrides the declared effects ("" for the declared ones):
	// "write+net" tightens a read-only tool; "read" loosens one the server
	// did not declare read-only, and the tool then shows Loosened.
	Effects string `json:"effects,omitempty"`
}

// MCPList is every configured server, in name order.
type MCPList struct {
	Servers []MCPServer `json:"servers"`
	// Tokens is the enabled, offered tools' declarations across servers.
	Tokens int `json:"tokens"`
	// Problem says why the configuration file could not be read ("" if it
	// was): the servers list is then empty and nothing is overwritten.
	Problem string `json:"problem,omitempty"`
}

// MCPImport is what a pasted mcp.json did: the servers added (or
// replaced, by name) and those refused, each with why.
type MCPImport struct {
	Added   []string         `json:"added"`
	Refused []MCPImportIssue `json:"refused"`
}

// MCPImportIssue is one server of a pasted config that was not taken.
type MCPImportIssue struct {
	Name   string `json:"name"`
	Reason string `json:"reason"` // a sentence for the user
}
