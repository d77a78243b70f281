package protocol

import "encoding/json"

// Question is a permission question as a host puts it to the user: the
// calls of one step that wait for the user's yes, asked together.
type Question struct {
	// ID is the host's name for the question while it asks it (the
	// window's page confirms by it that it has shown the question; `quire
	// serve` lists it by it on /api/questions); empty elsewhere.
	ID      string         `json:"id,omitempty"`
	Session string         `json:"session"`
	RunID   string         `json:"runId"`
	Calls   []QuestionCall `json:"calls"`
	// Descriptions say, call by call, what each would do (for an edit a
	// compact diff, for a move from -> to), in full: nothing the user says
	// yes to is elided.
	Descriptions []string `json:"descriptions,omitempty"`
	// DialogShowsAll: the window's native dialog shows every description
	// whole. When false, the page lets the user read them first and opens
	// the dialog only when asked to (a dialog is modal: the page cannot be
	// scrolled behind it).
	DialogShowsAll bool `json:"dialogShowsAll,omitempty"`
}

// QuestionCall is one call a Question asks about.
type QuestionCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// Answer is the user's answer to a Question.
type Answer struct {
	Allowed  bool   `json:"allowed"`
	Feedback string `json:"feedback,omitempty"`
}
