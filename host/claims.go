package host

import (
	"context"
	"errors"
	"strings"
	"sync"

	"quire/kernel/protocol"
)

// Claims route a conversation's permission questions to the client that
// drives it. A terminal host (`quire chat`, `quire run`) claims the
// session it runs before it sends a message; while the claim holds, the
// owner puts that session's questions on the claim's own board, where
// only that client reads them, instead of asking through its window or
// page (so the user is never asked twice, in two places). The client
// answers with the ordinary answer command (protocol.AnswerAsk). When
// the client goes away (Release: its connection closed, it exited), a
// question still open on its board is answered No with ClientGone, so
// nothing waits for an answer no one will give. Safe for concurrent use;
// the zero value holds no claim.
type Claims struct {
	mu   sync.Mutex
	held map[string]*Claim
}

// ErrClaimed: another client already drives the conversation.
var ErrClaimed = errors.New("another terminal is already driving this conversation")

// ClientGone is the reason given to the model for a question whose client
// went away before it answered.
const ClientGone = "the terminal that was driving this conversation went away before the user answered, so the answer is no"

// Claim is one client's hold on a session's questions.
type Claim struct {
	claims  *Claims
	session string
	board   Questions
	gone    chan struct{}
	once    sync.Once
}

// Claim makes the caller the one asked about session's questions, until
// Release. A session already claimed is ErrClaimed.
func (c *Claims) Claim(session string) (*Claim, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.held == nil {
		c.held = map[string]*Claim{}
	}
	if _, ok := c.held[session]; ok {
		return nil, ErrClaimed
	}
	cl := &Claim{claims: c, session: session, gone: make(chan struct{})}
	c.held[session] = cl
	return cl, nil
}

// Holder is the claim on session, nil when no client holds it.
func (c *Claims) Holder(session string) *Claim {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.held[session]
}

// Release lets the session go: its later questions go to the owner's own
// asker again, and one still open on this claim is answered No
// (ClientGone). Calling it again does nothing.
func (cl *Claim) Release() {
	cl.once.Do(func() {
		cl.claims.mu.Lock()
		if cl.claims.held[cl.session] == cl {
			delete(cl.claims.held, cl.session)
		}
		cl.claims.mu.Unlock()
		close(cl.gone)
	})
}

// Questions is the claim's board: the session's questions open now.
func (cl *Claim) Questions() *Questions { return &cl.board }

// Ask is the owner's asker for a claimed session: it puts q on the claim's
// board until the session's log closes it (the client answered with the
// answer command, the deadline, a stop: ErrAnsweredElsewhere), the client
// goes away (No, ClientGone), or ctx ends.
func (cl *Claim) Ask(ctx context.Context, k protocol.Kernel, q protocol.Question) (protocol.Answer, error) {
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	fate := FollowQuestion(ctx, k, q)
	q, _ = cl.board.Add(q)
	defer cl.board.Remove(q.ID)
	select {
	case <-fate.Closed():
		return protocol.Answer{}, ErrAnsweredElsewhere
	case <-cl.gone:
		return protocol.Answer{Allowed: false, Feedback: ClientGone}, nil
	case <-ctx.Done():
		return protocol.Answer{}, context.Cause(ctx)
	}
}

// ErrAnsweredElsewhere is what an asker returns once the log has closed
// its question: the answer (the answer command, the deadline, a stop) is
// already in the log, so the runtime takes nothing from the asker.
var ErrAnsweredElsewhere = errors.New("the question was closed in the log (answered with the answer command, by the deadline, or by a stop)")

// WatchBoard sends b's open questions, oldest first, at once and again on
// every change, until ctx ends; the list is sent whole each time, so a
// slow reader can never fall behind it.
func WatchBoard(ctx context.Context, b *Questions) <-chan []protocol.Question {
	lists := make(chan []protocol.Question)
	go func() {
		defer close(lists)
		for {
			list, changed := b.Watch()
			select {
			case lists <- list:
			case <-ctx.Done():
				return
			}
			select {
			case <-changed:
			case <-ctx.Done():
				return
			}
		}
	}()
	return lists
}

// QuestionKey names a question by its run and calls, the same on every
// host (a board's ids are its own), so a client that is sent the whole
// list again knows which it has answered.
func QuestionKey(q protocol.Question) string {
	var b strings.Builder
	b.WriteString(q.RunID)
	for _, c := range q.Calls {
		b.WriteString("\x00" + c.ID)
	}
	return b.String()
}
