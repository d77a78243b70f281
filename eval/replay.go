package eval

import (
	"encoding/json"
	"fmt"

	"quire/kernel/event"
	"quire/kernel/protocol"
)

// Replay is the class of the scenarios Replayed makes: not one of the eval
// set's classes, so they never count in its success rates.
const Replay = "replay"

// MaxReplayTurns bounds the model turns a replay scripts: a run longer
// than any run's step limit is not a run Quire made.
const MaxReplayTurns = 100

// Replayed makes a scenario of a past run (runID, in its conversation's
// log evs): the run's first user message, the model's answers then as the
// scripted turns, the user's permission answers then, and the way the run
// ended as what must happen again. It starts in an empty notes folder,
// never the user's; against a real model (Options.Real) only the first
// message is replayed and the real model answers.
func Replayed(name string, evs []protocol.Event, runID string) (Scenario, error) {
	sc := Scenario{Name: name, Class: Replay, File: "run " + runID,
		Description: "a replay of run " + runID + " of conversation " + sessionOf(evs)}
	var reason string
	for _, e := range evs {
		if e.RunID != runID {
			continue
		}
		switch event.Type(e.Type) {
		case event.UserMessage:
			if len(sc.User) == 0 {
				sc.User = append(sc.User, Action{Say: payloadOf[event.UserMessagePayload](e).Text})
			}
		case event.AssistantMessage:
			m := payloadOf[event.AssistantMessagePayload](e)
			turn := ModelTurn{Say: m.Content, Think: m.Thinking}
			for _, c := range m.ToolCalls {
				var args map[string]any
				if err := json.Unmarshal([]byte(c.Arguments), &args); err != nil && c.Arguments != "" {
					return Scenario{}, fmt.Errorf("%w: run %s: the arguments of call %s are not an object: %w", ErrReplay, runID, c.Name, err)
				}
				turn.Calls = append(turn.Calls, ToolCall{ID: c.ID, Name: c.Name, Args: args})
			}
			sc.Model = append(sc.Model, turn)
		case event.PermissionAnswered:
			a := payloadOf[event.PermissionAnsweredPayload](e)
			if !a.ByDefault {
				sc.Answers = append(sc.Answers, Answer{Allow: a.Allowed, Feedback: a.Feedback})
			}
		case event.RunFinished:
			reason = payloadOf[event.RunFinishedPayload](e).Reason
		}
	}
	switch {
	case len(sc.User) == 0:
		return Scenario{}, fmt.Errorf("%w: run %s has no message of the user's", ErrReplay, runID)
	case reason == "":
		return Scenario{}, fmt.Errorf("%w: run %s has not finished", ErrReplay, runID)
	case len(sc.Model) > MaxReplayTurns:
		return Scenario{}, fmt.Errorf("%w: run %s has %d model turns, more than %d", ErrReplay, runID, len(sc.Model), MaxReplayTurns)
	}
	sc.Expect.Runs = []string{reason}
	return sc, nil
}

func sessionOf(evs []protocol.Event) string {
	if len(evs) == 0 {
		return ""
	}
	return evs[0].Session
}
