package window

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"quire/host"
	"quire/kernel/protocol"
	"quire/kernel/tool"
)

// MCPConfig is the MCP client's own reading of a server's config and of a
// pasted mcp.json (the composition root's CheckMCP and ParseMCP), so the
// dialog shows exactly what would run before Put or Import, which check
// again; a host never imports the client itself.
type MCPConfig struct {
	Check func(c protocol.MCPServerConfig) error
	Parse func(text string) ([]protocol.MCPServerConfig, []protocol.MCPImportIssue, error)
}

// MCP servers: the bound methods of Settings' MCP section that ask first, and each
// server's changes as a runtime event. Loosening a tool (letting one the
// server did not declare read-only run without a question) is the one
// choice here that removes a question, so its yes is a native dialog, as a
// batch's apply is: the page shows text the servers wrote (their names and
// descriptions), and a dialog is what none of that can click.

// eventMCP carries a protocol.MCPServer whenever a server changes
// (docs/PROTOCOL.md), in order per server, each server's latest state
// when the page is slow.
const eventMCP = "quire:mcp"

// startMCP runs with the window: it forwards every server's changes.
func (h *Host) startMCP(ctx context.Context) {
	if h.mcp == nil {
		return
	}
	// Watching starts here, not in the goroutine: a change made right
	// after start-up is not missed.
	updates := h.mcp.Watch(ctx)
	go func() {
		for s := range updates {
			h.emit(ctx, eventMCP, s)
		}
	}()
}

func (h *Host) mcpPort() (host.MCP, error) {
	if err := h.ready(); err != nil {
		return nil, err
	}
	if h.mcp == nil {
		return nil, errNoMCP
	}
	return h.mcp, nil
}

// PutMCPServer adds a server, or replaces the one of its name, and starts
// it when enabled; quire:mcp says when it runs or fails. A stdio server
// runs a command on this computer, so it is put only after a native Yes
// to a dialog showing exactly what will run (askServers); a No changes
// nothing. An address is connected to without a dialog: nothing runs here.
func (h *Host) PutMCPServer(c protocol.MCPServerConfig) (protocol.MCPServer, error) {
	m, err := h.mcpPort()
	if err != nil {
		return protocol.MCPServer{}, err
	}
	if err := h.mcpConfig.Check(c); err != nil {
		return protocol.MCPServer{}, host.Spoken(err)
	}
	if c.Command != "" {
		if err := h.askServers([]protocol.MCPServerConfig{c}); err != nil {
			return protocol.MCPServer{}, err
		}
	}
	s, err := m.Put(h.callCtx(), c)
	return s, host.Spoken(err)
}

// askServers asks, in one native dialog, before cfgs are saved and
// started: each server's whole command line (or address) and the names
// of its environment variables or headers (their values may be tokens
// and are not shown). What does not fit in a dialog is refused rather
// than cut: a Yes is never given to a command the user could not read.
func (h *Host) askServers(cfgs []protocol.MCPServerConfig) error {
	var b strings.Builder
	lines, runes := 0, 0
	runsHere := false
	for _, c := range cfgs {
		item := serverLines(c)
		runsHere = runsHere || c.Command != ""
		shown := wrap(item, dialogWrap)
		lines += strings.Count(shown, "\n") + 1
		runes += utf8.RuneCountInString(item)
		b.WriteString("\n• " + shown)
	}
	if lines > dialogMaxLines || runes > dialogMaxRunes {
		return errMCPTooLong
	}
	title := "Add this MCP server?"
	if len(cfgs) != 1 {
		title = fmt.Sprintf("Add these %d MCP servers?", len(cfgs))
	}
	head := "Quire will connect to:"
	if runsHere {
		head = "Quire will run these commands on this computer, now and whenever the server is started, with your permissions:"
	}
	yes, err := h.confirm(title, head+"\n"+b.String()+"\n\nYes saves and starts them; No changes nothing and runs nothing.")
	switch {
	case err != nil:
		return err
	case !yes:
		return errMCPDeclined
	}
	return nil
}

// serverLines is one server as the dialog shows it: its name, the command
// and every argument (quoted when a space or quote would hide where one
// ends), or its address; then the names of its env or headers. Every
// invisible or layout character is escaped (host.Visible).
func serverLines(c protocol.MCPServerConfig) string {
	var b strings.Builder
	b.WriteString(host.Visible(c.Name) + ": ")
	names, kind := c.Env, "environment"
	if c.URL != "" {
		b.WriteString("connects to " + host.Visible(c.URL))
		names, kind = c.Headers, "headers"
	} else {
		words := []string{}
		for _, w := range append([]string{c.Command}, c.Args...) {
			if w == "" || strings.ContainsAny(w, " \t\n\"'\\") {
				w = strconv.Quote(w)
			}
			words = append(words, host.Visible(w))
		}
		b.WriteString("runs " + strings.Join(words, " "))
	}
	if len(names) > 0 {
		keys := slices.Sorted(maps.Keys(names))
		for i, k := range keys {
			keys[i] = host.Visible(k)
		}
		fmt.Fprintf(&b, "\n  %s: %s (values not shown)", kind, strings.Join(keys, ", "))
	}
	if !c.Enabled {
		b.WriteString("\n  saved turned off: it runs when you start it")
	}
	return b.String()
}

// ImportMCP takes a pasted mcp.json text: what was added, and what was
// refused and why. What it would add is asked first in one native dialog
// listing each server's command or address (askServers); a No changes
// nothing.
func (h *Host) ImportMCP(text string) (protocol.MCPImport, error) {
	m, err := h.mcpPort()
	if err != nil {
		return protocol.MCPImport{}, err
	}
	cfgs, _, err := h.mcpConfig.Parse(text)
	if err != nil {
		return protocol.MCPImport{}, host.Spoken(err)
	}
	if len(cfgs) > 0 {
		if err := h.askServers(cfgs); err != nil {
			return protocol.MCPImport{}, err
		}
	}
	res, err := m.Import(h.callCtx(), text)
	return res, host.Spoken(err)
}

// SetMCPTool saves the user's choice for one tool. A loosening (effects
// "read" for a tool its server did not declare read-only) is asked first
// in a native dialog that says what it means; a No changes nothing and
// returns the server as it is.
func (h *Host) SetMCPTool(c protocol.MCPToolChoice) (protocol.MCPServer, error) {
	m, err := h.mcpPort()
	if err != nil {
		return protocol.MCPServer{}, err
	}
	if c.Effects != "" {
		s, t, err := mcpTool(h.callCtx(), m, c.Server, c.Tool)
		if err != nil {
			return protocol.MCPServer{}, err
		}
		if loosens(t, c.Effects) {
			yes, err := h.confirm(fmt.Sprintf("Let %s run without asking?", host.Visible(t.Name)), loosenText(t, c.Effects))
			if err != nil || !yes {
				return s, err
			}
		}
	}
	s, err := m.SetTool(h.callCtx(), c)
	return s, host.Spoken(err)
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

// loosens reports whether choosing effects for t asks less than both what
// its server declared and what it runs with now. Every spelling the
// client takes counts ("read", "READ", " read ", "none", "net",
// "read+read"), and so does loosening an already loosened tool further
// ("none" after "read"): matching the one spelling "read" let the others
// past the dialog. A set Quire does not know is the client's to refuse.
func loosens(t protocol.MCPTool, effects string) bool {
	chosen, err := tool.ParseEffects(effects)
	if err != nil {
		return false
	}
	declared := tool.WriteFs | tool.Net // what no annotation, or anything but readOnlyHint, means
	if t.ReadOnly {
		declared = tool.ReadFs
	}
	now, err := tool.ParseEffects(t.Effects)
	if err != nil {
		now = declared
	}
	return asksLess(declared, chosen) && asksLess(now, chosen)
}

// asksLess reports whether a tool with the effects to is asked less than
// with from: it drops an effect that is asked, or it drops the last of
// reading and the network, whose results mark the session as having read
// outside text (so grants stop holding, kernel/core). A read-only tool
// tightened to write+net asks more, not less.
func asksLess(from, to tool.Effect) bool {
	const outside = tool.ReadFs | tool.Net
	return (from&^to)&^tool.ReadFs != 0 || (from&outside != 0 && to&outside == 0)
}

// loosenText says what loosening a tool to effects means, in the dialog
// that asks.
func loosenText(t protocol.MCPTool, effects string) string {
	said := "The server did not say this tool only reads"
	switch {
	case t.ReadOnly:
		said = "The server says this tool only reads; what it returns is still outside text"
	case t.Destructive:
		said = "The server says this tool can destroy things"
	}
	as := "reading only"
	if e, err := tool.ParseEffects(effects); err == nil && e != tool.ReadFs {
		as = "having the effects " + e.String() + " only"
	}
	return fmt.Sprintf("%s (server %s, tool %s). Yes treats it as %s: the model can call it whenever it likes, "+
		"with any arguments, and Quire will not ask you first. No keeps asking before every call.",
		said, host.Visible(t.Server), host.Visible(t.Tool), as)
}
