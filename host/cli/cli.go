// Package cli is the terminal host: the subcommands `quire doctor`,
// `sessions`, `replay`, `export`, `index`, `search`, `eval`, `models`, `pull`,
// `organise`, `tasks`, `evolve`, `mcp`, `run` and `chat` (host/tui). main reads the flags
// and hands a command here with the composition root's parts.
//
// It speaks kernel/protocol and the ports of package host, like every
// host. It must never import kernel/store, kernel/runtime, kernel/core, a
// provider, rag, library, memory, Wails or the composition root
// (assembly): the parts arrive through Env. It may import eval, which
// plays scenarios against a kernel the composition root builds.
package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"

	"quire/config"
	"quire/doctor"
	"quire/eval"
	"quire/host"
	"quire/kernel/protocol"
)

// Parts are what a command needs of the assembled parts.
type Parts interface {
	Kernel() protocol.Kernel
	Doctor(ctx context.Context) doctor.Report
	// Calls rebuilds a session's model calls from the log; its Request is
	// what `replay -request` prints, and what the inspector copies.
	Calls() host.Calls
	Index(ctx context.Context) (host.Index, error)
	// Models is the models screen's back end (it needs only Ollama).
	Models() host.Models
	// Batches is the task queue (nil when it is not available).
	Batches() host.Batches
	// Evolution is the candidate improvements (nil when not available).
	Evolution() host.Evolution
	// MCP is the MCP servers (nil when they are not available): a reader's
	// has the configuration, an owner's runs them.
	MCP() host.MCP
	// Skills are the installed skill packages (nil when not available).
	Skills() host.Skills
	// Standing is the standing tasks (nil when not available).
	Standing() host.Standing
	Close()
}

// Env is what main gives a command.
type Env struct {
	Stdin          io.Reader // `quire search -json -` reads its queries here
	Stdout, Stderr io.Writer
	Log            *slog.Logger
	Settings       config.Config
	// Read opens the parts as a reader: the store read-only, no runtime
	// loop, no recovery, no write. Own opens them as the data folder's
	// owner; it fails with a *datadir.InUseError while another process
	// owns the folder.
	Read, Own func(ctx context.Context) (Parts, error)
	// Running is the document index of the process that owns the folder,
	// reached over its local channel (a window or `quire serve`).
	Running func(ctx context.Context) (Indexer, error)
	// RunningBatches is the task queue of the window or `quire serve`
	// that owns the folder, over its local channel (`quire organise`).
	RunningBatches func(ctx context.Context) (host.Batches, error)
	// RunningMCP is the MCP servers of the window or `quire serve` that
	// owns the folder, over its local channel (`quire mcp`).
	RunningMCP func(ctx context.Context) (host.MCP, error)
	// RunningSkills is the skills of the window or `quire serve` that owns
	// the folder, over its local channel (`quire skills list`: a skill's
	// availability as that owner judges it, against the servers it runs).
	RunningSkills func(ctx context.Context) (host.Skills, error)
	// Drive opens the data folder's kernel for a terminal conversation
	// (`quire run`, `quire chat`): the running window's or `quire serve`'s
	// through its local channel, else this process's own as the folder's
	// owner; a *datadir.InUseError when another terminal or `quire index`
	// holds the folder.
	Drive func(ctx context.Context) (host.Driver, error)
	// Eval builds a scenario's kernel (the composition root's wiring).
	Eval func(log *slog.Logger) eval.Builder
	// Scenarios is the eval set shipped in the binary (evals/*.yaml).
	Scenarios fs.FS
}

// Command is one subcommand with its flags registered.
type Command struct {
	name string
	run  func(ctx context.Context, args []string, env Env) int
}

// Names are the subcommands this package runs.
var Names = []string{"doctor", "sessions", "replay", "export", "index", "search", "eval", "models", "pull", "organise", "evolve", "mcp", "run", "chat", "skills", "tasks"}

// Lookup registers the flags of the subcommand name on fset and returns
// it, or nil when there is no such subcommand.
func Lookup(name string, fset *flag.FlagSet) *Command {
	var run func(ctx context.Context, args []string, env Env) int
	switch name {
	case "doctor":
		run = runDoctor
	case "sessions":
		run = runSessions
	case "replay":
		o := &replayOptions{}
		o.register(fset)
		run = o.run
	case "export":
		o := &exportOptions{}
		o.register(fset)
		run = o.run
	case "index":
		run = runIndex
	case "search":
		o := &searchOptions{}
		o.register(fset)
		run = o.run
	case "eval":
		o := &evalOptions{}
		o.register(fset)
		run = o.run
	case "models":
		o := &modelsOptions{}
		o.register(fset)
		run = o.run
	case "skills":
		o := &skillsOptions{}
		o.register(fset)
		run = o.run
	case "pull":
		run = runPull
	case "run":
		o := &runOptions{}
		o.register(fset)
		run = o.run
	case "chat":
		o := &chatOptions{}
		o.register(fset)
		run = o.run
	case "organise":
		o := &organiseOptions{}
		o.register(fset)
		run = o.run
	case "tasks":
		o := &tasksOptions{}
		o.register(fset)
		run = o.run
	case "evolve":
		o := &evolveOptions{}
		o.register(fset)
		run = o.run
	case "mcp":
		o := &mcpOptions{}
		o.register(fset)
		run = o.run
	default:
		return nil
	}
	return &Command{name: name, run: run}
}

// Run runs the command with its positional arguments and returns the exit
// status: 0 done, 1 failed, 2 a usage error.
func (c *Command) Run(ctx context.Context, args []string, env Env) int { return c.run(ctx, args, env) }

func runDoctor(ctx context.Context, _ []string, env Env) int {
	p, err := env.Read(ctx)
	if err != nil {
		fmt.Fprintln(env.Stdout, "FAIL", err)
		return 1
	}
	defer p.Close()
	report := p.Doctor(ctx)
	for _, line := range report.Lines() {
		fmt.Fprintln(env.Stdout, line)
	}
	if !report.OK {
		return 1
	}
	return 0
}

func runSessions(ctx context.Context, _ []string, env Env) int {
	p, err := env.Read(ctx)
	if err != nil {
		fmt.Fprintln(env.Stderr, "quire:", err)
		return 1
	}
	defer p.Close()
	list, err := p.Kernel().Sessions(ctx)
	if err != nil {
		fmt.Fprintln(env.Stderr, "quire:", err)
		return 1
	}
	printSessions(env.Stdout, list)
	return 0
}

// printSessions is a line per conversation; a title (a message's first
// words, a rename from a page) is escaped as everything a terminal host
// prints of what it did not write itself (host.Visible).
func printSessions(w io.Writer, list []protocol.Session) {
	for _, x := range list {
		fmt.Fprintf(w, "%s\t%s\t%d events\t%s\t%s\n", x.ID, x.UpdatedAt.Local().Format("2006-01-02 15:04"), x.LastSeq+1, kindName(x.Kind), host.Visible(x.Title))
	}
}

// kindName is a session's kind as `quire sessions` lists it: every session
// is listed, a batch worker's too, so the kind tells them apart.
func kindName(kind string) string {
	if kind == "" {
		return "chat"
	}
	return kind
}
