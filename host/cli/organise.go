package cli

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"quire/host"
	"quire/internal/datadir"
	"quire/kernel/protocol"
)

// The answers `quire organise -approve` gives in place of the user's.
const (
	approveAsk  = "ask"  // print the list and ask y/n once on standard input
	approveNone = "none" // print the list and apply nothing (the batch is cancelled)
	// approveAll ("all", shared with `quire run -approve`) applies every proposal.
)

type organiseOptions struct {
	approve string
	undo    string
}

func (o *organiseOptions) register(fs *flag.FlagSet) {
	fs.StringVar(&o.approve, "approve", approveAsk, "the one answer for the batch: ask (y/n on standard input), none or all")
	fs.StringVar(&o.undo, "undo", "", "undo the applied batch with this id, as one")
}

// run is `quire organise FOLDER`: one task per note of the folder, worked
// through by the batch's workers, then the whole list and one question. A
// batch of the folder left unfinished (Quire stopped) is taken up again,
// not started anew.
func (o *organiseOptions) run(ctx context.Context, args []string, env Env) int {
	if !slices.Contains([]string{approveAsk, approveNone, approveAll}, o.approve) || (len(args) != 1) == (o.undo == "") {
		fmt.Fprintln(env.Stderr, "usage: quire organise [-approve ask|none|all] FOLDER   (a folder inside the notes folder, like inbox)")
		fmt.Fprintln(env.Stderr, "       quire organise -undo BATCH")
		return 2
	}
	p, err := env.Own(ctx)
	var inUse *datadir.InUseError
	var b host.Batches
	switch {
	case errors.As(err, &inUse):
		if b = o.throughOwner(ctx, inUse.Holder, env); b == nil {
			return 1
		}
	case err != nil:
		fmt.Fprintln(env.Stderr, "quire:", err)
		return 1
	default:
		defer p.Close()
		if b = p.Batches(); b == nil {
			fmt.Fprintln(env.Stderr, "quire: the task queue is not available; `quire doctor` says why.")
			return 1
		}
	}
	return o.organise(ctx, b, args, env)
}

// throughOwner is the task queue of the window or `quire serve` that owns
// the folder, over its local channel: its workers organise the folder, and
// the review is asked here. Nil (said why) when another kind of process
// holds the folder or the owner does not answer.
func (o *organiseOptions) throughOwner(ctx context.Context, h datadir.Holder, env Env) host.Batches {
	if h.Kind != datadir.Window && h.Kind != datadir.Serve || env.RunningBatches == nil {
		fmt.Fprintf(env.Stderr, "quire: %s holds this data folder; run this again when it has finished.\n", h)
		return nil
	}
	b, err := env.RunningBatches(ctx)
	if err == nil {
		_, err = b.List(ctx) // does the owner answer, and has it a task queue?
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "quire: this data folder is owned by %s, which did not answer (%v). If it is stuck, end it and run this again.\n", h, err)
		return nil
	}
	fmt.Fprintf(env.Stderr, "This data folder is owned by %s; its workers organise the folder.\n", h)
	return b
}

// organise is the batch's run on b, the own queue or the owner's.
func (o *organiseOptions) organise(ctx context.Context, b host.Batches, args []string, env Env) int {
	if o.undo != "" {
		done, err := b.Undo(ctx, o.undo)
		if err != nil {
			fmt.Fprintln(env.Stderr, "quire:", err)
			return 1
		}
		fmt.Fprintf(env.Stdout, "Undone: %s (%d notes put back).\n", done.Title, done.Applied)
		return 0
	}
	batch, err := resumeOrStart(ctx, b, args[0])
	if err != nil {
		fmt.Fprintln(env.Stderr, "quire:", err)
		return 1
	}
	fmt.Fprintf(env.Stderr, "%s: %d workers (batch %s)\n", batch.Title, batch.Workers, batch.ID)
	if batch, err = follow(ctx, b, batch, env.Stderr); err != nil {
		if ctx.Err() != nil {
			fmt.Fprintf(env.Stderr, "\nstopped; what the workers finished is kept: `quire organise %s` goes on from there.\n", batch.Folder)
			return 130
		}
		fmt.Fprintln(env.Stderr, "quire:", err)
		return 1
	}
	review, err := b.Get(ctx, batch.ID)
	if err != nil {
		fmt.Fprintln(env.Stderr, "quire:", err)
		return 1
	}
	printReview(env.Stdout, review)
	yes := o.approve == approveAll
	if o.approve == approveAsk && len(review.Items) > 0 {
		fmt.Fprintf(env.Stdout, "Apply these %d changes? [y/N] ", len(review.Items))
		yes = readYes(env.Stdin)
	}
	if !yes || len(review.Items) == 0 {
		if _, err := b.Cancel(ctx, batch.ID); err != nil {
			fmt.Fprintln(env.Stderr, "quire:", err)
			return 1
		}
		fmt.Fprintln(env.Stdout, "Nothing was changed.")
		return 0
	}
	applied, err := b.Apply(ctx, batch.ID, protocol.BatchDecision{Items: review.Items})
	if err != nil {
		fmt.Fprintln(env.Stderr, "quire:", err)
		return 1
	}
	fmt.Fprintf(env.Stdout, "Applied: %d notes changed. `quire organise -undo %s` puts them all back.\n", applied.Applied, applied.ID)
	return 0
}

// resumeOrStart takes up the folder's unfinished batch, or starts one.
func resumeOrStart(ctx context.Context, b host.Batches, folder string) (protocol.Batch, error) {
	list, err := b.List(ctx)
	if err != nil {
		return protocol.Batch{}, err
	}
	clean := protocol.BatchFolder(folder)
	for _, x := range list {
		if x.Folder != clean {
			continue
		}
		switch x.State {
		case protocol.BatchPaused:
			return b.Resume(ctx, x.ID)
		case protocol.BatchRunning, protocol.BatchReviewing:
			return x, nil
		}
	}
	return b.Start(ctx, folder)
}

// follow prints each task's end, in the batch's order, until the batch is
// reviewing (or ended). The stream coalesces a batch's changes for a slow
// reader, so each change is a cue to read the tasks, not the list of them.
func follow(ctx context.Context, b host.Batches, batch protocol.Batch, out io.Writer) (protocol.Batch, error) {
	watch, stop := context.WithCancel(ctx)
	defer stop()
	stream := b.Watch(watch)
	told := map[string]bool{}
	for {
		r, err := b.Get(ctx, batch.ID)
		if err != nil {
			return batch, err
		}
		batch = r.Batch
		for _, k := range r.Tasks {
			if k.State != protocol.TaskDone && k.State != protocol.TaskFailed || told[k.ID] {
				continue
			}
			told[k.ID] = true
			fmt.Fprintf(out, "[%d/%d] %s", len(told), batch.Total, k.Note)
			if k.State == protocol.TaskFailed {
				fmt.Fprintf(out, ": failed, %s", host.Visible(k.Error))
			}
			fmt.Fprintln(out)
		}
		if batch.State != protocol.BatchRunning && batch.State != protocol.BatchPaused {
			break
		}
		for changed := false; !changed; {
			p, ok := <-stream
			if !ok {
				if ctx.Err() != nil {
					return batch, context.Cause(ctx)
				}
				return batch, errProgressEnded
			}
			changed = p.Batch.ID == batch.ID
		}
		if ctx.Err() != nil {
			return batch, context.Cause(ctx)
		}
	}
	if batch.State != protocol.BatchReviewing {
		return batch, fmt.Errorf("the batch is %s: %s", batch.State, batch.Error)
	}
	return batch, nil
}

// errProgressEnded: the batch's progress stream closed while the command
// still ran (the owner went away).
var errProgressEnded = errors.New("the batch's progress stopped coming (did the window or quire serve close?); `quire organise` again goes on from where it is")

// printReview is the whole list the one question is about, with what
// would not read as itself escaped (host.Visible): a worker's reason or a
// tag must not run as the terminal's escape sequences and rewrite the list
// the yes is about.
func printReview(w io.Writer, r protocol.BatchReview) {
	var out strings.Builder
	defer func() { io.WriteString(w, host.Visible(out.String())) }()
	fmt.Fprintf(&out, "%s: %d proposals, %d failed\n", r.Batch.Title, len(r.Items), r.Batch.Failed)
	for i, it := range r.Items {
		to := it.To
		if to == it.From || to == "" {
			to = "(stays)"
		}
		fmt.Fprintf(&out, "%3d. %s → %s", i+1, it.From, to)
		if len(it.Tags) > 0 {
			fmt.Fprintf(&out, "  tags: %s", strings.Join(it.Tags, ", "))
		}
		if len(it.Links) > 0 {
			fmt.Fprintf(&out, "  links: %s", strings.Join(it.Links, ", "))
		}
		fmt.Fprintf(&out, "\n     %s\n", it.Reason)
	}
	for _, k := range r.Tasks {
		if k.State == protocol.TaskFailed {
			fmt.Fprintf(&out, "  failed: %s: %s\n", k.Note, k.Error)
		}
	}
}

// readYes reads one line of at most 64 bytes: "y" or "yes" is yes.
func readYes(in io.Reader) bool {
	if in == nil {
		return false
	}
	line, _ := bufio.NewReaderSize(io.LimitReader(in, 64), 64).ReadString('\n')
	a := strings.ToLower(strings.TrimSpace(line))
	return a == "y" || a == "yes"
}
