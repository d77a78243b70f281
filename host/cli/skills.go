package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"

	"quire/host"
	"quire/internal/datadir"
	"quire/kernel/protocol"
)

// skillsOptions are the flags of `quire skills`.
type skillsOptions struct{ json bool }

func (o *skillsOptions) register(fset *flag.FlagSet) {
	fset.BoolVar(&o.json, "json", false, "print JSON (protocol.SkillList; with add, protocol.SkillInfo)")
}

const skillsUsage = "usage: quire skills list [-json] | quire skills add DIR"

// run is `quire skills list`: every installed skill, where it comes from,
// whether it is on and why it is not offered, then the folders of the
// skills folder that are not skills; and `quire skills add DIR`, which
// copies a skill folder into the skills folder (Settings → Skills'
// "Install from folder"). Neither writes to the database.
func (o *skillsOptions) run(ctx context.Context, args []string, env Env) int {
	if len(args) == 0 || (args[0] == "list" && len(args) != 1) || (args[0] == "add" && len(args) != 2) ||
		(args[0] != "list" && args[0] != "add") {
		fmt.Fprintln(env.Stderr, skillsUsage)
		return exitUsage
	}
	sk, h, err := ownedSkills(ctx, env, args[0])
	if err != nil {
		fmt.Fprintln(env.Stderr, "quire:", err)
		return exitFailed
	}
	if sk != nil {
		fmt.Fprintf(env.Stderr, "As %s offers them.\n", h)
	} else {
		p, err := env.Read(ctx)
		if err != nil {
			fmt.Fprintln(env.Stderr, "quire:", err)
			return exitFailed
		}
		defer p.Close()
		sk = p.Skills()
	}
	if sk == nil {
		fmt.Fprintln(env.Stderr, "quire: skills are not available in this Quire; run quire doctor")
		return exitFailed
	}
	var out any
	if args[0] == "add" {
		info, err := sk.InstallSkill(ctx, args[1])
		if err != nil {
			fmt.Fprintln(env.Stderr, "quire:", err)
			return exitFailed
		}
		out = info
		if !o.json {
			fmt.Fprintf(env.Stdout, "Installed %s: %s\n", info.Name, info.Description)
			if info.Replaces {
				fmt.Fprintf(env.Stdout, "It replaces the shipped skill of that name.\n")
			}
			if info.Unavailable != "" {
				fmt.Fprintln(env.Stdout, info.Unavailable)
			}
			return exitOK
		}
	} else {
		list, err := sk.SkillList(ctx)
		if err != nil {
			fmt.Fprintln(env.Stderr, "quire:", err)
			return exitFailed
		}
		out = list
		if !o.json {
			printSkills(env.Stdout, list.Skills, list.Folder)
			for _, b := range list.Problems {
				fmt.Fprintf(env.Stdout, "not a skill: %s: %s\n", b.Folder, b.Reason)
			}
			return exitOK
		}
	}
	enc := json.NewEncoder(env.Stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return exitFailed
	}
	return exitOK
}

func printSkills(w io.Writer, skills []protocol.SkillInfo, folder string) {
	if len(skills) == 0 {
		fmt.Fprintln(w, "No skills installed.")
	}
	for _, sk := range skills {
		state := "on"
		switch {
		case !sk.Enabled:
			state = "off"
		case sk.Unavailable != "":
			state = "unavailable"
		}
		from := sk.Source
		if sk.Replaces {
			from += ", replaces the shipped one"
		}
		fmt.Fprintf(w, "%s (%s, %s)\n  %s\n", sk.Name, state, from, sk.Description)
		if sk.Unavailable != "" {
			fmt.Fprintf(w, "  %s\n", sk.Unavailable)
		}
		var needs []string
		for _, c := range sk.Requires.Model {
			needs = append(needs, "a model with "+c)
		}
		for _, m := range sk.Requires.MCP {
			needs = append(needs, "the MCP server "+m)
		}
		if sk.Requires.Notes {
			needs = append(needs, "a notes folder")
		}
		if len(needs) > 0 {
			fmt.Fprintf(w, "  needs %s\n", strings.Join(needs, ", "))
		}
	}
	fmt.Fprintf(w, "Your skills folder: %s\n", folder)
}

// ownedSkills is the skills of the window or `quire serve` that owns the
// data folder, for a list: whether a skill that needs an MCP server is
// available is theirs to say, as they run the servers (this process runs
// none). nil when no such owner runs, or for add, which copies into the
// folder itself.
func ownedSkills(ctx context.Context, env Env, sub string) (host.Skills, datadir.Holder, error) {
	h, live, err := liveOwner(env)
	if err != nil || sub != "list" || !live || env.RunningSkills == nil {
		return nil, h, err
	}
	sk, err := env.RunningSkills(ctx)
	return sk, h, err
}
