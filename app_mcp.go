package main

// MCP servers: the bound methods of Settings' MCP section and each
// server's changes as a runtime event. Loosening a tool (letting one the
// server did not declare read-only run without a question) is the one
// choice here that removes a question, so its yes is a native dialog, as a
// batch's apply is: the page shows text the servers wrote (their names and
// descriptions), and a dialog is what none of that can click.

import (
	"context"
	"errors"
	"fmt"

	"quire/host"
	"quire/kernel/protocol"
)

// eventMCP carries a protocol.MCPServer whenever a server changes
// (docs/PROTOCOL.md), in order per server, each server's latest state
// when the page is slow.
const eventMCP = "quire:mcp"

// errNoMCP: this window was built without MCP servers.
var errNoMCP = errors.New("MCP servers are not available in this window; update Quire")

// effectsRead is the settings spelling of "only reads" (MCPTool.Effects).
const effectsRead = "read"

// startMCP runs with the window: it forwards every server's changes.
func (a *App) startMCP(ctx context.Context) {
	if a.mcp == nil {
		return
	}
	go func() {
		for s := range a.mcp.Watch(ctx) {
			a.emit(ctx, eventMCP, s)
		}
	}()
}

func (a *App) mcpPort() (host.MCP, error) {
	if err := a.ready(); err != nil {
		return nil, err
	}
	if a.mcp == nil {
		return nil, errNoMCP
	}
	return a.mcp, nil
}

// MCPServers is every configured server with its state, stderr tail and
// tools.
func (a *App) MCPServers() (protocol.MCPList, error) {
	m, err := a.mcpPort()
	if err != nil {
		return protocol.MCPList{}, err
	}
	return m.Servers(a.callCtx())
}

// PutMCPServer adds a server, or replaces the one of its name, and starts
// it when enabled; quire:mcp says when it runs or fails.
func (a *App) PutMCPServer(c protocol.MCPServerConfig) (protocol.MCPServer, error) {
	m, err := a.mcpPort()
	if err != nil {
		return protocol.MCPServer{}, err
	}
	s, err := m.Put(a.callCtx(), c)
	return s, spoken(err)
}

// RemoveMCPServer stops a server and forgets its configuration.
func (a *App) RemoveMCPServer(name string) error {
	m, err := a.mcpPort()
	if err != nil {
		return err
	}
	return spoken(m.Remove(a.callCtx(), name))
}

// ImportMCP takes a pasted mcp.json text: what was added, and what was
// refused and why.
func (a *App) ImportMCP(text string) (protocol.MCPImport, error) {
	m, err := a.mcpPort()
	if err != nil {
		return protocol.MCPImport{}, err
	}
	res, err := m.Import(a.callCtx(), text)
	return res, spoken(err)
}

// ControlMCPServer starts, stops or restarts one server (action "start",
// "stop" or "restart").
func (a *App) ControlMCPServer(name, action string) (protocol.MCPServer, error) {
	m, err := a.mcpPort()
	if err != nil {
		return protocol.MCPServer{}, err
	}
	acts := map[string]func(context.Context, string) (protocol.MCPServer, error){"start": m.Start, "stop": m.Stop, "restart": m.Restart}
	act, ok := acts[action]
	if !ok {
		return protocol.MCPServer{}, fmt.Errorf("%q is not start, stop or restart: %w", action, protocol.ErrBadPayload)
	}
	return act(a.callCtx(), name)
}

// SetMCPTool saves the user's choice for one tool. A loosening (effects
// "read" for a tool its server did not declare read-only) is asked first
// in a native dialog that says what it means; a No changes nothing and
// returns the server as it is.
func (a *App) SetMCPTool(c protocol.MCPToolChoice) (protocol.MCPServer, error) {
	m, err := a.mcpPort()
	if err != nil {
		return protocol.MCPServer{}, err
	}
	if c.Effects == effectsRead {
		s, t, err := mcpTool(a.callCtx(), m, c.Server, c.Tool)
		if err != nil {
			return protocol.MCPServer{}, err
		}
		if !t.ReadOnly && !t.Loosened {
			yes, err := a.confirm(fmt.Sprintf("Let %s run without asking?", host.Visible(t.Name)), loosenText(t))
			if err != nil || !yes {
				return s, err
			}
		}
	}
	s, err := m.SetTool(a.callCtx(), c)
	return s, spoken(err)
}

// mcpTool finds one tool of one server as it is now.
func mcpTool(ctx context.Context, m host.MCP, server, tool string) (protocol.MCPServer, protocol.MCPTool, error) {
	list, err := m.Servers(ctx)
	if err != nil {
		return protocol.MCPServer{}, protocol.MCPTool{}, err
	}
	for _, s := range list.Servers {
		if s.Config.Name != server {
			continue
		}
		for _, t := range s.Tools {
			if t.Tool == tool {
				return s, t, nil
			}
		}
	}
	return protocol.MCPServer{}, protocol.MCPTool{}, fmt.Errorf("the MCP server %q has no tool %q now; open Settings again: %w", server, tool, protocol.ErrNotFound)
}

// loosenText says what loosening a tool means, in the dialog that asks.
func loosenText(t protocol.MCPTool) string {
	said := "The server did not say this tool only reads"
	if t.Destructive {
		said = "The server says this tool can destroy things"
	}
	return fmt.Sprintf("%s (server %s, tool %s). Yes treats it as reading only: the model can call it whenever it likes, "+
		"with any arguments, and Quire will not ask you first. No keeps asking before every call.",
		said, host.Visible(t.Server), host.Visible(t.Tool))
}
