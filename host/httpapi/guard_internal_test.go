package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/fstest"

	"quire/doctor"
	"quire/kernel/protocol"
)

// TestRoutesCarryNoBrowserGuard: routes are the API alone, for a listener
// with a check of its own (the local socket); what New serves is the same
// API behind the guard, which refuses the very same request.
func TestRoutesCarryNoBrowserGuard(t *testing.T) {
	b := Backend{Doctor: func(context.Context) doctor.Report { return doctor.Report{OK: true} }}
	log := slog.New(slog.DiscardHandler)
	status := func(h http.Handler) int {
		r := httptest.NewRequest("GET", "http://evil.example/api/doctor", nil)
		r.Header.Set(ProtocolHeader, protocol.Version)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		return rec.Code
	}
	if unguarded, guarded := status(newServer(b, log).routes()), status(New(b, fstest.MapFS{}, log)); unguarded != 200 || guarded != 421 {
		t.Fatalf("routes answered %d (want 200), New %d (want 421)", unguarded, guarded)
	}
}
