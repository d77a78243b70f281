package runtime

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"time"

	"quire/kernel/compact"
	"quire/kernel/event"
	"quire/kernel/provider"
	"quire/kernel/tool"
)

// ModelCatalog says what the installed models can do (Ollama's /api/show
// capabilities). The runtime asks it when it freezes a run, so a model that
// cannot call tools is sent none and still chats. Answers may be cached by
// the implementation; the runtime asks once per run.
type ModelCatalog interface {
	// Capabilities of an installed model as Ollama names them ("tools",
	// "thinking", "embedding", …).
	Capabilities(ctx context.Context, model string) ([]string, error)
	// ToolModels lists the installed models that can call tools.
	ToolModels(ctx context.Context) ([]string, error)
	// ContextLength is the model's trained context length (0: Ollama did
	// not say). Ollama caps num_ctx at it, so the run freezes the smaller.
	ContextLength(ctx context.Context, model string) (int, error)
}

// WithCatalog sets what the runtime asks about the chat model's
// capabilities. Without one every model is offered the tools, and a refusal
// is caught by the error chain (one retry without tools).
func WithCatalog(c ModelCatalog) Option { return func(r *Runtime) { r.catalog = c } }

// catalogWait bounds each question to the catalog at a run's start: a slow
// or absent Ollama must not hold up the user's message, which then fails
// (or not) on its own.
const catalogWait = 2 * time.Second

// maxToolModels bounds the suggestions a run records.
const maxToolModels = 5

// capContext freezes the context length the model will really have:
// Ollama runs a request with num_ctx capped at the trained length, so a run
// asking for more records the trained length instead, and the request, the
// overflow sentence, the compaction window and the context meter all use
// that one figure. Trained records the cap, so the overflow sentence does not
// suggest a longer context than the model has. Nothing is recomputed on
// replay: the figure lives in the snapshot.
func (r *Runtime) capContext(ctx context.Context, caps *event.Capabilities) {
	if r.catalog == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, catalogWait)
	defer cancel()
	n, err := r.catalog.ContextLength(ctx, caps.Model)
	if err != nil || n <= 0 {
		return // unknown: the configured length is sent as it is
	}
	caps.Trained = n
	if caps.NumCtx > n {
		caps.NumCtx = n
	}
}

// withholdTools takes the tools out of a run's capabilities when its model
// cannot call them, recording why, what was withheld and which installed
// models could; the request then declares none (requestAt), and a replay
// rebuilds it the same way from the snapshot.
func (r *Runtime) withholdTools(ctx context.Context, caps *event.Capabilities) {
	if len(caps.Tools) == 0 {
		return
	}
	why := r.toolsOff(ctx, caps.Model)
	if why == "" {
		return
	}
	caps.ToolsOff = why
	for _, d := range caps.Tools {
		caps.Withheld = append(caps.Withheld, d.Name)
	}
	caps.Tools = nil
	if r.catalog == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, catalogWait)
	defer cancel()
	models, err := r.catalog.ToolModels(ctx)
	if err != nil {
		r.log.Debug("listing models that can call tools", "err", err)
		return
	}
	caps.ToolModels = slices.Clone(models[:min(len(models), maxToolModels)])
}

// toolsOff is why the model may not be offered tools, or "" when it may
// (including when nobody can say: the chain catches a refusal then).
func (r *Runtime) toolsOff(ctx context.Context, model string) string {
	r.mu.Lock()
	refused := r.noTools[model]
	r.mu.Unlock()
	if refused {
		return event.ToolsOffRefused
	}
	if r.catalog == nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, catalogWait)
	defer cancel()
	caps, err := r.catalog.Capabilities(ctx, model)
	if err != nil || len(caps) == 0 {
		return "" // unknown: Ollama will say, and the chain retries without tools
	}
	if !slices.Contains(caps, "tools") {
		return event.ToolsOffModel
	}
	return ""
}

// refusesTools remembers that Ollama refused tools for model, so later runs
// freeze none for it.
func (r *Runtime) refusesTools(model string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.noTools == nil {
		r.noTools = map[string]bool{}
	}
	r.noTools[model] = true
}

// toolShare is the most of the context the tool declarations may take:
// the rest is for Quire's instructions, the conversation and the reply.
// Quire's whole set (issue 32: 17 tools, 7 KB and more of JSON) takes more
// than the whole of a 4,096-token context as a real tokenizer counts it,
// and a little over half of the default 8,192, which still holds it all.
const toolShare = 0.6

// fitTools keeps the tools the run's task needs when all of them would
// take more than toolShare of the context, and names the rest in
// LeftOut: a small model still gets the tools to do what was asked, not
// a refusal. Sizes are the raw estimate corrected by what the server
// counted for the model so far (Calibration). The choice is frozen in the
// snapshot, so a replay offers the same.
func (r *Runtime) fitTools(caps *event.Capabilities, task string) {
	if caps.NumCtx <= 0 || len(caps.Tools) == 0 {
		return
	}
	room := int(toolShare * float64(caps.NumCtx))
	sizes := make([]int, len(caps.Tools))
	total := 0
	for i, d := range caps.Tools {
		sizes[i] = r.cal.Scale(caps.Model, compact.ToolTokens(provider.ToolSpec{Name: d.Name, Description: d.Description, Parameters: d.Parameters}))
		total += sizes[i]
	}
	if total <= room {
		return
	}
	order := make([]int, len(caps.Tools))
	needs := make([]int, len(caps.Tools))
	for i, d := range caps.Tools {
		order[i], needs[i] = i, need(d, task)
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Or(cmp.Compare(needs[b], needs[a]), cmp.Compare(sizes[a], sizes[b]))
	})
	keep := make([]bool, len(caps.Tools))
	used := 0
	for _, i := range order {
		if used+sizes[i] <= room {
			keep[i], used = true, used+sizes[i]
		}
	}
	var kept []event.ToolDecl
	for i, d := range caps.Tools {
		if keep[i] {
			kept = append(kept, d)
		} else {
			caps.LeftOut = append(caps.LeftOut, d.Name)
		}
	}
	caps.Tools = kept
}

// need is how much a request's text asks for a tool: 2 for each word of
// its name the text uses (by its first five letters: "moving" asks for
// move_note, "notes" for every note tool), and 1 for a tool that only
// reads, which almost every task starts with.
func need(d event.ToolDecl, task string) int {
	text := strings.ToLower(task)
	n := 0
	if tool.Effect(d.Effects)&^tool.ReadFs == 0 {
		n++
	}
	for _, w := range strings.FieldsFunc(strings.ToLower(d.Name), func(r rune) bool { return r == '_' || r == '-' || r == '.' }) {
		if len(w) < 3 {
			continue
		}
		if strings.Contains(text, w[:min(len(w), 5)]) {
			n += 2
		}
	}
	return n
}
