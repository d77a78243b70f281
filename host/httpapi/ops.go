package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"quire/host"
	"quire/kernel/protocol"
)

// OpPath is the route of every port operation (host.Ports): POST
// OpPath+name, the arguments a JSON array in the method's order ("" or no
// body for none). The answer is the result as JSON (200), 204 for an
// operation without one, or {"error"} with the status of its error class
// (statusOf); a refused setting adds its "field". The routes are derived,
// not written: a method added to a port is an operation here at once.
const OpPath = "/api/op/"

// opRoutes adds the one dispatcher for every operation.
func (s *Server) opRoutes(api *http.ServeMux) {
	api.HandleFunc("POST "+OpPath+"{name}", s.op)
}

// ports are the backend's ports as the wire dispatches them.
func (b *Backend) ports() host.Ports {
	return host.Ports{
		Documents: b.Documents, Memory: b.Memory, Notes: b.Notes, Settings: b.Settings,
		Models: b.Models, Conversations: b.Conversations, Batches: b.Batches, MCP: b.MCP,
		Evolution: b.Evolution, Skills: b.Skills, Calls: b.Calls, Standing: b.Standing,
	}
}

func (s *Server) op(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	if _, ok := s.wire.Op(name); !ok {
		s.fail(w, http.StatusNotFound, fmt.Errorf("%w: %q (%s)", host.ErrUnknownOp, name, docsOps))
		return
	}
	var args []json.RawMessage
	if r.ContentLength != 0 {
		if err := readBody(r, &args, true); err != nil {
			s.fail(w, opStatus(err), err)
			return
		}
	}
	res, err := s.wire.Call(r.Context(), s.b.ports(), name, args)
	var se *protocol.SettingError
	switch {
	case errors.As(err, &se):
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": se.Message, "field": se.Field})
	case err != nil:
		s.fail(w, opStatus(err), err)
	case res == nil:
		w.WriteHeader(http.StatusNoContent)
	default:
		writeJSON(w, http.StatusOK, res)
	}
}

// docsOps says where the operations are listed.
const docsOps = "docs/PROTOCOL.md lists the operations"

// opStatus is the status of an operation's error: the wire's own classes,
// then the protocol's (statusOf).
func opStatus(err error) int {
	switch {
	case errors.Is(err, errBodyTooLarge):
		return http.StatusRequestEntityTooLarge
	case errors.Is(err, host.ErrUnknownOp):
		return http.StatusNotFound
	case errors.Is(err, host.ErrBadArgs), errors.Is(err, errBadJSON):
		return http.StatusBadRequest
	case errors.Is(err, host.ErrNoPort):
		return http.StatusServiceUnavailable
	}
	return statusOf(err)
}
