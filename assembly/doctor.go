package assembly

import (
	"context"
	"errors"
	"fmt"

	"quire/config"
	"quire/doctor"
	"quire/internal/datadir"
	"quire/kernel/event"
	"quire/kernel/provider/ollama"
	"quire/kernel/store"
)

// Doctor runs every check (doctor/), with a deadline so a hung Ollama
// cannot hang it, and the whole file's check of the database (`quire
// doctor`: the database may have gone bad since it was opened, a failing
// disk, and a reader opened with only the quick check).
func (p *Parts) Doctor(ctx context.Context) doctor.Report {
	return p.report(ctx, p.checkFile(ctx))
}

// pageReport is the report a page that loads, or its "Check again", is
// shown: every check but the whole file's, whose last finding it reads
// (filecheck.go) — a check linear in the file's size never stands in
// front of the window.
func (p *Parts) pageReport(ctx context.Context) doctor.Report {
	return p.report(ctx, p.fileFinding())
}

// report is every check, the database's line saying dbErr.
func (p *Parts) report(ctx context.Context, dbErr error) doctor.Report {
	ctx, cancel := context.WithTimeout(ctx, doctorDeadline)
	defer cancel()
	cfg := p.settings.Get()
	r := doctor.Run(ctx, p.doctorInputs(),
		doctorOllama{p.ollama}, func(ctx context.Context) (string, bool, error) {
			d, err := store.Diagnose(ctx)
			return d.SQLiteVersion, d.FTS5, err
		})
	if p.mode == Reader {
		r.Add(owner(cfg.DataDir))
	}
	for _, c := range p.runnerChecks(ctx, cfg) {
		r.Add(c)
	}
	r.Add(p.embeddingCheck(ctx))
	r.Add(doctor.Database(p.databaseState(dbErr)))
	if p.mode == Owner && p.runtime != nil {
		// The parts an owner runs without when they could not be opened:
		// said here, not only in the log.
		r.Add(part("Documents", "the document index (search_docs and the documents panel)", p.ragErr))
		r.Add(part("Memory", "memory", p.memErr))
		// A full disk is said once, as what it is, whichever part met it
		// (the database line says it when the file could not be opened).
		for _, err := range []error{p.startErr, p.memErr, p.ragErr} {
			if errors.Is(err, event.ErrNoSpace) {
				r.Add(doctor.DiskFull(cfg.DataDir, err))
				break
			}
		}
	}
	return r
}

// part is doctor's line for a part of an owner that could not be opened;
// one that met a full disk gets the full disk's remedy.
func part(name, off string, err error) doctor.Check {
	c := doctor.Part(name, off, err)
	if errors.Is(err, event.ErrNoSpace) {
		c.Remedy = doctor.FreeSpace
	}
	return c
}

// doctorInputs are the settings the checks verify. The address printed is
// the one the adapter uses (the setting parsed: scheme, host and port),
// not the setting as typed.
func (p *Parts) doctorInputs() doctor.Inputs {
	cfg := p.settings.Get()
	return doctor.Inputs{DataDir: cfg.DataDir, OllamaHost: p.ollama.Host(), Model: cfg.Model, SameModel: ollama.SameModel,
		OtherRunner: cfg.Runner == config.RunnerOpenAI}
}

// databaseState is what doctor needs to judge the database file, err being
// why it could not be opened or failed its check.
func (p *Parts) databaseState(err error) doctor.DatabaseState {
	path := p.settings.Get().DatabasePath()
	return doctor.DatabaseState{Path: path, Problem: databaseProblem(err), Err: err, Backups: store.Backups(path)}
}

// explained is err followed by what to do about it, the sentence doctor
// gives: every host (the window, `quire serve`, the CLI) then says the same.
func explained(s doctor.DatabaseState, err error) error {
	if remedy := doctor.Database(s).Remedy; remedy != "" {
		return fmt.Errorf("%w. %s", err, remedy)
	}
	return err
}

func databaseProblem(err error) doctor.DatabaseProblem {
	switch {
	case err == nil:
		return doctor.DatabaseFine
	case errors.Is(err, store.ErrNoDatabase):
		return doctor.DatabaseNotCreated
	case errors.Is(err, store.ErrCorrupt):
		return doctor.DatabaseDamaged
	case errors.Is(err, store.ErrOlderDatabase):
		return doctor.DatabaseNeedsUpgrade
	case errors.Is(err, store.ErrReadOnly):
		return doctor.DatabaseReadOnly
	case errors.Is(err, event.ErrNoSpace):
		return doctor.DatabaseNoSpace
	}
	return doctor.DatabaseRefused
}

// doctorOllama adapts the Ollama adapter to the doctor's probe interface.
type doctorOllama struct{ c *ollama.Provider }

func (d doctorOllama) Version(ctx context.Context) (string, error)  { return d.c.Version(ctx) }
func (d doctorOllama) Models(ctx context.Context) ([]string, error) { return d.c.Models(ctx) }
func (d doctorOllama) Capabilities(ctx context.Context, model string) ([]string, error) {
	info, err := d.c.ModelInfo(ctx, model)
	return info.Capabilities, err
}

// owner is the doctor's line of who holds dir, for a reader: read from the
// lock file and the kernel's locks, never by creating the file or taking
// the folder (datadir.Held).
func owner(dir string) doctor.Check {
	h, running, err := datadir.Held(dir)
	who := h.String()
	if h.URL != "" {
		who += ", answering at " + h.URL
	}
	return doctor.Owner(who, running, err)
}
