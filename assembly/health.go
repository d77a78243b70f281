package assembly

import (
	"context"
	"time"

	"quire/config"
	"quire/doctor"
	"quire/host"
	"quire/kernel/protocol"
)

// Health is the health watcher of the hosts that show the checks (the
// window, `quire serve`): it asks Ollama's checks again on its own and
// offers the whole report when they change (host.Health). A pull that
// ends (a model downloaded) has it check at once, so the first screen
// turns into the chat without waiting out the back-off. The first call
// starts it, on ctx, with the start's whole-file check beside it
// (filecheck.go); later calls return the same one.
func (p *Parts) Health(ctx context.Context) *host.Health {
	p.healthOnce.Do(func() {
		p.health = host.NewHealth(p.quickDoctor, p.pageReport)
		p.fileCheck.done = make(chan struct{})
		go p.health.Run(ctx)
		go p.checkFileInBackground(ctx, p.health)
		go func() {
			for pr := range p.Models().Watch(ctx) {
				if pr.State == protocol.PullDone {
					p.health.Recheck()
				}
			}
		}()
	})
	return p.health
}

// quickDoctor is the part of the doctor the watcher repeats: Ollama and
// the chat model, with the doctor's deadline; no disk, no database.
func (p *Parts) quickDoctor(ctx context.Context) doctor.Report {
	ctx, cancel := context.WithTimeout(ctx, doctorDeadline)
	defer cancel()
	cfg := p.settings.Get()
	if cfg.Runner == config.RunnerOpenAI {
		// The runner chosen is what the banner watches: Ollama's absence
		// is no problem then, and its "not answering" would contradict
		// doctor's runner lines.
		// It never runs the tool probe (a reply generated on every
		// check): doctor does.
		r := doctor.Report{OK: true}
		for _, c := range doctor.RunnerChecks(ctx, p.openai.Base(), cfg.Model, cfg.NumCtx, doctorRunner{o: p.openai, noProbe: true}) {
			if c.Name != "Tool use" {
				r.Add(c)
			}
		}
		return r
	}
	return doctor.OllamaChecks(ctx, p.doctorInputs(), doctorOllama{p.ollama})
}

// doctorDeadline bounds the checks of Ollama, so a hung server cannot hang
// the doctor or its watcher.
const doctorDeadline = 5 * time.Second
