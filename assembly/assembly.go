// Package assembly is Quire's composition root: the one place that picks the
// concrete parts — the SQLite store, the Ollama adapter, the runtime, the
// note, todo, memory and document parts — and returns them assembled, for
// main to hand to a host (the window, host/httpapi, host/cli).
//
// It opens in one of two modes. An Owner takes the data folder's lock
// (internal/datadir) before it opens the database for writing — a second
// owner of the same folder gets an error that is a *datadir.InUseError
// and opens nothing — then starts the runtime and recovers the runs a
// crash left open: the window, `quire serve`, `quire index` and the eval
// set own the data folder. A Reader opens the store read-only and
// nothing else that writes: no runtime loop, no recovery, no memory index
// catch-up, no rag migration or statistics; `quire sessions`, `replay`,
// `search` and `doctor` read, and can never append to a log.
//
// Nothing else in Quire picks concrete parts (test/testkit does the
// same for tests). Hosts must never import this package: main does.
package assembly

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"

	"quire/config"
	"quire/eval"
	"quire/evolve"
	"quire/host"
	"quire/internal/datadir"
	"quire/internal/sqlschema"
	"quire/kernel/event"
	"quire/kernel/protocol"
	"quire/kernel/provider/ollama"
	"quire/kernel/provider/openai"
	"quire/kernel/runtime"
	"quire/kernel/store"
	"quire/library"
	"quire/mcpclient"
	"quire/memory"
	"quire/queue"
	"quire/rag"
	"quire/skills"
	"quire/standing"
	"quire/tools/notes"
	"quire/vaultindex"
	"quire/watch"
)

// Mode is how the parts are opened.
type Mode int

const (
	// Owner starts the runtime and recovers interrupted runs.
	Owner Mode = iota
	// Reader opens the store read-only: no runtime, no recovery, no write.
	Reader
)

func (m Mode) String() string {
	if m == Reader {
		return "reader"
	}
	return "owner"
}

// Parts are the assembled parts. In Owner mode runtime is nil when the
// database could not be opened; dbErr then says why, and doctor reports it.
type Parts struct {
	mode     Mode
	settings *config.Store
	log      *slog.Logger
	ollama   *ollama.Provider
	// ollamaChild is the `ollama serve` this owner started (nil: none).
	ollamaChild *ollamaChild
	openai      *openai.Provider // the OpenAI-compatible runner's adapter (config's runner "openai")
	chat        runners          // what every model caller streams from: the adapter a request's runner names
	store       *store.Store
	runtime     *runtime.Runtime // an Owner's; nil in a Reader
	reader      *runtime.Reader  // a Reader's, or an Owner's on a full disk: the log, and nothing that writes
	dbErr       error
	startErr    error // why the runtime's start (its recovery) failed; it runs nonetheless
	asker       atomic.Pointer[host.Asker]
	// claims route a session's questions to the terminal that drives it,
	// before any asker (terminal.go).
	claims host.Claims
	// settingsMu makes the Settings screen's changes one at a time, from
	// asking Ollama about the model to saving (settings.go); facts are what
	// Ollama said of each model (address + name -> protocol.ModelFacts).
	settingsMu   sync.Mutex
	facts        sync.Map
	toolProbes   sync.Map // base+"\x00"+model → doctor.ToolsYes/No: what the tool probe learnt, asked once
	notes        *notesTools
	rag          *rag.Index
	ragErr       error            // why rag is nil
	ragMu        sync.Mutex       // a Reader opens rag on first use (Index)
	library      *library.Library // started by a host that shows documents (Documents); under ragMu
	docWatch     *docWatch        // the library's folders watched live; under ragMu
	docWatchOpts []watch.Option   // test knobs of those watches
	embedErr     error            // why the chosen embedding model could not be used at start
	embedRunner  string           // the runner the document index embeds with: the one at start
	runnerPorts  []openai.UsualPort
	now          func() time.Time // Extras.Now
	modelsMu     sync.Mutex
	models       *models            // the models screen's back end, made by the first Models call
	catalog      *ollama.Catalog    // what each model can do, cached (an Owner's; nil for a reader)
	mem          *memory.Store      // nil when it could not be opened
	evo          *evolve.Store      // the evolution store (evolve.go); nil for a Reader
	queue        *queue.Queue       // the task queue (batches.go); nil when it could not be opened
	batchesOn    atomic.Bool        // the queue's workers are attached: the chat may start batches
	workers      *runtime.Runtime   // the queue's workers' runtime
	standing     *standing.Runner   // the standing tasks (standing.go); nil when off
	standingStop context.CancelFunc // ends RunStanding's loop
	standingDone chan struct{}      // closed when that loop has ended
	notify       Notifier           // tells the desktop a standing task's batch waits; nil: none
	memErr       error              // why mem is nil in an Owner
	skills       *skills.Catalog    // the skill packages (skills.go); nil when off
	// skillServers tells the skills which MCP servers run: an Owner's MCP
	// client; nil for a Reader, whose process runs none.
	skillServers skills.Servers

	// standingEvery is how often RunStanding looks (standingTick when 0):
	// a test's knob, so only the notes index's news can fire a task.
	standingEvery time.Duration

	mcp        mcpParts     // the MCP servers (mcp.go)
	health     *host.Health // started by the first host that shows it (Health)
	healthOnce sync.Once
	fileCheck  fileCheck // the last whole-file check's finding (filecheck.go)

	// An Owner's hold on the data folder, and the local channel a window
	// or `quire serve` serves (local.go); stopLocal ends serving it.
	lock      *datadir.Lock
	local     net.Listener
	stopLocal func()
}

// Open assembles the parts in mode over the settings. extra options come
// after the root's own, so a caller (the eval set) may add tools or answer
// permission questions itself; a Reader ignores them.
func Open(ctx context.Context, settings *config.Store, log *slog.Logger, mode Mode, extra ...runtime.Option) (*Parts, error) {
	return OpenWith(ctx, settings, log, mode, Extras{Runtime: extra})
}

// Extras are what a caller adds to the root's own parts (a Reader ignores
// them): the browser tests' slow tools and slow machine.
type Extras struct {
	// Runtime options come after the root's own (Open's extra).
	Runtime []runtime.Option
	// Embedder, when set, is given the embedder the root picked (nil: the
	// index's offline one) and returns the one the document index and
	// memory use instead, so a test can slow the real one down.
	Embedder func(rag.Embedder) rag.Embedder
	// Now is the clock of the embedding model's re-check back-off (nil:
	// time.Now), so a test moves it instead of waiting.
	Now func() time.Time
	// MCP are options of the MCP servers' client: servers attached for
	// this process only (mcpclient.WithServer), as the eval set's and the
	// tests' in-memory ones.
	MCP []mcpclient.Option
	// Kind is which host owns the folder, recorded in its lock for the
	// sentence a refused process says; a window and `quire serve` also
	// open the local channel (Local).
	Kind datadir.Kind
	// Scenarios are the eval set (its YAML files) a candidate improvement
	// is evaluated over (Evaluator); nil: evaluating is refused, saying so.
	Scenarios fs.FS
	// NotesIndex are options of the notes folder's index (vaultindex): a
	// test's watch debounce, or a channel of its committed updates.
	NotesIndex []vaultindex.Option
	// DocWatch are options of the document folders' watches.
	DocWatch []watch.Option
	// RunnerPorts are where discovery looks for runners (nil: their
	// usual ports), so a test finds its fake "LM Studio".
	RunnerPorts []openai.UsualPort
	// Notify is the platform's notifier for a standing task's batch that
	// waits for the review (nil: notify-send where it is installed).
	Notify Notifier
}

// OpenWith is Open with extras beyond runtime options.
func OpenWith(ctx context.Context, settings *config.Store, log *slog.Logger, mode Mode, x Extras) (*Parts, error) {
	extra := x.Runtime
	cfg := settings.Get()
	hostURL, err := ollama.ParseHost(cfg.OllamaHost)
	if err != nil {
		return nil, fmt.Errorf("ollama host %q: %w", cfg.OllamaHost, err)
	}
	p := &Parts{mode: mode, settings: settings, log: log, ollama: ollama.New(hostURL, &http.Client{}),
		openai: openai.New(runnerBase(cfg), &http.Client{})}
	p.chat = runners{ollama: p.ollama, openai: p.openai, current: func() string { return settings.Get().Runner }}
	p.embedRunner, p.runnerPorts = cfg.Runner, x.RunnerPorts
	if mode == Reader {
		p.openReader(ctx)
		p.openReaderSkills(cfg)
		return p, nil
	}
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		p.dbErr = fmt.Errorf("cannot create the data directory %s: %w", cfg.DataDir, err)
		return p, nil
	}
	if err := p.lockFolder(cfg.DataDir, x.Kind); errors.Is(err, datadir.ErrInUse) {
		return nil, err // another process owns the folder: open nothing
	} else if err != nil {
		p.dbErr = err // doctor says why; nothing is opened for writing
		return p, nil
	}
	if x.Kind == datadir.Window || x.Kind == datadir.Serve || x.Kind == datadir.Terminal {
		p.serveOllama(ctx, hostURL)
	}
	// A change saved in Settings reaches the next run (and the address,
	// every later request), also when the database does not open.
	settings.OnChange(p.apply)
	st, err := store.Open(ctx, cfg.DatabasePath())
	if errors.Is(err, event.ErrNoSpace) {
		// The disk is too full to open the file for writing: the
		// conversations are still read (read-only, as a Reader reads
		// them), every change is refused with the disk-full sentence, and
		// the next start, with room, recovers what this one could not.
		p.openReader(ctx)
		p.dbErr = err // whatever the read-only open said: the disk is full
		return p, nil
	}
	if err != nil {
		p.dbErr = err
		return p, nil
	}
	p.store = st
	p.notes = newNotesTools(st, cfg.DataDir, log, x.NotesIndex...)
	p.docWatchOpts = x.DocWatch
	p.notify = x.Notify
	if p.notify == nil {
		p.notify = NotifySend(exec.LookPath)
	}
	if err := p.notes.SetDir(cfg.NotesDir); err != nil {
		log.Warn("notes folder", "err", err)
	}
	settings.OnNotesDir(p.notes.ready)
	emb, embErr := p.embedder(ctx, chosenEmbedModel(cfg))
	p.embedErr, p.now = embErr, x.Now
	if x.Embedder != nil {
		emb = x.Embedder(emb)
	}
	p.notes.useEmbedder(notesEmbedder(emb, chosenEmbedModel(cfg), embErr))
	p.rag, err = rag.Open(ctx, st.DB(), emb, append(p.ragEmbedding(embErr), rag.WithLimits(docLimits(cfg.Documents)))...)
	if err != nil {
		log.Error("the document index could not be opened; search_docs is off", "err", err)
		p.rag, p.ragErr = nil, sqlschema.NoSpace(err)
	}
	if cfg.Think != nil {
		// Whether the model can think decides whether "think" is sent.
		probe, cancel := context.WithTimeout(ctx, 2*time.Second)
		p.modelFacts(probe, p.ollama, cfg.Model)
		cancel()
	}
	rs := p.runSettings(cfg)
	p.openQueue(ctx, cfg)
	opts := []runtime.Option{
		runtime.WithLogger(log), runtime.WithAsker(p.ask), runtime.WithPrompt(basePrompt()),
		runtime.WithTools(p.notes, todoTools{}, docsTools{p.rag, p, log, p.notes}, organiseTools{p.queue, &p.batchesOn, p.notes}), runtime.WithCheckpoint(planReminder(st))}
	// The MCP servers' tools reach the chats' runtime only (mcp.go); a
	// skill that needs a server is judged against the same client.
	servers := p.openMCP(x.MCP)
	p.skillServers = servers
	opts = append(opts, runtime.WithTools(servers))
	// Memory shares rag's choice of embedder (nil: its offline one).
	opts = append(opts, p.openMemory(ctx, emb)...)
	opts = append(opts, p.openEvolution()...)
	opts = append(opts, p.openSkills(cfg, func() modelCaps {
		if p.catalog == nil {
			return nil // a nil *ollama.Catalog is not a nil modelCaps
		}
		return p.catalog
	})...)
	// One catalog of what the models can do: the run's start asks whether
	// its model takes tools, each step's compaction its context length.
	catalog := ollama.NewCatalog(p.ollama)
	p.catalog = catalog
	opts = append(opts, runtime.WithCatalog(catalog), runtime.WithCompaction(compaction(catalog, p.mem, log)))
	p.runtime = runtime.New(st, p.chat, rs, append(opts, extra...)...)
	if p.mem != nil {
		p.mem.Attach(p.runtime)
	}
	p.attachEvolution()
	if p.evo != nil && x.Scenarios != nil {
		// The evaluation builds its own kernels over temporary folders;
		// it reads only the origin runs' logs from this one.
		p.evo.SetEvaluator(NewEvaluator(log, x.Scenarios, p.runtime, eval.CompareOptions{}))
	}
	if err := p.runtime.Start(ctx); err != nil {
		// A run the recovery could not close (a full disk) stays open;
		// its session closes it once the log takes the event.
		log.Error("starting the runtime", "err", err)
		p.startErr = err
	}
	p.notes.recordWith(func(recs []notes.Recovery) { p.recordRecovered(context.WithoutCancel(ctx), recs) })
	p.startWorkers(ctx, cfg, catalog)
	p.openStanding(ctx)
	return p, nil
}

// openReader opens the database read-only. A data folder with no database
// yet reads as one with nothing in it.
func (p *Parts) openReader(ctx context.Context) {
	cfg := p.settings.Get()
	st, err := store.OpenReadOnly(ctx, cfg.DatabasePath())
	if err != nil {
		p.dbErr = err
		return
	}
	p.store = st
	// No runtime: a runtime.Reader lists sessions, returns events and
	// rebuilds requests, and has no loop, model, tool or trigger that could
	// append.
	p.reader = runtime.NewReader(st)
	// The document index is opened by the first Index call: only search
	// needs it (and the embedder it needs asks Ollama).
}

// Mode is how the parts were opened.
func (p *Parts) Mode() Mode { return p.mode }

// Close stops serving the local channel, ends runs with their reason,
// stops the library, closes the store and lets the data folder go.
func (p *Parts) Close() {
	if p.stopLocal != nil {
		p.stopLocal()
	}
	if p.evo != nil {
		p.evo.Close() // its evaluations end unrecorded, before the log closes
	}
	p.stopStanding() // before the queue its firings start batches in
	if p.queue != nil {
		p.queue.Close() // a task in hand goes back to the queue
	}
	if p.workers != nil {
		p.workers.Close()
	}
	if p.runtime != nil {
		p.runtime.Close()
	}
	// After the runtime: no run calls a server that is going.
	p.closeMCP()
	p.ollamaChild.stop() // after the runtime: no run is asking it
	if p.notes != nil {
		p.notes.Close()
	}
	if p.docWatch != nil {
		p.docWatch.close()
	}
	if p.library != nil {
		p.library.Close()
	}
	p.modelsMu.Lock()
	if p.models != nil {
		p.models.close() // its pulls end: Ollama keeps what they downloaded
	}
	p.modelsMu.Unlock()
	p.ragMu.Lock()
	defer p.ragMu.Unlock()
	if p.rag != nil {
		p.rag.Close()
	}
	if p.store != nil {
		p.store.Close()
	}
	// The folder is let go last, once nothing of this process writes.
	if p.lock != nil {
		p.lock.Release()
	}
}

// ask puts a permission question to whichever host asks the user: the
// window's native dialog once it is up; otherwise the question stays open
// for an in-page answer (protocol.AnswerAsk) until the run's deadline
// answers it by default.
func (p *Parts) ask(ctx context.Context, q runtime.Question) (runtime.Answer, error) {
	pq := protocol.Question{Session: q.Session, RunID: q.RunID, Descriptions: q.Descriptions}
	for _, c := range q.Calls {
		pq.Calls = append(pq.Calls, protocol.QuestionCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments})
	}
	// A terminal that claimed the session is asked, and only it: the
	// window shows no dialog for a run it did not start.
	if cl := p.claims.Holder(q.Session); cl != nil {
		a, err := cl.Ask(ctx, p.Kernel(), pq)
		return runtime.Answer{Allowed: a.Allowed, Feedback: a.Feedback}, err
	}
	asker := p.asker.Load()
	if asker == nil {
		<-ctx.Done()
		return runtime.Answer{}, context.Cause(ctx)
	}
	a, err := (*asker)(ctx, pq)
	return runtime.Answer{Allowed: a.Allowed, Feedback: a.Feedback}, err
}

// SetAsker makes a host the one that asks the user.
func (p *Parts) SetAsker(a host.Asker) { p.asker.Store(&a) }

// DatabaseError is why the database could not be opened (nil when it was),
// with what to do about it (doctor's remedy), for a host to show as it is.
func (p *Parts) DatabaseError() error {
	if p.dbErr == nil {
		return nil
	}
	return explained(p.databaseState(p.dbErr), p.dbErr)
}

// errNoDatabase: the database could not be opened; the error it wraps says why.
var errNoDatabase = errors.New("the database could not be opened")

// errReadOnly: a command reached a Reader.
var errReadOnly = errors.New("this command only reads; Quire's database was opened read-only")

// Kernel is what hosts talk to: the runtime; a Reader's kernel refuses
// every command; when the database could not be opened, a kernel that
// answers every call with the reason.
func (p *Parts) Kernel() protocol.Kernel {
	switch {
	case p.mode == Reader && errors.Is(p.dbErr, store.ErrNoDatabase):
		return emptyLog{}
	case p.mode == Reader && p.reader != nil:
		return readOnly{p.reader, protocol.Classify(protocol.ErrConflict, errReadOnly)}
	case p.reader != nil:
		// An Owner on a full disk: it reads, and says why it changes nothing.
		return readOnly{p.reader, protocol.Classify(protocol.ErrNoSpace, p.DatabaseError())}
	case p.runtime == nil:
		return protocol.Unavailable{Err: fmt.Errorf("%w: %w", errNoDatabase, p.DatabaseError())}
	}
	return p.runtime
}

// Settings is the settings port for hosts (settings.go): the notes folder,
// saved first and then given to the note tools, and the Settings screen's
// choices, saved and then applied to the next run. A Reader changes
// neither; an Owner without its database keeps the notes folder but may
// still fix the Ollama address and the rest.
func (p *Parts) Settings() host.Settings {
	switch {
	case p.mode == Reader:
		return settingsPort{p: p, notesErr: errReadOnly, readOnly: true}
	case p.notes == nil:
		return settingsPort{p: p, notesErr: p.dbErr}
	}
	return settingsPort{p: p}
}

// Documents starts the documents panel's back end for a host (the window,
// `quire serve`): background indexing, and a refresh of the known folders
// now. Nil (a nil interface) when the index is not open or in a Reader.
func (p *Parts) Documents(ctx context.Context) host.Documents {
	if p.rag == nil || p.mode == Reader {
		return nil
	}
	p.ragMu.Lock()
	defer p.ragMu.Unlock()
	if p.library == nil {
		p.library = library.New(p.rag, p.log, library.WithEmbedding(library.Embedding{
			Models: p.embedModels(), Model: chosenEmbedModel(p.settings.Get()), Err: p.embedErr,
			Save: p.settings.SetEmbedModel, Now: p.now}))
		p.library.Start(ctx)
		p.docWatch = newDocWatch(ctx, p.rag.Roots, p.library.Add, p.library.Refresh, p.log, p.docWatchOpts...)
		go p.docWatch.follow(p.library.Watch(ctx))
	}
	return noteViewer{p.library, p.notes}
}

// Models is the models screen's back end, in either mode: it needs only
// Ollama. Its pulls end when the parts close.
func (p *Parts) Models() host.Models {
	p.modelsMu.Lock()
	defer p.modelsMu.Unlock()
	if p.models == nil {
		p.models = newModels(p.ollama, p.log, time.Now)
		if p.catalog != nil {
			// A model pulled again or deleted is asked about afresh.
			p.models.changed = p.catalog.Forget
		}
	}
	return p.models
}

// Memory is the memory panel's backend, or nil (a nil interface, not a nil
// pointer) when memory could not be opened: hosts then say so.
func (p *Parts) Memory() host.Memory {
	if p.mem == nil {
		return nil
	}
	return p.mem
}
