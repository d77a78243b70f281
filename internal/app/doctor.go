package app

import (
	"context"
	"errors"
	"time"

	"quire/doctor"
	"quire/kernel/provider/ollama"
	"quire/kernel/store"
)

// Doctor runs every check (doctor/), with a deadline so a hung Ollama
// cannot hang it; the database check reports how the store opened.
func (p *Parts) Doctor(ctx context.Context) doctor.Report {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	cfg := p.settings.Get()
	r := doctor.Run(ctx, doctor.Inputs{DataDir: cfg.DataDir, OllamaHost: cfg.OllamaHost, Model: cfg.Model},
		doctorOllama{p.ollama}, func(ctx context.Context) (string, bool, error) {
			d, err := store.Diagnose(ctx)
			return d.SQLiteVersion, d.FTS5, err
		})
	r.Add(doctor.Database(cfg.DatabasePath(), databaseProblem(p.dbErr), p.dbErr))
	return r
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
