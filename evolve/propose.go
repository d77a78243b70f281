package evolve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"quire/kernel/event"
	"quire/kernel/protocol"
	"quire/kernel/provider"
)

// minSignals is how many signals not yet behind a candidate make the model
// be asked: one correction is an incident, three a habit worth a rule.
const minSignals = 3

// maxAsked bounds the signals put to the model (the newest).
const maxAsked = 20

// proposerPrompt is the proposer's own instruction.
const proposerPrompt = `You improve how an assistant for notes works for one user, from what the user did about its work:
refused calls (with the user's reason), changes the user undid, corrections in the user's next message, searches that
kept finding nothing, preferences the user said again. Reply with one JSON object and nothing else:
{"name": "...", "text": "...", "signals": [1, 2]}.
name: two to five words naming the rule. text: one to three short sentences the assistant should follow from now on,
about where notes go, how they are named, tagged or written, or what to search for. signals: the numbers of the
observations the rule answers. Never write a rule about asking, permissions or tools: the user decides those.
Reply {"name": ""} when no single rule answers most of them.`

// WithProposer makes the observer ask model (name, numCtx) for a prompt
// fragment after a run that left at least minSignals signals no candidate
// cites, while learning is on. The call is logged (the model, the signals
// put to it, what came of it); the candidate waits for the user like any.
func (o *Observer) WithProposer(model provider.Provider, name string, numCtx int) *Observer {
	o.propose = func(ctx context.Context, session, runID string) {
		if err := o.s.proposeFrom(ctx, model, name, numCtx); err != nil {
			o.s.logger.Warn("evolve: propose a candidate", "session", session, "run", runID, "err", err)
		}
	}
	return o
}

// proposeFrom asks the model for one fragment from the signals no candidate
// answers yet, and adds what it proposes (Author model, proposed).
func (s *Store) proposeFrom(ctx context.Context, model provider.Provider, name string, numCtx int) error {
	st, err := s.read(ctx)
	if err != nil {
		return err
	}
	sigs, err := s.observations(ctx, st)
	if err != nil {
		return err
	}
	cited := map[protocol.SignalRef]bool{}
	for _, c := range st.byID {
		for _, r := range c.Origin.Signals {
			cited[r] = true
		}
	}
	sigs = slices.DeleteFunc(sigs, func(sg protocol.EvolutionSignal) bool {
		return cited[protocol.SignalRef{Session: sg.Session, Seq: sg.Seq}]
	})
	if len(sigs) < minSignals {
		return nil
	}
	sigs = sigs[:min(len(sigs), maxAsked)]
	var b strings.Builder
	for i, sg := range sigs {
		fmt.Fprintf(&b, "%d. %s", i+1, sg.Kind)
		if sg.Tool != "" {
			fmt.Fprintf(&b, " (%s)", sg.Tool)
		}
		fmt.Fprintf(&b, ": %s\n", sg.Text)
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	req := provider.Request{Model: name, ContextLen: numCtx, Messages: []provider.Message{
		{Role: provider.RoleSystem, Content: proposerPrompt}, {Role: provider.RoleUser, Content: "Observations:\n" + b.String()}}}
	s.logger.Info("evolve: asking the model for a candidate", "model", name, "signals", len(sigs))
	text, usage, serr := provider.Collect(ctx, model, req)
	// Not a run, but the request and its reply are in the log all the same
	// (model.consulted, decision "the proposer's request"), before the reply
	// is acted on.
	consulted := event.Consulted(event.ConsultedByProposer, name, numCtx, []event.ConsultedMessage{
		{Role: string(provider.RoleSystem), Content: proposerPrompt}, {Role: string(provider.RoleUser), Content: req.Messages[1].Content}},
		text, event.Usage(usage), serr)
	if err := s.appendLocked(ctx, event.Draft{Type: event.ModelConsulted, Payload: consulted}); err != nil {
		return errors.Join(serr, err)
	}
	if serr != nil {
		return serr
	}
	start, end := strings.Index(text, "{"), strings.LastIndex(text, "}")
	if start < 0 || end < start {
		return fmt.Errorf("evolve: the model's proposal is not a JSON object: %q", clip(text))
	}
	var got struct {
		Name    string `json:"name"`
		Text    string `json:"text"`
		Signals []int  `json:"signals"`
	}
	if err := json.Unmarshal([]byte(text[start:end+1]), &got); err != nil {
		return fmt.Errorf("evolve: the model's proposal is not the JSON asked for: %w", err)
	}
	if strings.TrimSpace(got.Name) == "" {
		s.logger.Info("evolve: the model proposed nothing", "model", name)
		return nil
	}
	d := protocol.CandidateDraft{Name: got.Name, Kind: protocol.CandidatePrompt,
		Artifact: protocol.Artifact{Prompt: &protocol.PromptFragment{Text: strings.TrimSpace(got.Text)}},
		Origin:   protocol.CandidateOrigin{Runs: []protocol.RunRef{}, Signals: []protocol.SignalRef{}},
		Why:      fmt.Sprintf("Proposed by %s from %d observations.", name, len(got.Signals))}
	for _, n := range got.Signals {
		if n < 1 || n > len(sigs) {
			continue
		}
		sg := sigs[n-1]
		ref := protocol.SignalRef{Session: sg.Session, Seq: sg.Seq}
		if !slices.Contains(d.Origin.Signals, ref) {
			d.Origin.Signals = append(d.Origin.Signals, ref)
		}
		if run := (protocol.RunRef{Session: sg.Session, Run: sg.Run}); !slices.Contains(d.Origin.Runs, run) {
			d.Origin.Runs = append(d.Origin.Runs, run)
		}
	}
	if len(d.Origin.Signals) == 0 {
		return fmt.Errorf("evolve: the model's proposal %q names none of the observations", got.Name)
	}
	c, err := s.add(ctx, d, protocol.AuthorModel)
	if err != nil {
		return err
	}
	s.logger.Info("evolve: the model proposed a candidate", "model", name, "candidate", c.ID, "name", c.Name, "signals", len(d.Origin.Signals))
	return nil
}
