package eval

// Workflow is the class of the scenario TaskScenario makes: not one of the
// eval set's classes, so it never counts in its success rates.
const Workflow = "workflow"

// TaskScenario is a workflow's filled task sent as the user's message in
// an empty notes folder, expected to end its run completed. Scripted, the
// model answers one line (what is measured is that the task is sent, fits
// the context and ends as a chat run does); against a real model the
// model does the task.
func TaskScenario(name, task string) Scenario {
	return Scenario{Name: name, Class: Workflow, File: "workflow " + name,
		Description: "the workflow's task as the user's message",
		User:        []Action{{Say: task}},
		Model:       []ModelTurn{{Say: "Done."}},
		Expect:      Expectations{Runs: []string{"completed"}}}
}

// WithMessage is sc with its first message of the user replaced by text:
// an origin run replayed as if the user had run the workflow instead.
func WithMessage(sc Scenario, text string) Scenario {
	sc.User = append([]Action{}, sc.User...)
	if len(sc.User) > 0 {
		sc.User[0].Say = text
	}
	return sc
}
