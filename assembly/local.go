package assembly

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"syscall"
	"time"

	"quire/host/httpapi"
	"quire/internal/datadir"
	"quire/kernel/store"
)

// lockFolder takes the data folder for this owner before anything opens
// the database for writing. Another owner holding it is a
// *datadir.InUseError. A lock that cannot be taken for another reason (a
// read-only folder) is an error too: the caller then opens nothing for
// writing in a folder this process does not own.
func (p *Parts) lockFolder(dir string, kind datadir.Kind) error {
	lock, err := datadir.Acquire(dir, datadir.Holder{PID: os.Getpid(), Kind: kind, Since: time.Now()})
	if errors.Is(err, datadir.ErrInUse) {
		return err
	}
	if errors.Is(err, syscall.EROFS) || errors.Is(err, fs.ErrPermission) {
		// The lock file could not be made: the folder cannot be written,
		// which the store's own check would say too. Said as read-only, so
		// the remedy is "make it writable", not "move it aside".
		return fmt.Errorf("cannot take the data folder %s for this process: %w: %w", dir, store.ErrReadOnly, err)
	}
	if err != nil {
		return fmt.Errorf("cannot take the data folder %s for this process: %w", dir, err)
	}
	p.lock = lock
	if kind != datadir.Window && kind != datadir.Serve {
		return nil
	}
	// Opened now, before the database, so a client that connects while
	// the owner starts waits in the socket's queue instead of being told
	// nobody is there; it is answered once the host serves it.
	if p.local, err = lock.Listen(p.log); err != nil {
		p.log.Warn("the local channel is not open: `quire index` cannot reach this Quire", "err", err)
	}
	return nil
}

// ServeLocal serves b on the local channel (quire.sock in the data folder)
// until Close: the API routes of `quire serve`, for `quire index` and a
// second window, and the window's Show. It does nothing for an owner
// without one (`quire index`, the eval set) or when the database could not
// be opened (there is nothing to serve then).
func (p *Parts) ServeLocal(ctx context.Context, b httpapi.Backend) {
	if p.local == nil || p.stopLocal != nil {
		return
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := httpapi.ServeSocket(ctx, p.local, b, p.log); err != nil {
			p.log.Warn("the local channel stopped", "err", err)
		}
	}()
	p.stopLocal = func() {
		cancel()
		<-done
	}
}

// Announce records in the lock where this owner answers (`quire serve`'s
// address), so a second window can say where Quire is already open. The
// query is dropped: a secret in it must not be written to disk.
func (p *Parts) Announce(addr string) {
	if p.lock == nil {
		return
	}
	if u, err := url.Parse(addr); err == nil {
		u.RawQuery, u.Fragment = "", ""
		addr = u.String()
	}
	if err := p.lock.Announce(addr); err != nil {
		p.log.Warn("cannot record the address in the data folder's lock", "err", err)
	}
}
