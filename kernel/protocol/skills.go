package protocol

// SkillInfo is one installed skill as Settings → Skills and `quire skills
// list` show it: what it is, where it comes from, whether it is on, and
// why it is not offered when it is on but cannot be.
type SkillInfo struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	When        string `json:"when,omitempty"`
	// Source is builtin (shipped in Quire), user (a folder in the
	// skills folder) or evolution (a skill candidate activated in the
	// Evolution panel, "Improvements").
	Source string `json:"source"`
	// Replaces: a user skill named like a shipped one, or an activated
	// candidate named like a shipped or user one, which it replaces.
	Replaces bool `json:"replaces,omitempty"`
	Enabled  bool `json:"enabled"`
	// Unavailable is the sentence saying why the skill is not offered and
	// what to do ("" when it is offered, or off).
	Unavailable string        `json:"unavailable,omitempty"`
	Requires    SkillRequires `json:"requires"`
	Files       []string      `json:"files"`
}

// SkillRequires is what a skill declares it needs.
type SkillRequires struct {
	Model []string `json:"model"` // model capabilities: tools, vision, thinking
	MCP   []string `json:"mcp"`   // MCP servers by name, running
	Notes bool     `json:"notes"` // a notes folder
}

// SkillProblem is a folder of the skills folder that is not a valid skill,
// with the sentence saying what to fix.
type SkillProblem struct {
	Folder string `json:"folder"`
	Reason string `json:"reason"`
}

// SkillList is every installed skill by name, the folders that are not
// valid skills, and the folder the user's skills live in.
type SkillList struct {
	Skills   []SkillInfo    `json:"skills"`
	Problems []SkillProblem `json:"problems"`
	Folder   string         `json:"folder"`
}

// SkillToggle turns one skill on or off (the route's body).
type SkillToggle struct {
	Name    string `json:"name"`
	Enabled bool   `json:"enabled"`
}

// SkillInstall copies a skill folder into the skills folder (the route's
// body): Dir is the folder on this machine.
type SkillInstall struct {
	Dir string `json:"dir"`
}
