package cli

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/charmbracelet/x/term"

	"quire/host"
	"quire/host/tui"
)

// chatOptions are the flags of `quire chat`.
type chatOptions struct {
	session string
}

func (o *chatOptions) register(fset *flag.FlagSet) {
	fset.StringVar(&o.session, "session", "", "open this conversation instead of starting one")
}

// run is `quire chat`: a conversation in the terminal (host/tui) on the
// data folder's kernel, as `quire run` reaches it. Its questions are asked
// here, not in the window. Plain lines when stdin or stdout is not a
// terminal.
func (o *chatOptions) run(ctx context.Context, args []string, env Env) int {
	if len(args) > 0 {
		fmt.Fprintln(env.Stderr, "usage: quire chat [-session ID]   (type your messages once it starts)")
		return ExitUsage
	}
	return withDriver(ctx, env, func(d host.Driver) int {
		return tui.Run(ctx, d, tui.Options{Session: o.session, In: env.Stdin, Out: env.Stdout, Terminal: isTerminal(env.Stdin) && isTerminal(env.Stdout)})
	})
}

func isTerminal(f any) bool {
	file, ok := f.(*os.File)
	return ok && term.IsTerminal(file.Fd())
}
