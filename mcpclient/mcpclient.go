// Package mcpclient is Quire's MCP client (Model Context Protocol, on the
// official Go SDK): it owns the servers the user plugged in — their config
// in <data dir>/mcp.json, in the shape other apps use, so a pasted config
// works —, their processes or connections (a stdio child in a process group
// of its own, killed whole on stop and on Close; Streamable HTTP to an
// address), their state and stderr, and their tools offered to the model as
// Quire tools (Tools, a runtime ToolProvider): namespaced by server, with
// effects from the server's annotations (readOnlyHint: read; anything else:
// write+net, so it is asked) unless the user chose otherwise, each behind
// the same permission table, question, truncation and log as Quire's own.
//
// The user's per-tool choices are not in mcp.json but in settings.json
// (config.MCPSettings, through the Choices port), so re-pasting a server's
// config never loses them.
//
// Ordering: Watch delivers each server's states in the order they happened
// (coalesced to the latest when the watcher is slow); Tools lists servers
// in name order and each server's tools in the order it listed them.
//
// It speaks kernel/protocol, kernel/tool (and its registry, to check a
// schema before offering it), config and internal/latest. It must never import
// kernel/store, kernel/runtime, kernel/core, a provider, a host, the
// composition root or Wails.
package mcpclient

import "errors"

// Errors. Each refusal a host shows wraps one with a sentence
// (protocol.Refusef), and its protocol class.
var (
	// ErrUnknownServer: no server of that name is configured.
	ErrUnknownServer = errors.New("no such mcp server")
	// ErrBadConfig: a server's config, or a pasted mcp.json, is refused.
	ErrBadConfig = errors.New("the mcp server config is refused")
	// ErrUnknownTool: the server has no tool of that name.
	ErrUnknownTool = errors.New("no such mcp tool")
	// ErrNotRunning: a call reached a server that is not running.
	ErrNotRunning = errors.New("the mcp server is not running")
	// ErrReadOnly: a change reached a client opened ReadOnly.
	ErrReadOnly = errors.New("the mcp servers were opened read-only")
	// ErrClosed: the client was closed.
	ErrClosed = errors.New("the mcp client is closed")
)
