package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"quire/host"
	"quire/internal/datadir"
	"quire/kernel/protocol"
)

// mcpUsage is what `quire mcp` says when it is not given a subcommand it has.
const mcpUsage = `usage: quire mcp list [-json]
       quire mcp add NAME [-env KEY=VALUE]... -- COMMAND [ARG...]
       quire mcp add NAME -url URL
       quire mcp remove NAME`

// effectsRead is the settings spelling of a tool that only reads
// (protocol.MCPTool.Effects); every other spelling can change things.
const effectsRead = "read"

// stderrLines is how much of a failed server's stderr `quire mcp list`
// prints: its last lines, which usually say why (the rest is in Settings).
const stderrLines = 5

// mcpOptions are the flags of `quire mcp`.
type mcpOptions struct {
	json bool
	url  string
	env  envFlag
}

func (o *mcpOptions) register(fset *flag.FlagSet) {
	fset.BoolVar(&o.json, "json", false, "list: print JSON (protocol.MCPList)")
	fset.StringVar(&o.url, "url", "", "add: the Streamable HTTP address of the server")
	fset.Var(&o.env, "env", "add: an environment variable of the server's command, KEY=VALUE (repeatable)")
}

// envFlag is -env given any number of times, bounded as the server's env is.
type envFlag map[string]string

func (e *envFlag) String() string { return fmt.Sprint(map[string]string(*e)) }

func (e *envFlag) Set(v string) error {
	k, val, ok := strings.Cut(v, "=")
	if !ok || k == "" {
		return fmt.Errorf("-env %q is not KEY=VALUE", v)
	}
	if *e == nil {
		*e = envFlag{}
	}
	if len(*e) >= protocol.MCPMaxEnv {
		return fmt.Errorf("a server takes at most %d environment variables", protocol.MCPMaxEnv)
	}
	(*e)[k] = val
	return nil
}

// run is `quire mcp list|add|remove`. Listing only reads: through the
// window or `quire serve` when one owns the data folder (the servers as
// they run there), else from the configuration alone, starting none
// (a Reader's servers are read-only), said so. Adding and
// removing go through that owner, or take the folder as its owner for the
// moment they save. Exit status: 0 done, 1 failed (said why), 2 usage.
func (o *mcpOptions) run(ctx context.Context, args []string, env Env) int {
	sub := ""
	if len(args) > 0 {
		sub, args = args[0], args[1:]
	}
	switch {
	case sub == "list" && len(args) == 0:
		return o.list(ctx, env)
	case sub == "add" && len(args) >= 1:
		c := protocol.MCPServerConfig{Name: args[0], URL: o.url, Enabled: true}
		if len(o.env) > 0 {
			c.Env = o.env
		}
		rest := args[1:]
		if len(rest) > 0 && rest[0] == "--" {
			rest = rest[1:] // left by a parse that stopped at NAME
		}
		if len(rest) > 0 {
			c.Command, c.Args = rest[0], rest[1:]
		}
		if (c.Command == "") == (c.URL == "") || (c.URL != "" && len(c.Env) > 0) {
			break
		}
		return o.change(ctx, env, func(m host.MCP) error {
			s, err := m.Put(ctx, c)
			if err == nil {
				fmt.Fprintf(env.Stdout, "Added %s (%s). Its tools are offered from the next message on; `quire mcp list` shows them once it runs.\n", host.Visible(s.Config.Name), s.State)
			}
			return err
		})
	case sub == "remove" && len(args) == 1:
		return o.change(ctx, env, func(m host.MCP) error {
			err := m.Remove(ctx, args[0])
			if err == nil {
				fmt.Fprintf(env.Stdout, "Removed %s: it is stopped and its tools are no longer offered.\n", host.Visible(args[0]))
			}
			return err
		})
	}
	fmt.Fprintln(env.Stderr, mcpUsage)
	return exitUsage
}

// owned is the MCP servers of the window or `quire serve` that owns the
// data folder, over its local channel; nil when no such owner runs.
func owned(ctx context.Context, env Env) (host.MCP, datadir.Holder, error) {
	h, live, err := liveOwner(env)
	if err != nil || !live || env.RunningMCP == nil {
		return nil, h, err
	}
	m, err := env.RunningMCP(ctx)
	return m, h, err
}

// liveOwner is who holds the data folder, and whether it is a window or
// `quire serve`, which answer on the local channel.
func liveOwner(env Env) (datadir.Holder, bool, error) {
	h, held, err := datadir.Held(env.Settings.DataDir)
	return h, err == nil && held && (h.Kind == datadir.Window || h.Kind == datadir.Serve), err
}

func (o *mcpOptions) list(ctx context.Context, env Env) int {
	m, h, err := owned(ctx, env)
	if err != nil {
		fmt.Fprintln(env.Stderr, "quire:", err)
		return exitFailed
	}
	live := m != nil
	if !live {
		p, err := env.Read(ctx)
		if err != nil {
			fmt.Fprintln(env.Stderr, "quire:", err)
			return exitFailed
		}
		defer p.Close()
		if m = p.MCP(); m == nil {
			fmt.Fprintln(env.Stderr, "quire: MCP servers are not available; `quire doctor` says why.")
			return exitFailed
		}
	}
	list, err := m.Servers(ctx)
	if err != nil {
		if live {
			fmt.Fprintf(env.Stderr, "quire: this data folder is owned by %s, which did not answer (%v). If it is stuck, end it and run this again.\n", h, err)
		} else {
			fmt.Fprintln(env.Stderr, "quire:", err)
		}
		return exitFailed
	}
	if o.json {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(list); err != nil {
			return exitFailed
		}
	} else {
		printMCP(env.Stdout, list)
	}
	switch {
	case list.Problem != "":
		fmt.Fprintln(env.Stderr, "quire:", list.Problem)
		return exitFailed
	case live:
		fmt.Fprintf(env.Stderr, "As %s runs them.\n", h)
	case len(list.Servers) > 0:
		fmt.Fprintln(env.Stderr, "No Quire is running on this data folder: the servers as configured, none started (a list only reads). Their tools show while the window or `quire serve` runs.")
	}
	return exitOK
}

// change runs act on the owner's servers, or on this process's own as the
// folder's owner for the moment it saves.
func (o *mcpOptions) change(ctx context.Context, env Env, act func(host.MCP) error) int {
	m, h, err := owned(ctx, env)
	if err == nil && m == nil {
		var p Parts
		p, err = env.Own(ctx)
		var inUse *datadir.InUseError
		if errors.As(err, &inUse) {
			fmt.Fprintf(env.Stderr, "quire: %s holds this data folder; run this again when it has finished.\n", inUse.Holder)
			return exitFailed
		}
		if err == nil {
			defer p.Close()
			if m = p.MCP(); m == nil {
				err = errors.New("MCP servers are not available; `quire doctor` says why")
			}
		}
	} else if m != nil {
		fmt.Fprintf(env.Stderr, "This data folder is owned by %s; the change is made there.\n", h)
	}
	if err == nil {
		err = act(m)
	}
	if err != nil {
		fmt.Fprintln(env.Stderr, "quire:", err)
		return exitFailed
	}
	return exitOK
}

// printMCP is a block per server: its state (and why, when it failed or
// stopped), what runs it, its tools with their effects in words and the
// declarations' cost in the model's context. Everything a server wrote
// (names, descriptions, stderr) is escaped (host.Visible).
func printMCP(w io.Writer, list protocol.MCPList) {
	if len(list.Servers) == 0 && list.Problem == "" {
		fmt.Fprintln(w, "No MCP servers. Add one with `quire mcp add NAME -- COMMAND ARG...`, `quire mcp add NAME -url URL`, or paste an mcp.json in Settings.")
		return
	}
	for i, s := range list.Servers {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s  %s%s  %s\n", host.Visible(s.Config.Name), serverState(s), serverFacts(s), host.Visible(serverCommand(s.Config)))
		if s.Reason != "" {
			fmt.Fprintf(w, "  %s\n", host.Visible(s.Reason))
		}
		if s.State == protocol.MCPFailed && s.Stderr != "" {
			fmt.Fprintln(w, "  its stderr ends:")
			for _, line := range lastLines(s.Stderr, stderrLines) {
				fmt.Fprintf(w, "    %s\n", host.Visible(line))
			}
		}
		if len(s.Tools) > 0 {
			fmt.Fprintf(w, "  %d tools, %d tokens of declarations while enabled\n", len(s.Tools), s.Tokens)
		}
		for _, t := range s.Tools {
			fmt.Fprintf(w, "  %-40s %s\n", host.Visible(t.Name), toolLine(t))
			// What the model is told, shortened here (-json has it whole),
			// and what screening removed from it.
			fmt.Fprintf(w, "    %s\n", host.Visible(shortDescription(t.Description)))
			for _, n := range t.Screening {
				fmt.Fprintf(w, "    ! %s\n", host.Visible(n))
			}
		}
		if s.LeftOff > 0 {
			fmt.Fprintf(w, "  (%d more tools left off: a server offers at most %d)\n", s.LeftOff, protocol.MCPMaxToolsPerServer)
		}
	}
	if list.Tokens > 0 {
		fmt.Fprintf(w, "\nThe enabled tools' declarations take %d tokens of the model's context in every request.\n", list.Tokens)
	}
}

func serverState(s protocol.MCPServer) string {
	if !s.Config.Enabled && s.State == protocol.MCPStopped {
		return "disabled"
	}
	return s.State
}

func serverFacts(s protocol.MCPServer) string {
	var facts []string
	if s.PID > 0 {
		facts = append(facts, fmt.Sprintf("pid %d", s.PID))
	}
	if s.Server != "" {
		facts = append(facts, host.Visible(s.Server))
	}
	if s.ProtocolVersion != "" {
		facts = append(facts, "MCP "+host.Visible(s.ProtocolVersion))
	}
	if len(facts) == 0 {
		return ""
	}
	return " (" + strings.Join(facts, ", ") + ")"
}

// serverCommand is what runs a server, as a person would type it.
func serverCommand(c protocol.MCPServerConfig) string {
	if c.URL != "" {
		return c.URL
	}
	return strings.Join(append([]string{c.Command}, c.Args...), " ")
}

// toolLine is a tool's effects in words, whether the user changed them,
// and its cost; or why it is not offered.
func toolLine(t protocol.MCPTool) string {
	effects := effectWords(t.Effects)
	switch {
	case t.Loosened:
		effects += " (you loosened it: the server did not say it only reads)"
	case t.ReadOnly && t.Override != "" && t.Override != effectsRead:
		effects += " (you tightened it)"
	}
	switch {
	case !t.Enabled:
		return "disabled; " + effects
	case t.Problem != "":
		return "not offered: " + host.Visible(t.Problem)
	}
	return fmt.Sprintf("%s, %d tokens", effects, t.Tokens)
}

// effectWords says a tool's effects as Settings does.
func effectWords(effects string) string {
	if effects == effectsRead {
		return "reads only"
	}
	return "can change things, asks first"
}

// lastLines are the last n lines of text, without a trailing empty one.
func lastLines(text string, n int) []string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return lines
}

// shortDescription is a description's first line, cut at 100 characters.
func shortDescription(d string) string {
	first, _, more := strings.Cut(d, "\n")
	if r := []rune(first); len(r) > 100 {
		first, more = string(r[:99]), true
	}
	if more {
		first += "…"
	}
	return first
}
