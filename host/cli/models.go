package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"quire/kernel/protocol"
)

// Exit statuses of `quire models` and `quire pull` (docs in `quire help`).
const (
	exitOK          = 0
	exitFailed      = 1   // Ollama did not answer, or the pull failed (the sentence says why)
	exitUsage       = 2   // no name, or more than one
	exitInterrupted = 130 // the pull was interrupted (Ctrl-C); pulling again resumes it
)

// modelsOptions are the flags of `quire models`.
type modelsOptions struct{ json bool }

func (o *modelsOptions) register(fset *flag.FlagSet) {
	fset.BoolVar(&o.json, "json", false, "print JSON (protocol.ModelsState)")
}

// run is `quire models`: the installed models with what each can do and
// which are loaded, then the recommended ones not yet installed. It only
// reads.
func (o *modelsOptions) run(ctx context.Context, args []string, env Env) int {
	if len(args) > 0 {
		fmt.Fprintln(env.Stderr, "usage: quire models [-json]")
		return exitUsage
	}
	p, err := env.Read(ctx)
	if err != nil {
		fmt.Fprintln(env.Stderr, "quire:", err)
		return exitFailed
	}
	defer p.Close()
	st, err := p.Models().List(ctx)
	if err != nil {
		fmt.Fprintln(env.Stderr, "quire:", err)
		return exitFailed
	}
	if o.json {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(st); err != nil {
			return exitFailed
		}
	} else {
		printModels(env.Stdout, st)
	}
	if st.Error != "" {
		fmt.Fprintln(env.Stderr, "quire:", st.Error)
		return exitFailed
	}
	return exitOK
}

func printModels(w io.Writer, st protocol.ModelsState) {
	if st.Error == "" && len(st.Installed) == 0 {
		fmt.Fprintln(w, "No models installed.")
	}
	if len(st.Installed) > 0 {
		fmt.Fprintf(w, "%-32s %9s %8s  %-28s %s\n", "NAME", "SIZE", "CONTEXT", "CAN", "LOADED")
	}
	for _, m := range st.Installed {
		can := strings.Join(without(m.Capabilities, protocol.CapabilityCompletion), ", ")
		if m.Error != "" {
			can = "? (" + m.Error + ")"
		}
		ctxLen := "-"
		if m.ContextLength > 0 {
			ctxLen = fmt.Sprint(m.ContextLength)
		}
		loaded := ""
		if m.Loaded {
			loaded = "loaded"
		}
		fmt.Fprintf(w, "%-32s %9s %8s  %-28s %s\n", m.Name, sizeText(m.Size), ctxLen, can, loaded)
	}
	var missing []protocol.RecommendedModel
	for _, r := range st.Recommended {
		if !r.Installed {
			missing = append(missing, r)
		}
	}
	if len(missing) > 0 {
		fmt.Fprintln(w, "\nRecommended for note work (quire pull NAME):")
		for _, r := range missing {
			fmt.Fprintf(w, "  %-20s %-9s %8s  %s\n", r.Name, r.Role, sizeText(r.DownloadSize), r.Summary)
		}
	}
}

// without is list less the value v.
func without(list []string, v string) []string {
	out := make([]string, 0, len(list))
	for _, s := range list {
		if s != v {
			out = append(out, s)
		}
	}
	return out
}

// run is `quire pull NAME`: it pulls the model with a progress bar on
// stderr until it is installed. Ctrl-C stops it; what was downloaded is
// kept and pulling again resumes.
func runPull(ctx context.Context, args []string, env Env) int {
	if len(args) != 1 || strings.TrimSpace(args[0]) == "" {
		fmt.Fprintln(env.Stderr, "usage: quire pull NAME   (e.g. quire pull qwen3:4b)")
		return exitUsage
	}
	name := args[0]
	p, err := env.Read(ctx)
	if err != nil {
		fmt.Fprintln(env.Stderr, "quire:", err)
		return exitFailed
	}
	defer p.Close()
	models := p.Models()
	// The watch outlives an interrupt, to read how the pull ended.
	watchCtx, stopWatch := context.WithCancel(context.WithoutCancel(ctx))
	defer stopWatch()
	updates := models.Watch(watchCtx)
	if err := models.Pull(ctx, name); err != nil {
		fmt.Fprintln(env.Stderr, "quire:", err)
		return exitFailed
	}
	bar := &pullBar{statusLine: statusLine{w: env.Stderr}}
	interrupted := ctx.Done()
	for {
		select {
		case <-interrupted:
			models.CancelPull(name)
			interrupted = nil
		case u, ok := <-updates:
			if !ok {
				return exitFailed
			}
			if u.Model != name {
				continue
			}
			bar.show(u)
			if u.State == protocol.PullRunning {
				continue
			}
			bar.end()
			return pullEnded(env, u)
		}
	}
}

// pullEnded says how a pull ended and returns the exit status.
func pullEnded(env Env, u protocol.PullProgress) int {
	switch u.State {
	case protocol.PullDone:
		fmt.Fprintf(env.Stdout, "%s is installed (%s).\n", u.Model, sizeText(u.Total))
		return exitOK
	case protocol.PullCancelled:
		fmt.Fprintf(env.Stderr, "quire: the pull of %s stopped at %s of %s; `quire pull %s` resumes it.\n",
			u.Model, sizeText(u.Completed), sizeText(u.Total), u.Model)
		return exitInterrupted
	}
	fmt.Fprintln(env.Stderr, "quire:", u.Error)
	return exitFailed
}

// pullBar redraws one line: "[#####.....] 1.2 GB / 2.5 GB  31.0 MB/s  1m12s left".
type pullBar struct {
	statusLine
	rate rate
}

func (b *pullBar) show(u protocol.PullProgress) {
	if u.State != protocol.PullRunning || u.Total == 0 {
		// Nothing counted yet ("starting", "pulling manifest"): a resumed
		// pull's first counted reading already holds the bytes on disk.
		return
	}
	b.rate.add(u.AtMs, u.Completed)
	filled := int(barWidth * u.Completed / u.Total)
	line := fmt.Sprintf("[%s%s] %s / %s", strings.Repeat("#", filled), strings.Repeat(".", barWidth-filled), sizeText(u.Completed), sizeText(u.Total))
	if speed := b.rate.perSecond(); speed > 0 {
		line += fmt.Sprintf("  %s/s", sizeText(int64(speed)))
		left := time.Duration(float64(u.Total-u.Completed) / speed * float64(time.Second))
		line += fmt.Sprintf("  %s left", left.Round(time.Second))
	}
	b.draw(line)
}

// rate is the speed of a pull over its last readings (rateWindow ms of
// them), from the host's timestamps: a resumed pull's first reading
// already counts the bytes on disk, which were not downloaded now, so
// speed is the change between readings, never bytes over time since start.
type rate struct {
	at    []int64
	bytes []int64
}

const rateWindow = 5000

func (r *rate) add(atMs, bytes int64) {
	if n := len(r.bytes); n > 0 && bytes < r.bytes[n-1] {
		r.at, r.bytes = nil, nil // a new pull of the name: start again
	}
	r.at, r.bytes = append(r.at, atMs), append(r.bytes, bytes)
	for len(r.at) > 2 && atMs-r.at[1] >= rateWindow {
		r.at, r.bytes = r.at[1:], r.bytes[1:]
	}
}

// perSecond is bytes per second over the window; 0 until two readings
// apart in time.
func (r *rate) perSecond() float64 {
	n := len(r.at)
	if n < 2 || r.at[n-1] <= r.at[0] {
		return 0
	}
	return float64(r.bytes[n-1]-r.bytes[0]) * 1000 / float64(r.at[n-1]-r.at[0])
}

// sizeText says a size as Ollama does (decimal units): 2.5 GB, 274 MB.
func sizeText(n int64) string {
	units := []string{"B", "KB", "MB", "GB", "TB"}
	v, i := float64(n), 0
	for v >= 1000 && i < len(units)-1 {
		v, i = v/1000, i+1
	}
	switch {
	case i == 0:
		return fmt.Sprintf("%d B", n)
	case v >= 100:
		return fmt.Sprintf("%.0f %s", v, units[i])
	}
	return fmt.Sprintf("%.1f %s", v, units[i])
}
