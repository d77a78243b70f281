package event

// NoteUndone is an undo the user made in the Changes list, not through the
// model's undo tool: a plain event in the log of the conversation whose
// change it reverted, so the Changes list still says "undone" after a
// restart and the log holds every write to the notes, whoever asked for it.
// It is public (the conversation can show it) and not projected: the model
// finds the note as it now is when it reads it, and its own undo of the same
// change is refused as already undone (docs/DECISIONS.md, "undo from the
// Changes list").
const NoteUndone Type = "note.undone"

// NoteUndonePayload: Undoes is the id of the change reverted; Change is the
// reverse change itself (tools/notes' Change, whose JSON the change index
// reads back), and Text the sentence that said what was done.
type NoteUndonePayload struct {
	Undoes string `json:"undoes"`
	Change any    `json:"change"`
	Text   string `json:"text"`
}

// NoteRecovered is a move of the notes that a stop interrupted, as the
// next start found it in its journal and rolled it back (every file as
// before). It goes in the log of the conversation whose call made the move,
// since that call's result never reached the log; public (the conversation
// can say it) and not projected (the model reads the notes as they are).
const NoteRecovered Type = "note.recovered"

// NoteRecoveredPayload: Call is the tool call that made the move, Change
// the id it would have had, Text the sentence that says what was done.
type NoteRecoveredPayload struct {
	Call   string `json:"call"`
	Change string `json:"change"`
	Text   string `json:"text"`
}
