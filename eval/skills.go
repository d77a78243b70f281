package eval

import "path/filepath"

// SkillsSetup is the skill packages a scenario starts with, beside the
// ones Quire ships: folders put in the data folder's skills folder, and the
// names Settings has turned off.
type SkillsSetup struct {
	// Installed are files under the skills folder, by path from it
	// ("calendar-prep/SKILL.md").
	Installed []File `yaml:"installed"`
	// Disabled are the skills turned off in Settings.
	Disabled []string `yaml:"disabled"`
}

// setupSkills writes the scenario's installed skills into the data folder
// (where the composition root reads the user's skills: app.SkillsFolder)
// and carries the disabled names to the kernel's settings.
func setupSkills(s SkillsSetup, env *Env) error {
	env.DisabledSkills = s.Disabled
	if len(s.Installed) == 0 {
		return nil
	}
	_, err := writeFiles(filepath.Join(env.DataDir, "skills"), s.Installed)
	return err
}
