package httpapi

import (
	"errors"
	"net/http"

	"quire/kernel/protocol"
)

// errNoSettings: this Quire has no settings to change (a host without the port).
var errNoSettings = errors.New("settings cannot be changed here")

// updateSettings: POST /api/settings {every UserSettings field} → the
// screen as it now is; a refused setting is 400 {"error", "field"}, the
// sentence to show next to that field. A key the settings do not have is
// refused, not ignored: a misspelt "temprature" must not look saved.
func (s *Server) updateSettings(w http.ResponseWriter, r *http.Request) {
	var u protocol.UserSettings
	if err := readBody(r, &u, true); err != nil {
		s.fail(w, http.StatusBadRequest, err)
		return
	}
	if s.b.Settings == nil {
		s.fail(w, http.StatusConflict, errNoSettings)
		return
	}
	screen, err := s.b.Settings.Update(r.Context(), u)
	var se *protocol.SettingError
	switch {
	case errors.As(err, &se):
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": se.Message, "field": se.Field})
	case err != nil:
		s.fail(w, statusOf(err), err)
	default:
		writeJSON(w, http.StatusOK, screen)
	}
}

// checkOllama: POST /api/settings/check {address} → what answers there
// (protocol.OllamaCheck), saving nothing.
func (s *Server) checkOllama(w http.ResponseWriter, r *http.Request) {
	var b struct {
		Address *string `json:"address"`
	}
	if err := readBody(r, &b, true); err != nil || b.Address == nil {
		s.fail(w, http.StatusBadRequest, errors.New(`send {"address": "http://127.0.0.1:11434"}`))
		return
	}
	if s.b.Settings == nil {
		s.fail(w, http.StatusConflict, errNoSettings)
		return
	}
	writeJSON(w, http.StatusOK, s.b.Settings.CheckOllama(r.Context(), *b.Address))
}
