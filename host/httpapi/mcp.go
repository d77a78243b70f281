package httpapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"quire/host"
	"quire/kernel/protocol"
)

// errNoMCP: the server was started without the MCP servers' back end.
var errNoMCP = errors.New("MCP servers cannot be managed here; update Quire")

// errImportTooLarge: a pasted mcp.json over its bound, refused before the
// back end reads it.
var errImportTooLarge = fmt.Errorf("the pasted configuration is larger than %d KiB: paste only the servers you want", protocol.MCPMaxConfigBytes>>10)

// mcpRoutes serve the MCP servers' part of Settings (host.MCP):
//
//	GET    /api/mcp                           MCPList: every server, its state, stderr tail and tools
//	POST   /api/mcp/servers                   MCPServerConfig: add, or replace the server of that name → MCPServer
//	DELETE /api/mcp/servers/{name}            stop it and forget its config → 204 (404: no such server)
//	POST   /api/mcp/servers/{name}/start      → MCPServer (its start under way; the stream says how it went)
//	POST   /api/mcp/servers/{name}/stop       → MCPServer
//	POST   /api/mcp/servers/{name}/restart    → MCPServer
//	POST   /api/mcp/tools                     MCPToolChoice: a tool's enabled and effects → MCPServer
//	POST   /api/mcp/import                    {"text"}: a pasted mcp.json → MCPImport (added, refused and why)
//	GET    /api/mcp/stream                    SSE "mcp": MCPServer on each change, in order per server
//
// A refused input is 400 with its sentence; every body is bounded by
// readJSON's maxBody, and the pasted text by protocol.MCPMaxConfigBytes.
func (s *Server) mcpRoutes(api *http.ServeMux) {
	api.HandleFunc("GET /api/mcp", s.withMCP(s.mcpList))
	api.HandleFunc("POST /api/mcp/servers", s.withMCP(s.mcpPut))
	api.HandleFunc("DELETE /api/mcp/servers/{name}", s.withMCP(s.mcpRemove))
	api.HandleFunc("POST /api/mcp/servers/{name}/{action}", s.withMCP(s.mcpAct))
	api.HandleFunc("POST /api/mcp/tools", s.withMCP(s.mcpTool))
	api.HandleFunc("POST /api/mcp/import", s.withMCP(s.mcpImport))
	api.HandleFunc("GET /api/mcp/stream", s.withMCP(s.mcpStream))
}

func (s *Server) withMCP(h func(host.MCP, http.ResponseWriter, *http.Request)) http.HandlerFunc {
	return withPart(s, func() host.MCP { return s.b.MCP }, errNoMCP, h)
}

// mcpImportBody carries a pasted mcp.json as text, so what cannot be read
// as JSON is refused in the back end's words, not the route's.
type mcpImportBody struct {
	Text string `json:"text"`
}

func (s *Server) mcpList(m host.MCP, w http.ResponseWriter, r *http.Request) {
	list, err := m.Servers(r.Context())
	if err != nil {
		s.fail(w, statusOf(err), err)
		return
	}
	writeJSON(w, http.StatusOK, list)
}

func (s *Server) mcpPut(m host.MCP, w http.ResponseWriter, r *http.Request) {
	var c protocol.MCPServerConfig
	if err := readBody(r, &c, true); err != nil {
		s.fail(w, http.StatusBadRequest, err)
		return
	}
	s.mcpAnswer(w, func() (protocol.MCPServer, error) { return m.Put(r.Context(), c) })
}

func (s *Server) mcpRemove(m host.MCP, w http.ResponseWriter, r *http.Request) {
	if err := m.Remove(r.Context(), r.PathValue("name")); err != nil {
		s.fail(w, statusOf(err), err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// mcpAct is start, stop or restart of one server.
func (s *Server) mcpAct(m host.MCP, w http.ResponseWriter, r *http.Request) {
	acts := map[string]func(context.Context, string) (protocol.MCPServer, error){
		"start": m.Start, "stop": m.Stop, "restart": m.Restart,
	}
	act, ok := acts[r.PathValue("action")]
	if !ok {
		http.NotFound(w, r)
		return
	}
	s.mcpAnswer(w, func() (protocol.MCPServer, error) { return act(r.Context(), r.PathValue("name")) })
}

func (s *Server) mcpTool(m host.MCP, w http.ResponseWriter, r *http.Request) {
	var c protocol.MCPToolChoice
	if err := readBody(r, &c, true); err != nil {
		s.fail(w, http.StatusBadRequest, err)
		return
	}
	s.mcpAnswer(w, func() (protocol.MCPServer, error) { return m.SetTool(r.Context(), c) })
}

func (s *Server) mcpImport(m host.MCP, w http.ResponseWriter, r *http.Request) {
	var b mcpImportBody
	if err := readBody(r, &b, true); err != nil {
		s.fail(w, http.StatusBadRequest, err)
		return
	}
	if len(b.Text) > protocol.MCPMaxConfigBytes {
		s.fail(w, http.StatusBadRequest, errImportTooLarge)
		return
	}
	res, err := m.Import(r.Context(), b.Text)
	if err != nil {
		s.fail(w, statusOf(err), err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

// mcpAnswer writes the server an action answered, or its error.
func (s *Server) mcpAnswer(w http.ResponseWriter, act func() (protocol.MCPServer, error)) {
	srv, err := act()
	if err != nil {
		s.fail(w, statusOf(err), err)
		return
	}
	writeJSON(w, http.StatusOK, srv)
}

// mcpStream sends each server's changes as SSE until the client goes away.
func (s *Server) mcpStream(m host.MCP, w http.ResponseWriter, r *http.Request) {
	serveSSE(s, w, r, m.Watch(r.Context()), nil, func(w io.Writer, v protocol.MCPServer) error { return writeSSE(w, "mcp", v) })
}

// MCP is the owner's MCP servers over its local channel (the /api/mcp
// routes and their stream), so `quire mcp` lists and changes the servers
// the window or `quire serve` runs, as they run them.
func (l *Local) MCP() host.MCP { return localMCP{l} }

type localMCP struct{ l *Local }

func (m localMCP) Servers(ctx context.Context) (protocol.MCPList, error) {
	return call[protocol.MCPList](ctx, m.l, http.MethodGet, "/api/mcp", nil)
}

func (m localMCP) Put(ctx context.Context, c protocol.MCPServerConfig) (protocol.MCPServer, error) {
	return call[protocol.MCPServer](ctx, m.l, http.MethodPost, "/api/mcp/servers", c)
}

func (m localMCP) Remove(ctx context.Context, name string) error {
	return m.l.do(ctx, http.MethodDelete, "/api/mcp/servers/"+url.PathEscape(name), nil, nil)
}

func (m localMCP) Import(ctx context.Context, text string) (protocol.MCPImport, error) {
	return call[protocol.MCPImport](ctx, m.l, http.MethodPost, "/api/mcp/import", mcpImportBody{Text: text})
}

// act is a route that acts on one server and answers it.
func (m localMCP) act(ctx context.Context, name, action string) (protocol.MCPServer, error) {
	return call[protocol.MCPServer](ctx, m.l, http.MethodPost, "/api/mcp/servers/"+url.PathEscape(name)+"/"+action, struct{}{})
}

func (m localMCP) Start(ctx context.Context, name string) (protocol.MCPServer, error) {
	return m.act(ctx, name, "start")
}

func (m localMCP) Stop(ctx context.Context, name string) (protocol.MCPServer, error) {
	return m.act(ctx, name, "stop")
}

func (m localMCP) Restart(ctx context.Context, name string) (protocol.MCPServer, error) {
	return m.act(ctx, name, "restart")
}

func (m localMCP) SetTool(ctx context.Context, c protocol.MCPToolChoice) (protocol.MCPServer, error) {
	return call[protocol.MCPServer](ctx, m.l, http.MethodPost, "/api/mcp/tools", c)
}

// Watch follows the owner's MCP stream (watchStream).
func (m localMCP) Watch(ctx context.Context) <-chan protocol.MCPServer {
	return watchStream[protocol.MCPServer](ctx, m.l, "/api/mcp/stream", "mcp")
}

var _ host.MCP = localMCP{}
