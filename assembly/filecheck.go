package assembly

import (
	"context"
	"errors"
	"sync"
	"time"

	"quire/doctor"
	"quire/kernel/store"
)

// The whole file's check (SQLite's integrity_check, linear in the file's
// size: 29 s at 1.36 GB, issue 30) runs where nobody waits for it: at an
// owner's open after an unclean end (store.Open), on `quire doctor`
// (Doctor), and in the background as the window or `quire serve` starts
// (Health) when the last one is a week old, whose finding the health
// report then shows every page.
// A page that loads, or its "Check again", reads the last finding and
// checks nothing.

// fileCheck is the last finding of a whole-file check of this process.
type fileCheck struct {
	mu      sync.Mutex
	finding error         // nil: none found, or none checked yet
	done    chan struct{} // closed when the background check ended (tests wait on it)
}

// checkFile runs the whole file's check now and keeps what it found. A
// check that ctx stopped (a tab closed, the app quitting) found nothing and
// changes nothing: it is never reported as damage (issue 31 item 1).
func (p *Parts) checkFile(ctx context.Context) error {
	if p.dbErr != nil || p.store == nil {
		return p.dbErr
	}
	err := p.store.Check(ctx, true)
	if errors.Is(err, store.ErrCheckStopped) {
		return p.fileFinding()
	}
	p.fileCheck.mu.Lock()
	p.fileCheck.finding = err
	p.fileCheck.mu.Unlock()
	return err
}

// fileFinding is what the database's line of a report says: why the file
// could not be opened, or what the last whole-file check found.
func (p *Parts) fileFinding() error {
	if p.dbErr != nil {
		return p.dbErr
	}
	p.fileCheck.mu.Lock()
	defer p.fileCheck.mu.Unlock()
	return p.fileCheck.finding
}

// checkFileInBackground is the start's whole-file check, off the window's
// path, made when the file last passed one more than fileCheckEvery ago
// (or never): at 1.36 GB it is 29 s of CPU, too much to spend at every
// start. When it finds damage, h makes the report again and every page is
// sent it.
func (p *Parts) checkFileInBackground(ctx context.Context, h interface {
	Check(context.Context) doctor.Report
}) {
	defer close(p.fileCheck.done)
	if p.store != nil && p.dbErr == nil {
		now := time.Now
		if p.now != nil {
			now = p.now
		}
		if last, err := p.store.LastFullCheck(ctx); err == nil && now().Sub(last) < fileCheckEvery {
			return
		}
	}
	if p.checkFile(ctx) == nil || ctx.Err() != nil {
		return
	}
	h.Check(ctx)
}

// fileCheckEvery is how long a passed whole-file check stands before a
// start checks again; damage found meanwhile by a read or a write is
// SQLite's error there, and `quire doctor` checks at once.
const fileCheckEvery = 7 * 24 * time.Hour
