package assembly

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"path"
	"sync"
	"time"

	"quire/host"
	"quire/kernel/protocol"
	"quire/kernel/runtime"
	"quire/queue"
	"quire/standing"
	"quire/tools/notes"
	"quire/vaultindex"
)

// standingTick is how often a long-lived host looks for due standing tasks.
// The notes index's watch wakes it at once when a note lands (folderLook).
const standingTick = time.Minute

// powerSupplies is where Linux tells the battery; elsewhere it is absent
// and no firing is held back for it.
const powerSupplies = "/sys/class/power_supply"

// queueProposer is the standing tasks' one way to act: the queue's
// StartOrder, which only proposes. It has no Apply.
type queueProposer struct{ q *queue.Queue }

func (p queueProposer) Propose(ctx context.Context, o standing.Order) (protocol.Batch, error) {
	return p.q.StartOrder(ctx, queue.Order{ID: o.ID, Folder: o.Folder, Instruction: o.Instruction, MaxNotes: o.MaxNotes})
}

func (p queueProposer) Batch(ctx context.Context, id string) (protocol.Batch, bool, error) {
	r, err := p.q.Get(ctx, id)
	if errors.Is(err, protocol.ErrNotFound) {
		return protocol.Batch{}, false, nil
	}
	return r.Batch, err == nil, err
}

// chatStreams says the user's conversation is using the model: the
// workers run the same model (workerSettings), so a firing then would
// take it from the user.
type chatStreams struct{ rt *runtime.Runtime }

func (c chatStreams) Chatting() bool { return c.rt.Status().Streams > 0 }

// folderLook sees the standing tasks' folders: how many notes each holds,
// and when a note last landed in each (made, or moved in). With a notes
// index, a landing is what its watch commits (indexed, which wakes the
// runner); without one, a note name the previous look did not see. Either
// way what a start finds is remembered, not a landing.
type folderLook struct {
	notes *notesTools
	now   func() time.Time
	mu    sync.Mutex
	seen  map[string]map[string]bool // folder -> its note names at the last look

	from    *vaultindex.Index    // the index landed is of
	scanned bool                 // from's first scan was told
	landed  map[string]time.Time // folder (path.Clean'd) -> when a note last landed in it
}

// indexed is told each committed write of the notes index x: a note it
// did not hold before is a landing in its folder. It says whether one
// landed. The first scan of an index is what is there, not a landing.
func (f *folderLook) indexed(x *vaultindex.Index, u vaultindex.Update) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.from != x {
		// Seen first after its first scan was told, an index's next scan
		// is one the watch asked for (it lost events): what it adds landed.
		f.from, f.scanned, f.landed = x, !u.Rescan && x.Synced(), map[string]time.Time{}
	}
	if u.Rescan && !f.scanned {
		f.scanned = true
		return false
	}
	landed := false
	for _, rel := range u.Added {
		if notes.IsNoteName(path.Base(rel)) {
			f.landed[path.Dir(rel)] = f.now()
			landed = true
		}
	}
	return landed
}

func (f *folderLook) look(ctx context.Context, folders []string) (standing.Vault, error) {
	v := standing.Vault{Count: map[string]int{}, Landed: map[string]time.Time{}}
	x := f.notes.Index()
	f.mu.Lock()
	defer f.mu.Unlock()
	if x != nil && x == f.from {
		for _, folder := range folders {
			if at, ok := f.landed[path.Clean(protocol.BatchFolder(folder))]; ok {
				v.Landed[folder] = at
			}
		}
	}
	var errs []error
	for _, folder := range folders {
		abs, err := f.notes.resolve(protocol.BatchFolder(folder))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		entries, err := os.ReadDir(abs)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		now, before := map[string]bool{}, f.seen[folder]
		for _, e := range entries {
			if !e.IsDir() && notes.IsNoteName(e.Name()) {
				now[e.Name()] = true
				if x == nil && before != nil && !before[e.Name()] {
					v.Landed[folder] = f.now()
				}
			}
		}
		v.Count[folder] = len(now)
		f.seen[folder] = now
	}
	return v, errors.Join(errs...)
}

// openStanding opens the standing tasks over the database, once the queue
// and its workers are there (they are what a firing starts). Off, with a
// warning, when the tables cannot be opened.
func (p *Parts) openStanding(ctx context.Context) {
	if p.queue == nil || !p.batchesOn.Load() {
		return
	}
	now := time.Now
	if p.now != nil {
		now = p.now
	}
	st, err := standing.Open(ctx, p.store.DB(), now, standingID)
	if err != nil {
		p.log.Error("the standing tasks could not be opened; they are off", "err", err)
		return
	}
	open := func(ctx context.Context) (string, error) {
		s, err := protocol.Run[protocol.Session](ctx, p.runtime, "standing:log", protocol.CreateSession,
			protocol.CreateSessionPayload{Title: "Standing tasks", Kind: protocol.SessionStanding})
		return s.ID, err
	}
	look := &folderLook{notes: p.notes, now: now, seen: map[string]map[string]bool{}}
	p.standing = standing.NewRunner(st, queueProposer{p.queue}, standing.LogJournal(p.runtime, open, now),
		standing.WithClock(now), standing.WithLogger(p.log.With("part", "standing tasks")),
		standing.WithChat(chatStreams{p.runtime}), standing.WithVault(look.look),
		standing.WithPower(standing.SysPower{Dir: powerSupplies}, func() int { return p.settings.Get().Batch.StandingMinBattery }),
		standing.WithPerNote(standing.PerNote{ModelCalls: workerLimits.MaxSteps, Tokens: workerLimits.TokenBudget}))
	runner := p.standing
	p.notes.follow(func(x *vaultindex.Index, u vaultindex.Update) {
		if look.indexed(x, u) {
			runner.Wake()
		}
	})
	// A firing a stop cut off is settled now, in every process that owns
	// the folder, so `quire tasks list` never shows one half made.
	if err := p.standing.Recover(ctx); err != nil {
		p.log.Warn("the standing tasks' last firings could not be settled", "err", err)
	}
}

func standingID() string {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return hex.EncodeToString(b[:])
}

// Standing is the standing tasks for hosts, or nil (a nil interface) when
// they are off: no queue, or a Reader.
func (p *Parts) Standing() host.Standing {
	if p.standing == nil {
		return nil
	}
	return p.standing
}

// RunStanding starts firing due standing tasks, until ctx ends or the
// parts close: a long-lived host (the window, `quire serve`) calls it,
// never a one-shot command, so a task fires only while Quire is open and
// a slot missed meanwhile fires once at the next start. A second call
// does nothing.
func (p *Parts) RunStanding(ctx context.Context) {
	if p.standing == nil || p.standingStop != nil {
		return
	}
	ctx, p.standingStop = context.WithCancel(ctx)
	p.standingDone = make(chan struct{})
	var loops sync.WaitGroup
	every := standingTick
	if p.standingEvery > 0 {
		every = p.standingEvery
	}
	loops.Go(func() { p.standing.Loop(ctx, every) })
	if p.notify != nil {
		loops.Go(func() { p.tellWaiting(ctx, p.notify) })
	}
	go func() {
		loops.Wait()
		close(p.standingDone)
	}()
}

// stopStanding ends the firing loop and waits for a firing under way, so
// the queue it starts batches in closes after it.
func (p *Parts) stopStanding() {
	if p.standingStop != nil {
		p.standingStop()
		<-p.standingDone
	}
}
