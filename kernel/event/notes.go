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
