package httpapi

import (
	"context"
	"errors"
	"net/http"
	"net/url"

	"quire/host"
	"quire/kernel/protocol"
)

var errNoSkills = errors.New("skills are not available in this Quire (its database could not be opened); see the health checks")

func (s *Server) skillRoutes(api *http.ServeMux) {
	api.HandleFunc("GET /api/skills", s.skillList)
	api.HandleFunc("POST /api/skills/{name}/enabled", s.skillEnabled)
	api.HandleFunc("POST /api/skills/install", s.skillInstall)
}

// skills returns the backend, or answers the request itself when there is none.
func (s *Server) skills(w http.ResponseWriter) host.Skills {
	if s.b.Skills == nil {
		s.fail(w, http.StatusConflict, errNoSkills)
	}
	return s.b.Skills
}

// skillList: GET /api/skills → protocol.SkillList.
func (s *Server) skillList(w http.ResponseWriter, r *http.Request) {
	sk := s.skills(w)
	if sk == nil {
		return
	}
	list, err := sk.SkillList(r.Context())
	if err != nil {
		s.fail(w, statusOf(err), err)
		return
	}
	writeJSON(w, http.StatusOK, list)
}

// skillEnabled: POST /api/skills/{name}/enabled {enabled} → 204.
func (s *Server) skillEnabled(w http.ResponseWriter, r *http.Request) {
	sk := s.skills(w)
	if sk == nil {
		return
	}
	var b struct {
		Enabled *bool `json:"enabled"`
	}
	if err := readBody(r, &b, true); err != nil || b.Enabled == nil {
		s.fail(w, http.StatusBadRequest, errors.New(`send {"enabled": true} or {"enabled": false}`))
		return
	}
	if err := sk.SetSkillEnabled(r.Context(), r.PathValue("name"), *b.Enabled); err != nil {
		s.fail(w, statusOf(err), err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// skillInstall: POST /api/skills/install {dir} → the installed skill.
func (s *Server) skillInstall(w http.ResponseWriter, r *http.Request) {
	sk := s.skills(w)
	if sk == nil {
		return
	}
	var b protocol.SkillInstall
	if err := readBody(r, &b, true); err != nil || b.Dir == "" {
		s.fail(w, http.StatusBadRequest, errors.New(`send {"dir": "/the/skill/folder"}`))
		return
	}
	info, err := sk.InstallSkill(r.Context(), b.Dir)
	if err != nil {
		s.fail(w, statusOf(err), err)
		return
	}
	writeJSON(w, http.StatusOK, info)
}

// Skills is the owner's skills over its local channel (the /api/skills
// routes), so `quire skills list` says what the window or `quire serve`
// offers: availability judged against the MCP servers it runs.
func (l *Local) Skills() host.Skills { return localSkills{l} }

type localSkills struct{ l *Local }

func (s localSkills) SkillList(ctx context.Context) (protocol.SkillList, error) {
	return call[protocol.SkillList](ctx, s.l, http.MethodGet, "/api/skills", nil)
}

func (s localSkills) SetSkillEnabled(ctx context.Context, name string, on bool) error {
	return s.l.do(ctx, http.MethodPost, "/api/skills/"+url.PathEscape(name)+"/enabled", struct {
		Enabled bool `json:"enabled"`
	}{on}, nil)
}

func (s localSkills) InstallSkill(ctx context.Context, dir string) (protocol.SkillInfo, error) {
	return call[protocol.SkillInfo](ctx, s.l, http.MethodPost, "/api/skills/install", protocol.SkillInstall{Dir: dir})
}

var _ host.Skills = localSkills{}
