package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"quire/host"
	"quire/internal/datadir"
	"quire/kernel/protocol"
)

// tasksHelp is each `quire tasks` command's help, in the order usage
// lists them (`quire tasks help COMMAND` prints one).
var tasksHelp = []struct{ name, line, help string }{
	{"list", "quire tasks list [-json]",
		"Each standing task: its schedule, whether it is paused, flagged or waiting for your review,\nits last and next firing, and what its last batch proposed and what you kept."},
	{"add", "quire tasks add -folder F [-instruction TEXT] [-notes N] [-calls N] [-tokens N] NAME SCHEDULE",
		"A new standing task: an organise batch over the folder F on SCHEDULE, which is one of\n  daily HH:MM | weekly DAY HH:MM | over N (more than N notes in F) | lands (a note lands in F).\nIts batch only proposes and waits for your one review, like `quire organise`;\n-notes, -calls and -tokens bound one firing (the notes it takes, model calls, tokens)."},
	{"pause", "quire tasks pause ID", "The task stops firing until resumed; a batch it started still waits for your review."},
	{"resume", "quire tasks resume ID", "The task fires again from its next slot."},
	{"remove", "quire tasks remove ID", "The task is deleted; its past firings stay in the log, its batches in the review."},
	{"run-now", "quire tasks run-now ID", "Fire the task now (paused or not); its batch waits for your review (`quire organise`)."},
}

type tasksOptions struct {
	json                 bool
	folder, instruction  string
	notes, calls, tokens int
}

func (o *tasksOptions) register(fs *flag.FlagSet) {
	fs.BoolVar(&o.json, "json", false, "list: print JSON (protocol.StandingSummary, one array)")
	fs.StringVar(&o.folder, "folder", "", "add: the folder the task organises, inside the notes folder (like inbox)")
	fs.StringVar(&o.instruction, "instruction", "", "add: what every note's worker is told, like \"receipts go under finance/receipts\"")
	fs.IntVar(&o.notes, "notes", 50, "add: the most notes one firing takes")
	fs.IntVar(&o.calls, "calls", 400, "add: the most model calls one firing may make")
	fs.IntVar(&o.tokens, "tokens", 3_000_000, "add: the most tokens one firing may spend")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), tasksUsage())
		fs.PrintDefaults()
	}
}

func tasksUsage() string {
	var b strings.Builder
	for i, h := range tasksHelp {
		if i == 0 {
			b.WriteString("usage: ")
		} else {
			b.WriteString("\n       ")
		}
		b.WriteString(h.line)
	}
	b.WriteString("\n       quire tasks help COMMAND")
	return b.String()
}

// run is `quire tasks`: the standing tasks, as the Standing tasks panel
// shows them. It owns the data folder for the command's life; while the
// window or serve owns it, their panel is the place.
func (o *tasksOptions) run(ctx context.Context, args []string, env Env) int {
	if len(args) >= 1 && args[0] == "help" {
		return tasksHelpFor(args[1:], env)
	}
	if !validTasks(args) {
		fmt.Fprintln(env.Stderr, tasksUsage())
		return exitUsage
	}
	p, err := env.Own(ctx)
	var inUse *datadir.InUseError
	switch {
	case errors.As(err, &inUse):
		fmt.Fprintf(env.Stderr, "quire: %s owns this data folder; use its Standing tasks panel, or close it and run this again.\n", inUse.Holder)
		return exitFailed
	case err != nil:
		fmt.Fprintln(env.Stderr, "quire:", err)
		return exitFailed
	}
	defer p.Close()
	s := p.Standing()
	if s == nil {
		fmt.Fprintln(env.Stderr, "quire: standing tasks are not available (they need the task queue); `quire doctor` says why.")
		return exitFailed
	}
	if err := o.do(ctx, s, args, env); err != nil {
		fmt.Fprintln(env.Stderr, "quire:", err)
		return exitFailed
	}
	return exitOK
}

func tasksHelpFor(args []string, env Env) int {
	for _, h := range tasksHelp {
		if len(args) == 1 && args[0] == h.name {
			fmt.Fprintf(env.Stdout, "usage: %s\n\n%s\n", h.line, h.help)
			return exitOK
		}
	}
	fmt.Fprintln(env.Stderr, tasksUsage())
	return exitUsage
}

// validTasks checks the command and its count of arguments.
func validTasks(args []string) bool {
	if len(args) == 0 {
		return false
	}
	switch args[0] {
	case "list":
		return len(args) == 1
	case "pause", "resume", "remove", "run-now":
		return len(args) == 2
	case "add":
		return len(args) >= 3
	}
	return false
}

func (o *tasksOptions) do(ctx context.Context, s host.Standing, args []string, env Env) error {
	id := ""
	if len(args) == 2 {
		id = args[1]
	}
	var sum protocol.StandingSummary
	var err error
	switch args[0] {
	case "list":
		list, err := s.List(ctx)
		if err != nil {
			return err
		}
		if o.json {
			enc := json.NewEncoder(env.Stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(list)
		}
		printTasks(env.Stdout, list)
		return nil
	case "add":
		sched, err := parseSchedule(args[2:])
		if err != nil {
			return err
		}
		sum, err = s.Add(ctx, protocol.StandingTask{Name: args[1], Folder: o.folder, Instruction: o.instruction, Schedule: sched,
			Budget: protocol.StandingBudget{Notes: o.notes, ModelCalls: o.calls, Tokens: o.tokens}})
		if err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "Added %s (%s): %s, organising %s. Its batches wait for your review.\n", sum.Task.ID, host.Visible(sum.Task.Name), sum.Schedule, host.Visible(sum.Task.Folder))
	case "pause", "resume":
		if sum, err = s.SetPaused(ctx, id, args[0] == "pause"); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "%s %s.\n", host.Visible(sum.Task.Name), map[bool]string{true: "is paused", false: "fires again, " + sum.Schedule}[sum.Task.Paused])
	case "remove":
		if err := s.Remove(ctx, id); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "Removed %s.\n", id)
	case "run-now":
		f, err := s.RunNow(ctx, id)
		if err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "Started batch %s; it waits for your review: quire organise shows it when it is ready.\n", f.Batch)
	}
	return nil
}

// parseSchedule reads the words of a schedule: "daily 18:30", "weekly
// monday 09:00", "over 20", "lands". Standing checks what they say.
func parseSchedule(words []string) (protocol.StandingSchedule, error) {
	bad := errors.New(`a schedule is "daily HH:MM", "weekly DAY HH:MM", "over N" or "lands"`)
	s := protocol.StandingSchedule{Kind: strings.ToLower(words[0])}
	switch {
	case s.Kind == protocol.StandingDaily && len(words) == 2:
		s.At = words[1]
	case s.Kind == protocol.StandingWeekly && len(words) == 3:
		s.Weekday, s.At = strings.ToLower(words[1]), words[2]
	case s.Kind == protocol.StandingOver && len(words) == 2:
		n, err := strconv.Atoi(words[1])
		if err != nil {
			return s, bad
		}
		s.More = n
	case s.Kind == protocol.StandingLands && len(words) == 1:
	default:
		return s, bad
	}
	return s, nil
}

// printTasks is a block per task; names and folders are the user's words,
// escaped as everything a terminal host prints of what it did not write.
func printTasks(w io.Writer, list []protocol.StandingSummary) {
	if len(list) == 0 {
		fmt.Fprintln(w, "No standing tasks. `quire tasks add` makes one.")
		return
	}
	for _, s := range list {
		var marks []string
		if s.Task.Paused {
			marks = append(marks, "paused")
		}
		if s.Waiting {
			marks = append(marks, "waiting for your review")
		}
		if s.Flagged {
			marks = append(marks, "flagged: you kept nothing of its last batches; edit or remove it")
		}
		fmt.Fprintf(w, "%s\t%s\t%s, organising %s", s.Task.ID, host.Visible(s.Task.Name), s.Schedule, host.Visible(s.Task.Folder))
		if len(marks) > 0 {
			fmt.Fprintf(w, " (%s)", strings.Join(marks, "; "))
		}
		fmt.Fprintln(w)
		if s.Last != nil {
			fmt.Fprintf(w, "\tlast: %s, %s", time.UnixMilli(s.Last.StartedMs).Local().Format("2006-01-02 15:04"), s.Last.Step)
			if s.Last.Why != "" {
				fmt.Fprintf(w, " (%s)", host.Visible(s.Last.Why))
			}
			if s.Last.Error != "" {
				fmt.Fprintf(w, ": %s", host.Visible(s.Last.Error))
			}
			fmt.Fprintln(w)
		}
		if s.Batch != nil {
			fmt.Fprintf(w, "\tits batch %s is %s: %d proposed, %d kept\n", s.Batch.ID, s.Batch.State, s.Proposed, s.Kept)
		}
		if s.NextMs > 0 {
			fmt.Fprintf(w, "\tnext: %s\n", time.UnixMilli(s.NextMs).Local().Format("2006-01-02 15:04"))
		}
	}
}
