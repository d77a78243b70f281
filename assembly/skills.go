package assembly

import (
	"context"
	"fmt"
	"path/filepath"

	"quire/config"
	"quire/evolve"
	"quire/host"
	"quire/kernel/protocol"
	"quire/kernel/provider/ollama"
	"quire/kernel/runtime"
	"quire/skills"
)

var _ skills.Evolved = (*evolve.Store)(nil)

// SkillsFolder is where the user's skills live, under the data folder.
const SkillsFolder = "skills"

// openSkills makes the catalog of skills (shipped, and the user's folder)
// and offers it to the chats' runtime: load_skill and the listing in the
// system text. The queue's workers are not offered skills: a worker's task
// is one note, and its tools are fixed by the coordinator.
func (p *Parts) openSkills(cfg config.Config, models func() modelCaps) []runtime.Option {
	cat, err := skills.New(skills.Builtin(), filepath.Join(cfg.DataDir, SkillsFolder), func(ctx context.Context) skills.State {
		return p.skillState(ctx, models())
	}, p.log)
	if err != nil {
		// The shipped skills are tested: this is a build fault, said once.
		p.log.Error("the shipped skills could not be read; skills are off", "err", err)
		return nil
	}
	if p.evo != nil {
		// The skill candidates the user activated (issue 20), listed as
		// skills of source evolution: an Owner's, which has the store.
		cat.SetEvolved(p.evo)
	}
	p.skills = cat
	return []runtime.Option{runtime.WithTools(cat), runtime.WithContributors(cat.Contributor())}
}

// openReaderSkills gives a Reader the catalog too (`quire skills`): it
// reads folders and settings and writes no log, and a Reader asks Ollama
// about the model through a catalog of its own.
func (p *Parts) openReaderSkills(cfg config.Config) {
	caps := ollama.NewCatalog(p.ollama)
	p.openSkills(cfg, func() modelCaps { return caps })
}

// modelCaps is what availability asks of Ollama (ollama.Catalog, cached).
type modelCaps interface {
	Capabilities(ctx context.Context, model string) ([]string, error)
}

// skillState is what a skill's availability is judged against: the
// settings now, the chat model's capabilities (Ollama's, cached by the
// catalog; unknown when Ollama does not answer) and the MCP servers.
func (p *Parts) skillState(ctx context.Context, models modelCaps) skills.State {
	cfg := p.settings.Get()
	st := skills.State{Disabled: cfg.Skills.Disabled, NotesDir: cfg.NotesDir, Servers: p.skillServers}
	if models != nil {
		if caps, err := models.Capabilities(ctx, cfg.Model); err == nil {
			st.ModelCaps = caps
		}
	}
	return st
}

// Skills is Settings → Skills' back end, or nil (a nil interface) when
// skills are off (a Reader, or a database that did not open).
func (p *Parts) Skills() host.Skills {
	if p.skills == nil {
		return nil
	}
	return skillsPanel{p.skills, p.settings}
}

type skillsPanel struct {
	cat      *skills.Catalog
	settings *config.Store
}

func (s skillsPanel) SkillList(ctx context.Context) (protocol.SkillList, error) {
	entries, broken := s.cat.List(ctx)
	out := protocol.SkillList{Skills: []protocol.SkillInfo{}, Problems: []protocol.SkillProblem{}, Folder: s.cat.UserDir()}
	for _, e := range entries {
		out.Skills = append(out.Skills, skillInfo(e))
	}
	for _, b := range broken {
		out.Problems = append(out.Problems, protocol.SkillProblem{Folder: b.Folder, Reason: b.Reason})
	}
	return out, nil
}

func (s skillsPanel) SetSkillEnabled(ctx context.Context, name string, on bool) error {
	if _, ok := s.cat.Find(ctx, name); !ok {
		return protocol.Refusal(protocol.ErrNotFound, skills.ErrUnknownSkill,
			fmt.Sprintf("No skill named %q is installed: reload the list of skills.", name))
	}
	return s.settings.SetSkillEnabled(name, on)
}

func (s skillsPanel) InstallSkill(ctx context.Context, dir string) (protocol.SkillInfo, error) {
	sk, err := s.cat.Install(dir)
	if err != nil {
		return protocol.SkillInfo{}, err
	}
	e, ok := s.cat.Find(ctx, sk.Name)
	if !ok {
		return protocol.SkillInfo{}, fmt.Errorf("the skill %s was copied but is not read back: %w", sk.Name, skills.ErrUnknownSkill)
	}
	return skillInfo(e), nil
}

func skillInfo(e skills.Entry) protocol.SkillInfo {
	info := protocol.SkillInfo{
		Name: e.Name, Description: e.Description, When: e.When, Source: string(e.Source), Replaces: e.Replaces,
		Enabled: e.Enabled, Unavailable: e.Unavailable, Files: append([]string{}, e.Files...),
		Requires: protocol.SkillRequires{Model: []string{}, MCP: append([]string{}, e.Requires.MCP...), Notes: e.Requires.Notes},
	}
	if !e.Enabled {
		info.Unavailable = "" // off: why it could not be offered is beside the point
	}
	for _, c := range e.Requires.Model {
		info.Requires.Model = append(info.Requires.Model, string(c))
	}
	return info
}
