package host

import (
	"encoding/json"

	"quire/kernel/protocol"
)

// Said is what the terminal hosts show of an event: the fields of the
// payloads they print (a message's text, a delta's content, a tool's name
// and status, a refusal's or a run's reason, an error), whichever type the
// event is; a field the payload does not have is empty.
type Said struct {
	Text    string `json:"text"`
	Content string `json:"content"`
	Name    string `json:"name"`
	Status  string `json:"status"`
	Reason  string `json:"reason"`
	Error   string `json:"error"`
	Message string `json:"message"`
	// Caps are an input.received's frozen capabilities (Notice).
	Caps *Caps `json:"caps"`
}

// SaidOf reads e's payload as Said.
func SaidOf(e protocol.Event) Said {
	var s Said
	json.Unmarshal(e.Payload, &s)
	return s
}
