package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"quire/config"
	"quire/doctor"
	"quire/kernel/prompt"
	"quire/kernel/protocol"
	"quire/kernel/provider/ollama"
	"quire/kernel/runtime"
	"quire/kernel/store"
	"quire/kernel/tool"
	"quire/kernel/tool/registry"
	"quire/library"
	"quire/memory"
	"quire/rag"
	"quire/tools/searchdocs"
)

// services are the concrete parts main picks. Runtime is nil when the
// database could not be opened; DBErr then says why, and doctor reports it.
type services struct {
	cfg     config.Config
	ollama  *ollama.Provider
	store   *store.Store
	runtime *runtime.Runtime
	DBErr   error
	asker   atomic.Pointer[runtime.Asker]
	notes   *notesTools
	rag     *rag.Index
	library *library.Library // started by a host that shows documents (startLibrary)
	mem     *memory.Store    // nil when it could not be opened
	mu      sync.Mutex       // guards cfg.NotesDir
}

// extra options come after main's own, so a caller (quire eval) may add
// tools or answer permission questions itself.
func openServices(ctx context.Context, cfg config.Config, log *slog.Logger, extra ...runtime.Option) (*services, error) {
	host, err := ollama.ParseHost(cfg.OllamaHost)
	if err != nil {
		return nil, fmt.Errorf("ollama host %q: %w", cfg.OllamaHost, err)
	}
	s := &services{cfg: cfg, ollama: ollama.New(host, &http.Client{})}
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		s.DBErr = fmt.Errorf("cannot create the data directory %s: %w", cfg.DataDir, err)
		return s, nil
	}
	st, err := store.Open(ctx, cfg.DatabasePath())
	if err != nil {
		s.DBErr = err
		return s, nil
	}
	s.store = st
	s.notes = &notesTools{store: st, log: log}
	if err := s.notes.SetDir(cfg.NotesDir); err != nil {
		log.Warn("notes folder", "err", err)
	}
	emb := s.embedder(ctx, cfg.EmbedModel)
	s.rag, err = rag.Open(ctx, st.DB(), emb)
	if err != nil {
		log.Error("the document index could not be opened; search_docs is off", "err", err)
		s.rag = nil
	}
	settings := runtime.Settings{Model: cfg.Model, NumCtx: cfg.NumCtx,
		Layers: []registry.Layer{{Name: "settings", Deny: cfg.DisabledTools}}}
	opts := []runtime.Option{
		runtime.WithLogger(log), runtime.WithAsker(s.ask), runtime.WithPrompt(basePrompt()), runtime.WithTools(s.notes, todoTools{}, docsTools{s.rag}),
		runtime.WithCheckpoint((&planReminder{store: st}).Hook)}
	// Memory shares rag's choice of embedder (nil: its offline one).
	opts = append(opts, s.openMemory(ctx, emb, log)...)
	opts = append(opts, runtime.WithCompaction(compaction(s.ollama, s.mem, log)))
	s.runtime = runtime.New(st, s.ollama, settings, append(opts, extra...)...)
	if s.mem != nil {
		s.mem.Attach(s.runtime)
	}
	if err := s.runtime.Start(ctx); err != nil {
		log.Error("starting the runtime", "err", err)
	}
	return s, nil
}

// ask puts a permission question to whichever host asks the user: the
// window's native dialog once it is up; otherwise the question stays open
// for an in-page answer (protocol.AnswerAsk) until the run's deadline
// answers it by default.
func (s *services) ask(ctx context.Context, q runtime.Question) (runtime.Answer, error) {
	if asker := s.asker.Load(); asker != nil {
		return (*asker)(ctx, q)
	}
	<-ctx.Done()
	return runtime.Answer{}, context.Cause(ctx)
}

// setAsker makes a host the one that asks the user.
func (s *services) setAsker(a runtime.Asker) { s.asker.Store(&a) }

func (s *services) Close() {
	if s.runtime != nil {
		s.runtime.Close()
	}
	if s.notes != nil {
		s.notes.Close()
	}
	if s.library != nil {
		s.library.Close()
	}
	if s.rag != nil {
		s.rag.Close()
	}
	if s.store != nil {
		s.store.Close()
	}
}

// kernel is what hosts talk to: the runtime, or, when the database could not
// be opened, a kernel that answers every call with the reason.
func (s *services) kernel() protocol.Kernel {
	if s.runtime == nil {
		return protocol.Unavailable{Err: fmt.Errorf("Quire's database could not be opened: %w", s.DBErr)}
	}
	return s.runtime
}

// doctor runs every check, with a deadline so a hung Ollama cannot hang it.
func (s *services) doctor(ctx context.Context) doctor.Report {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	r := doctor.Run(ctx, doctor.Inputs{DataDir: s.cfg.DataDir, OllamaHost: s.cfg.OllamaHost, Model: s.cfg.Model},
		doctorOllama{s.ollama}, func(ctx context.Context) (string, bool, error) {
			d, err := store.Diagnose(ctx)
			return d.SQLiteVersion, d.FTS5, err
		})
	db := doctor.Check{Name: "Database", OK: s.DBErr == nil, Detail: s.cfg.DatabasePath()}
	if s.DBErr != nil {
		db.Detail = s.DBErr.Error()
		db.Remedy = "Quire left the file untouched. Move it aside to start afresh, or update Quire if it was written by a newer version."
		if errors.Is(s.DBErr, store.ErrCorrupt) {
			db.Remedy = "The file is damaged; Quire left it untouched. Move it aside (a backup may sit beside it) and Quire will start a new one."
		}
		r.OK = false
	}
	r.Checks = append(r.Checks, db)
	return r
}

// doctorOllama adapts the Ollama adapter to the doctor's probe interface.
type doctorOllama struct{ c *ollama.Provider }

func (d doctorOllama) Version(ctx context.Context) (string, error)  { return d.c.Version(ctx) }
func (d doctorOllama) Models(ctx context.Context) ([]string, error) { return d.c.Models(ctx) }
func (d doctorOllama) Capabilities(ctx context.Context, model string) ([]string, error) {
	info, err := d.c.ModelInfo(ctx, model)
	return info.Capabilities, err
}

// basePrompt is who the assistant is and where it runs; other parts add
// their fragments (kernel/prompt priorities).
func basePrompt() *prompt.Assembler {
	a := prompt.New()
	a.Register(prompt.Fragment{Name: "identity", Priority: prompt.Identity,
		Text: "You are Quire, an assistant that helps the user organise their notes. Be concise and concrete."})
	a.Register(prompt.Fragment{Name: "deployment", Priority: prompt.Deployment,
		Text: "You run entirely on the user's own computer with a local model; nothing leaves it. " +
			"Before you change, move or rename a note, the user approves it."})
	return a
}

// NotesDir is the notes folder in use.
func (s *services) NotesDir() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cfg.NotesDir
}

// SetNotesDir points the note tools at dir and saves it in the settings
// file, so the next start uses it too.
func (s *services) SetNotesDir(dir string) error {
	if s.notes == nil {
		return s.DBErr
	}
	if err := s.notes.SetDir(dir); err != nil {
		return err
	}
	saved, err := config.ReadSettings(s.cfg.DataDir)
	if err != nil {
		return err
	}
	saved.NotesDir = dir
	if err := config.WriteSettings(s.cfg.DataDir, saved); err != nil {
		return fmt.Errorf("the notes folder is set but could not be saved: %w", err)
	}
	s.mu.Lock()
	s.cfg.NotesDir = dir
	s.mu.Unlock()
	return nil
}

// embedder is the Ollama embedding model when it is installed, else nil: the
// index then uses its built-in offline embedder, so search always works.
func (s *services) embedder(ctx context.Context, model string) rag.Embedder {
	if model == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	info, err := s.ollama.ModelInfo(ctx, model)
	if err != nil || !slices.Contains(info.Capabilities, "embedding") {
		return nil
	}
	return ollamaEmbedder{p: s.ollama, model: model}
}

// ollamaEmbedder adapts the Ollama adapter to rag.Embedder.
type ollamaEmbedder struct {
	p     *ollama.Provider
	model string
}

func (e ollamaEmbedder) Name() string { return "ollama:" + e.model }
func (e ollamaEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return e.p.Embed(ctx, e.model, texts)
}

// docsTools offers search_docs when the index is open.
type docsTools struct{ idx *rag.Index }

func (d docsTools) Tools() []tool.Tool {
	if d.idx == nil {
		return nil
	}
	return []tool.Tool{searchdocs.New(d.idx)}
}

// startLibrary starts the documents panel's back end for a host (the
// window, `quire serve`): background indexing, and a refresh of the known
// folders now. Nil when the index is not open.
func (s *services) startLibrary(ctx context.Context, log *slog.Logger) *library.Library {
	if s.rag == nil {
		return nil
	}
	if s.library == nil {
		s.library = library.New(s.rag, log)
		s.library.Start(ctx)
	}
	return s.library
}
