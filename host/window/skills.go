package window

import (
	"quire/host"
	"quire/kernel/protocol"
)

// Settings → Skills' bound methods (window.go.main.App): the same port and
// sentences as `quire serve`'s /api/skills.

func (h *Host) skillsPort() (host.Skills, error) {
	if err := h.ready(); err != nil {
		return nil, err
	}
	if h.skills == nil {
		return nil, errNoSkillsHere
	}
	return h.skills, nil
}

// Skills lists the installed skills: where each comes from, whether it is
// on, why it is not offered; and the folders that are not skills.
func (h *Host) Skills() (protocol.SkillList, error) {
	s, err := h.skillsPort()
	if err != nil {
		return protocol.SkillList{}, err
	}
	return s.SkillList(h.callCtx())
}

// SetSkillEnabled turns a skill on or off for the runs that start later.
func (h *Host) SetSkillEnabled(name string, on bool) error {
	s, err := h.skillsPort()
	if err != nil {
		return err
	}
	return s.SetSkillEnabled(h.callCtx(), name, on)
}

// InstallSkill copies the skill folder dir into the skills folder.
func (h *Host) InstallSkill(dir string) (protocol.SkillInfo, error) {
	s, err := h.skillsPort()
	if err != nil {
		return protocol.SkillInfo{}, err
	}
	return s.InstallSkill(h.callCtx(), dir)
}
