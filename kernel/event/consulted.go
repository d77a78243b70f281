package event

import "unicode/utf8"

// ModelConsulted records a model call made outside a run — the memory
// learner's or the evolution proposer's — so what the model was sent about
// the user, and what came back, is in the log like every run's requests
// ("what the model sees must be in the log"). It is ignorable (an older
// Quire skips it) and never projected: no chat's history is made of it. It
// is written before the reply is acted on: the learner's in the chat
// session whose run it learned from (RunID that run's), the proposer's in
// the evolution session.
const ModelConsulted Type = "model.consulted"

// Who asked for a ModelConsulted call.
const (
	ConsultedByLearner  = "learner"
	ConsultedByProposer = "proposer"
)

// MaxConsultedReply bounds the reply text kept (bytes); a longer reply is
// cut and marked Clipped.
const MaxConsultedReply = 64 << 10

// ConsultedMessage is one message of the request, role and content as sent.
type ConsultedMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// ModelConsultedPayload is the whole request (model, messages, num_ctx) and
// its outcome: the reply text and usage, or Error, the failure's sentence.
type ModelConsultedPayload struct {
	By       string             `json:"by"`
	Model    string             `json:"model"`
	NumCtx   int                `json:"numCtx,omitempty"`
	Messages []ConsultedMessage `json:"messages"`
	Reply    string             `json:"reply"`
	Clipped  bool               `json:"clipped,omitempty"`
	Usage    Usage              `json:"usage"`
	Error    string             `json:"error,omitempty"`
}

// Consulted makes the payload of one call: the reply clipped to
// MaxConsultedReply, and err, when the call failed, as its sentence.
func Consulted(by, model string, numCtx int, msgs []ConsultedMessage, reply string, u Usage, err error) ModelConsultedPayload {
	p := ModelConsultedPayload{By: by, Model: model, NumCtx: numCtx, Messages: msgs, Reply: reply, Usage: u}
	if len(p.Reply) > MaxConsultedReply {
		cut := MaxConsultedReply
		for cut > 0 && !utf8.RuneStart(p.Reply[cut]) {
			cut--
		}
		p.Reply, p.Clipped = p.Reply[:cut], true
	}
	if err != nil {
		p.Error = err.Error()
	}
	return p
}
