package mcpclient

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"quire/kernel/protocol"
)

// File is the name of the servers' config in the data folder.
const File = "mcp.json"

// fileServer is one server as mcp.json spells it: the shape Claude
// Desktop, Cursor, VS Code and others write ({"command", "args", "env"} or
// {"url", "headers"}), with "type" read when present and "disabled" kept.
// Other apps' fields (autoApprove, alwaysAllow, timeout) are ignored:
// Quire's own choices are in settings.json, and another app's standing
// approval never reaches Quire's permission table.
type fileServer struct {
	Type     string            `json:"type,omitempty"`
	Command  string            `json:"command,omitempty"`
	Args     []string          `json:"args,omitempty"`
	Env      map[string]string `json:"env,omitempty"`
	URL      string            `json:"url,omitempty"`
	Headers  map[string]string `json:"headers,omitempty"`
	Disabled bool              `json:"disabled,omitempty"`
}

type fileShape struct {
	MCPServers map[string]json.RawMessage `json:"mcpServers"`
}

var namePattern = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// Parse reads an mcp.json text: the servers it holds, in name order, each
// checked (Check), and those refused with why. A text that is not the
// shape at all is an error (ErrBadConfig) with a sentence.
func Parse(text []byte) ([]protocol.MCPServerConfig, []protocol.MCPImportIssue, error) {
	if len(text) > protocol.MCPMaxConfigBytes {
		return nil, nil, protocol.Refusef(protocol.ErrBadPayload, ErrBadConfig,
			"The MCP config is %d KiB; at most %d KiB is read. Paste the servers you want only.", len(text)>>10, protocol.MCPMaxConfigBytes>>10)
	}
	var shape fileShape
	if err := json.Unmarshal(text, &shape); err != nil {
		return nil, nil, protocol.Refusef(protocol.ErrBadPayload, ErrBadConfig,
			"The MCP config is not valid JSON (%v). It should look like {\"mcpServers\": {\"name\": {\"command\": \"...\", \"args\": [...]}}}.", err)
	}
	if shape.MCPServers == nil {
		return nil, nil, protocol.Refusef(protocol.ErrBadPayload, ErrBadConfig,
			"The MCP config has no \"mcpServers\" object. It should look like {\"mcpServers\": {\"name\": {\"command\": \"...\"}}}.")
	}
	names := make([]string, 0, len(shape.MCPServers))
	for n := range shape.MCPServers {
		names = append(names, n)
	}
	slices.Sort(names)
	var out []protocol.MCPServerConfig
	var issues []protocol.MCPImportIssue
	for _, n := range names {
		var fsrv fileServer
		if err := json.Unmarshal(shape.MCPServers[n], &fsrv); err != nil {
			issues = append(issues, protocol.MCPImportIssue{Name: n, Reason: fmt.Sprintf("Its entry is not an object of command, args, env or url (%v).", err)})
			continue
		}
		cfg := protocol.MCPServerConfig{Name: n, Command: fsrv.Command, Args: fsrv.Args, Env: fsrv.Env,
			URL: fsrv.URL, Headers: fsrv.Headers, Enabled: !fsrv.Disabled}
		if reason := unspokenType(fsrv); reason != "" {
			issues = append(issues, protocol.MCPImportIssue{Name: n, Reason: reason})
			continue
		}
		if err := Check(cfg); err != nil {
			issues = append(issues, protocol.MCPImportIssue{Name: n, Reason: err.Error()})
			continue
		}
		out = append(out, cfg)
	}
	return out, issues, nil
}

// unspokenType is the sentence for a transport Quire does not speak (the
// old SSE one), said to the user beside the entry; "" when it speaks it.
func unspokenType(f fileServer) string {
	switch strings.ToLower(f.Type) {
	case "", "stdio", "http", "streamable-http", "streamablehttp":
		return ""
	case "sse":
		return "It uses the old SSE transport, which Quire does not speak; use the server's Streamable HTTP address (often ending in /mcp) instead."
	default:
		return fmt.Sprintf("Its type %q is none Quire knows (stdio, http).", f.Type)
	}
}

// Check refuses, with a sentence saying what to change, a server config
// over a bound or not one transport exactly.
func Check(c protocol.MCPServerConfig) error {
	bad := func(format string, args ...any) error {
		return protocol.Refusef(protocol.ErrBadPayload, ErrBadConfig, format, args...)
	}
	switch {
	case c.Name == "":
		return bad("The server needs a name.")
	case utf8.RuneCountInString(c.Name) > protocol.MCPMaxServerName:
		return bad("The server's name may have at most %d characters.", protocol.MCPMaxServerName)
	case !namePattern.MatchString(c.Name) || strings.Contains(c.Name, "__"):
		return bad("The server's name %q may hold only letters, digits, - and single _ (its tools are called name__tool).", c.Name)
	case c.Command == "" && c.URL == "":
		return bad("The server %s needs a command (a stdio server) or a url (an HTTP server).", c.Name)
	case c.Command != "" && c.URL != "":
		return bad("The server %s has both a command and a url; keep one.", c.Name)
	case len(c.Args) > protocol.MCPMaxArgs:
		return bad("The server %s has %d arguments; at most %d are taken.", c.Name, len(c.Args), protocol.MCPMaxArgs)
	case len(c.Env) > protocol.MCPMaxEnv || len(c.Headers) > protocol.MCPMaxEnv:
		return bad("The server %s has more than %d environment variables or headers.", c.Name, protocol.MCPMaxEnv)
	case c.URL == "" && len(c.Headers) > 0:
		return bad("The server %s has headers but no url: headers are for an HTTP server.", c.Name)
	case c.Command == "" && (len(c.Args) > 0 || len(c.Env) > 0):
		return bad("The server %s has args or env but no command: they are for a stdio server.", c.Name)
	}
	values := append([]string{c.Command, c.URL}, c.Args...)
	for k, v := range c.Env {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return bad("The server %s has an environment variable named %q, which cannot be set.", c.Name, k)
		}
		values = append(values, k, v)
	}
	for k, v := range c.Headers {
		if k == "" || strings.ContainsAny(k+v, "\r\n\x00") {
			return bad("The server %s has a header %q that cannot be sent (empty, or a line break in it).", c.Name, k)
		}
		values = append(values, k, v)
	}
	for _, v := range values {
		if len(v) > protocol.MCPMaxValue || strings.ContainsRune(v, 0) || !utf8.ValidString(v) {
			return bad("The server %s has a command, argument, variable or header over %d characters or not text.", c.Name, protocol.MCPMaxValue)
		}
	}
	if c.URL != "" {
		u, err := url.Parse(c.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return bad("The server %s's url %q is not an http:// or https:// address.", c.Name, c.URL)
		}
	}
	return nil
}

// entries is each server of an mcp.json text as it was written, by name:
// what a save writes back of the entries Quire did not take.
func entries(text []byte) map[string]json.RawMessage {
	var shape fileShape
	if json.Unmarshal(text, &shape) != nil {
		return nil
	}
	return shape.MCPServers
}

// readFile reads the servers of path, and each entry as written (entries);
// no file is no server.
func readFile(path string) ([]protocol.MCPServerConfig, []protocol.MCPImportIssue, map[string]json.RawMessage, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil, nil
	}
	if err != nil {
		return nil, nil, nil, fmt.Errorf("reading %s: %w", path, err)
	}
	defer f.Close()
	// One byte past the bound, so Parse sees the file is too big.
	text, err := io.ReadAll(io.LimitReader(f, protocol.MCPMaxConfigBytes+1))
	if err != nil {
		return nil, nil, nil, fmt.Errorf("reading %s: %w", path, err)
	}
	cfgs, issues, err := Parse(text)
	if err != nil {
		return nil, nil, nil, err
	}
	return cfgs, issues, entries(text), nil
}

// writeFile saves servers, and the entries Quire did not take (kept, as
// they were written), as path's mcp.json, atomically (a new file renamed
// over the old) and readable by the user only: env and headers may hold
// tokens.
func writeFile(path string, servers []protocol.MCPServerConfig, kept map[string]json.RawMessage) error {
	shape := struct {
		MCPServers map[string]any `json:"mcpServers"`
	}{MCPServers: map[string]any{}}
	for n, raw := range kept {
		shape.MCPServers[n] = raw
	}
	for _, c := range servers {
		shape.MCPServers[c.Name] = fileServer{Command: c.Command, Args: c.Args, Env: c.Env, URL: c.URL, Headers: c.Headers, Disabled: !c.Enabled}
	}
	data, err := json.MarshalIndent(shape, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".mcp-*.json")
	if err != nil {
		return fmt.Errorf("saving %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("saving %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("saving %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("saving %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("saving %s: %w", path, err)
	}
	return nil
}
