package assembly

import (
	"context"
	"sync/atomic"
	"time"

	"quire/config"
	"quire/host"
	"quire/kernel/event"
	"quire/kernel/provider/ollama"
	"quire/kernel/runtime"
	"quire/kernel/tool"
	"quire/queue"
	"quire/tools/notes"
)

// queueNotes is the task queue's view of the notes: the note tools' folder,
// switched through the settings like theirs.
type queueNotes struct{ n *notesTools }

func (q queueNotes) Tools(log notes.ChangeLog) []tool.Tool { return q.n.toolsWith(log) }
func (q queueNotes) Resolve(rel string) (string, error)    { return q.n.resolve(rel) }

// workerLimits bound one worker's run: a note is read, the folders looked
// at, one proposal made.
var workerLimits = event.Limits{MaxSteps: 8, MaxToolCalls: 16, TokenBudget: 60_000, LoopRepeats: 3,
	PermissionWaitNS: int64(time.Minute)}

// workerSettings are the chat's settings for the queue's workers, with the
// minimal profile (only reading runs; their tool set has nothing else) and
// their own limits.
func workerSettings(rs runtime.Settings) runtime.Settings {
	rs.Profile, rs.Limits = tool.Minimal, workerLimits
	return rs
}

// openQueue opens the task queue over the database; its workers start
// with startWorkers, once the conversations' runtime has recovered. A
// queue that cannot be opened is left off with a warning.
func (p *Parts) openQueue(ctx context.Context, cfg config.Config) {
	q, err := queue.Open(ctx, p.store.DB(), queueNotes{p.notes}, queue.WithWorkers(cfg.Batch.Workers), queue.WithLogger(p.log))
	if err != nil {
		p.log.Error("the task queue could not be opened; batches are off", "err", err)
		return
	}
	p.queue = q
}

// startWorkers starts the workers' own runtime over the same log: a
// registry of reading tools and propose only (queue.WorkerTools: no write
// tool is in it), long-term memory and preferences read through memory's
// contributor, the active evolution fragments (read-only, as memory: a rule
// like "receipts go under finance/receipts/YYYY" is one the organise task
// must follow; no observer, so a worker's run proposes nothing), no memory
// tools or learner, and the minimal profile. Its
// sessions are the workers' alone: the conversations' runtime never drives
// them, and a conversation's events never reach a worker (decision 14).
// It is never Started: the conversations' runtime's recovery closes the
// runs a crash left open in every session, the workers' too, and two
// recoveries of one session would each log its end (on a full disk, both
// would wait to, and both would).
func (p *Parts) startWorkers(ctx context.Context, cfg config.Config, catalog *ollama.Catalog) {
	if p.queue == nil {
		return
	}
	opts := []runtime.Option{runtime.WithLogger(p.log.With("part", "batch workers")), runtime.WithPrompt(basePrompt()),
		runtime.WithTools(p.queue.WorkerTools(p.notes, docsTools{p.rag, p, p.log, p.notes})), runtime.WithCatalog(catalog),
		// One model stream per worker: how many Ollama answers at once is
		// its own setting (OLLAMA_NUM_PARALLEL).
		runtime.WithStreams(cfg.Batch.Workers)}
	if p.mem != nil {
		opts = append(opts, runtime.WithContributors(p.mem.Contributor()))
	}
	if p.evo != nil {
		opts = append(opts, runtime.WithContributors(p.evo.Contributor()))
	}
	p.workers = runtime.New(p.store, p.chat, workerSettings(p.runSettings(cfg)), append(opts, runtime.WithSessionKind(event.SessionWorker))...)
	if err := p.queue.Attach(ctx, p.workers); err != nil {
		p.log.Error("the task queue's workers could not start; batches are off", "err", err)
		p.queue.Close()
		p.queue = nil
		return
	}
	p.batchesOn.Store(true)
}

// Batches is the task queue for hosts, or nil (a nil interface) when it
// could not be opened or in a Reader.
func (p *Parts) Batches() host.Batches {
	if p.queue == nil {
		return nil
	}
	return p.queue
}

// organiseTools offers the conversation's organise_folder tool once the
// queue's workers are there to take its tasks (on: startWorkers attached
// them), never for a queue whose workers could not start, and only while
// a notes folder is chosen: without one there is no folder to organise
// (issue 32: it was offered all the same).
type organiseTools struct {
	q     *queue.Queue
	on    *atomic.Bool
	notes *notesTools
}

func (o organiseTools) Tools() []tool.Tool {
	if o.q == nil || !o.on.Load() || (o.notes != nil && !o.notes.chosen()) {
		return nil
	}
	return []tool.Tool{o.q.OrganiseTool()}
}
