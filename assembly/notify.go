package assembly

import (
	"context"
	"fmt"
	"os/exec"
	"strings"

	"quire/kernel/protocol"
)

// Notifier shows a desktop notification: the platform's notifier, which a
// host gives (Extras.Notify), or notify-send where it is installed.
type Notifier func(ctx context.Context, title, body string) error

// NotifySend is the freedesktop notifier through the notify-send program
// found by lookPath; nil when there is none (the badge in the page is then
// the only sign).
func NotifySend(lookPath func(string) (string, error)) Notifier {
	path, err := lookPath("notify-send")
	if err != nil {
		return nil
	}
	return func(ctx context.Context, title, body string) error {
		// The body of a notification is markup to most servers.
		body = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(body)
		out, err := exec.CommandContext(ctx, path, "--app-name=Quire", "--icon=quire", title, body).CombinedOutput()
		if err != nil {
			return fmt.Errorf("notify-send: %w: %s", err, strings.TrimSpace(string(out)))
		}
		return nil
	}
}

// tellWaiting notifies the desktop, once per batch, when a standing task's
// batch waits for the review: the user did not start it, so nothing else
// would tell them it is there.
func (p *Parts) tellWaiting(ctx context.Context, notify Notifier) {
	told := map[string]bool{}
	for pr := range p.queue.Watch(ctx) {
		b := pr.Batch
		if b.State != protocol.BatchReviewing || told[b.ID] {
			continue
		}
		t, ok, err := p.standing.Fired(ctx, b.ID)
		if err != nil || !ok {
			continue
		}
		told[b.ID] = true
		body := fmt.Sprintf("%s proposes changes to %d notes of %s. Nothing changes until you review them.", t.Name, b.Done, t.Folder)
		if err := notify(ctx, "Quire: a batch waits for your review", body); err != nil {
			p.log.Warn("the desktop notification could not be shown; the page's badge still says it", "err", err)
		}
	}
}
