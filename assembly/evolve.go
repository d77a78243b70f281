package assembly

import (
	"context"

	"quire/evolve"
	"quire/host"
	"quire/kernel/protocol"
	"quire/kernel/runtime"
)

var _ host.Evolution = (*evolve.Store)(nil)

// openEvolution makes the evolution store over the log (issue 20) and
// returns the runtime options that plug it in: the active prompt fragments
// (a context contributor, so each run's context.text holds what was
// active) and the observer after each run. The store writes through the
// runtime (attachEvolution), and makes its hidden session with the kernel's
// own create-session command, under one idempotency key, so two starts
// never make two.
func (p *Parts) openEvolution() []runtime.Option {
	cfg := p.settings.Get()
	open := func(ctx context.Context) (string, error) {
		s, err := protocol.Run[protocol.Session](ctx, p.runtime, "evolution:log", protocol.CreateSession,
			protocol.CreateSessionPayload{Title: "Evolution", Kind: protocol.SessionEvolution})
		return s.ID, err
	}
	p.evo = evolve.New(p.store, open, p.settings.NotesDir, evolve.WithLogger(p.log), evolve.WithLearning(cfg.EvolveLearn),
		evolve.WithLearningSaver(p.settings.SetEvolveLearn))
	return []runtime.Option{runtime.WithContributors(p.evo.Contributor()),
		runtime.WithSubscribers(p.evo.Observer().WithProposer(p.chat, cfg.Model, cfg.NumCtx))}
}

// attachEvolution lets the store write, once the runtime exists.
func (p *Parts) attachEvolution() {
	if p.evo != nil {
		p.evo.SetWriter(p.runtime)
	}
}

// Evolution is the Evolution panel's and `quire evolve`'s back end; nil
// for a Reader (it appends).
func (p *Parts) Evolution() host.Evolution {
	if p.evo == nil {
		return nil
	}
	return p.evo
}
