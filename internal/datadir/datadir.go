// Package datadir owns the rule that one process owns a data folder: an
// exclusive OS file lock on quire.lock, taken by the owner (the window,
// `quire serve`, `quire index`) for its lifetime and let go by the kernel
// when the process ends, however it ends, so a crash never leaves a stale
// lock; the record in that file of who holds it (process id, host kind,
// since when, the address `quire serve` answers on), which a refused
// process reads to say who holds the folder; and the owner's local
// channel, a Unix socket (quire.sock) in the folder — or, when the folder's
// path is too long for a socket address, in a 0700 folder of the user's
// own elsewhere, named in the record — that only the folder's user may
// open: mode 0600, and every peer's uid checked (SO_PEERCRED), by the
// owner and by a client (CheckPeer).
//
// Readers (`quire doctor`, `sessions`, `replay`, `search`) never take the
// lock and never touch these files.
//
// It imports only the standard library and golang.org/x/sys: the
// composition root takes the lock and hosts word the refusal, so it must
// never import a Quire package.
package datadir

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// The files the owner keeps in the data folder.
const (
	LockFile   = "quire.lock"
	SocketFile = "quire.sock"
)

// Kind is the kind of process that owns a folder.
type Kind string

// The owners.
const (
	Window Kind = "window" // the desktop window
	Serve  Kind = "serve"  // `quire serve`
	Index  Kind = "index"  // `quire index` with no owner running
	// Terminal: `quire chat` or `quire run` with no owner running.
	Terminal Kind = "terminal"
)

// Holder is who holds a folder, as its lock file records it.
type Holder struct {
	PID   int       `json:"pid"`
	Kind  Kind      `json:"kind"`
	Since time.Time `json:"since"`
	// URL is where `quire serve` answers (no secret in it), once it listens.
	URL string `json:"url,omitempty"`
	// Socket is the local channel's address, once it listens (SocketPath).
	Socket string `json:"socket,omitempty"`
}

// Known reports whether the record could be read (a holder that has only
// just taken the lock may not have written it yet).
func (h Holder) Known() bool { return h.PID > 0 }

// String names the holder for a sentence: "`quire serve` (process 4242,
// since 10:58 on 1 Dec 2026)".
func (h Holder) String() string {
	if !h.Known() {
		return "another Quire process"
	}
	name := "Quire"
	switch h.Kind {
	case Window:
		name = "the Quire window"
	case Serve:
		name = "`quire serve`"
	case Index:
		name = "`quire index`"
	case Terminal:
		name = "`quire chat` or `quire run`"
	}
	return name + " (" + h.Process() + ")"
}

// Process is "process 4242, since 10:58 on 1 Dec 2026".
func (h Holder) Process() string {
	return fmt.Sprintf("process %d, since %s", h.PID, h.Since.Local().Format("15:04 on 2 Jan 2006"))
}

// ErrInUse: another process holds the folder. The error Acquire returns
// is an *InUseError, which says who.
var ErrInUse = errors.New("the data folder is in use by another quire process")

// InUseError is ErrInUse with the folder and its holder.
type InUseError struct {
	Dir    string
	Holder Holder
}

func (e *InUseError) Error() string {
	h := e.Holder
	if !h.Known() {
		return fmt.Sprintf("%s: %v", e.Dir, ErrInUse)
	}
	return fmt.Sprintf("%s: %v (%s, pid %d, since %s)", e.Dir, ErrInUse, h.Kind, h.PID, h.Since.Format(time.RFC3339))
}

func (e *InUseError) Unwrap() error { return ErrInUse }

// ErrLink: a file Quire keeps in the data folder is a symbolic link, which
// it never follows.
var ErrLink = errors.New("is a symbolic link, which Quire never follows in its data folder: remove it")

// linkErr names ErrLink for an open that O_NOFOLLOW refused.
func linkErr(err error) error {
	if errors.Is(err, syscall.ELOOP) {
		return fmt.Errorf("%w (%w)", ErrLink, err)
	}
	return err
}

// maxSocketPath is the longest socket address every Unix takes (Linux's
// sun_path holds 107 bytes and a NUL, macOS's 103).
const maxSocketPath = 103

// SocketPath is where a client finds the local channel of dir's owner: the
// address its record names (Holder.Socket), else the one an owner would
// listen at (ownSocketPath).
func SocketPath(dir string) string {
	if f, err := os.OpenFile(filepath.Join(dir, LockFile), os.O_RDONLY|noFollow, 0); err == nil {
		h := readHolder(f)
		f.Close()
		if h.Socket != "" {
			return h.Socket
		}
	}
	return ownSocketPath(dir)
}

// ownSocketPath is where an owner of dir listens: quire.sock in the folder
// when its path fits a socket address, else a short path in a folder of
// this user's own (0700; Listen checks it), named by a hash of the data
// folder's path: under $XDG_RUNTIME_DIR (the user's, made by the system
// for this), else /tmp/quire-UID. A deep data folder then keeps its local
// channel: `quire run`, `index`, `chat` and `mcp add` still reach it.
func ownSocketPath(dir string) string {
	in := filepath.Join(dir, SocketFile)
	if len(in) <= maxSocketPath {
		return in
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	sum := sha256.Sum256([]byte(abs))
	name := hex.EncodeToString(sum[:8]) + ".sock"
	if run := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(run) {
		if p := filepath.Join(run, "quire", name); len(p) <= maxSocketPath {
			return p
		}
	}
	return filepath.Join("/tmp", fmt.Sprintf("quire-%d", os.Getuid()), name)
}

// ErrForeignFolder: the folder for a socket outside the data folder is not
// this user's own, so another user could listen in it or replace it.
var ErrForeignFolder = errors.New("the folder of the local channel is not this user's own")

// privateFolder makes dir (its parent must exist) 0700, or checks that
// the one there is a folder of this user's, not a link, that no one else
// may enter.
func privateFolder(dir string) error {
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return err
	}
	st, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !st.IsDir() || st.Mode()&os.ModeSymlink != 0 || st.Mode().Perm()&0o077 != 0 || !ownedByMe(st) {
		return fmt.Errorf("%s (%v): %w; remove it and start Quire again", dir, st.Mode(), ErrForeignFolder)
	}
	return nil
}

// Lock is a held folder. Its methods are safe for concurrent use.
type Lock struct {
	dir string
	mu  sync.Mutex
	f   *os.File // nil once released
	h   Holder
	ln  net.Listener
}

// Acquire takes dir (which must exist) for h, or returns an *InUseError
// naming the process that holds it. It never waits for the holder.
func Acquire(dir string, h Holder) (*Lock, error) {
	path := filepath.Join(dir, LockFile)
	// Never through a link: one planted in the folder (a synced or restored
	// folder) would have the record written over whatever it names.
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|noFollow, 0o600)
	if err != nil {
		return nil, fmt.Errorf("cannot open the lock file %s: %w", path, linkErr(err))
	}
	held, err := tryLock(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("cannot lock %s: %w", path, err)
	}
	if !held {
		holder := readHolder(f)
		f.Close()
		return nil, &InUseError{Dir: dir, Holder: holder}
	}
	l := &Lock{dir: dir, f: f, h: h}
	if err := l.write(); err != nil {
		l.Release()
		return nil, err
	}
	return l, nil
}

// Held reads who holds dir; ok is false when nobody does (or the folder
// has no lock file). It writes nothing and creates nothing. On Linux it
// takes no lock either: the kernel's table of locks says who holds the
// folder's, so a reader asking (`quire doctor`) can never make an owner
// that starts at that moment see the folder as taken. Elsewhere it takes
// the lock for a moment to find out.
func Held(dir string) (h Holder, ok bool, err error) {
	f, err := os.OpenFile(filepath.Join(dir, LockFile), os.O_RDONLY|noFollow, 0)
	err = linkErr(err)
	if errors.Is(err, os.ErrNotExist) {
		return Holder{}, false, nil
	}
	if err != nil {
		return Holder{}, false, err
	}
	defer f.Close()
	h = readHolder(f)
	pid, held, err := flockHolder(f, h.PID)
	switch {
	case errors.Is(err, errNoLockTable):
		free, err := tryLock(f)
		if err != nil || free {
			return Holder{}, false, err // closing f lets it go
		}
		return h, true, nil
	case err != nil || !held:
		return Holder{}, false, err
	case pid != h.PID:
		// An owner that has only just taken the lock and not yet written
		// its record: the record is its predecessor's.
		return Holder{}, true, nil
	}
	return h, true, nil
}

// Announce records the address the owner answers on, for the sentence a
// second process says.
func (l *Lock) Announce(url string) error {
	l.mu.Lock()
	l.h.URL = url
	l.mu.Unlock()
	return l.write()
}

// write replaces the record. A refused process may read it half-written;
// it then names "another Quire process".
func (l *Lock) write() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.writeLocked()
}

func (l *Lock) writeLocked() error {
	if l.f == nil {
		return nil
	}
	b, err := json.Marshal(l.h)
	if err != nil {
		return err
	}
	if _, err := l.f.WriteAt(append(b, '\n'), 0); err != nil {
		return fmt.Errorf("cannot write the lock file: %w", err)
	}
	return l.f.Truncate(int64(len(b) + 1))
}

func readHolder(f *os.File) Holder {
	b := make([]byte, 4096)
	n, _ := f.ReadAt(b, 0)
	var h Holder
	if json.Unmarshal(b[:n], &h) != nil {
		return Holder{}
	}
	return h
}

// Listen opens the local channel: a stale socket file (from an owner that
// died) is removed first — only the holder of the lock may do that, so no
// live owner's socket is ever removed — and the socket is made 0600.
// Every connection from another user is refused and logged. The listener
// is closed (and its file removed) by Release, while the lock is held.
func (l *Lock) Listen(log *slog.Logger) (net.Listener, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil, errors.New("the data folder's lock was released")
	}
	if l.ln != nil {
		return nil, errors.New("the local channel is already open")
	}
	path := ownSocketPath(l.dir)
	if filepath.Dir(path) != filepath.Clean(l.dir) {
		if err := privateFolder(filepath.Dir(path)); err != nil {
			return nil, fmt.Errorf("cannot open the local channel %s: %w", path, err)
		}
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("cannot remove the stale socket %s: %w", path, err)
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("cannot open the local channel %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("cannot make the local channel private: %w", err)
	}
	l.ln = &peerListener{Listener: ln, uid: os.Getuid(), log: log}
	l.h.Socket = path
	if err := l.writeLocked(); err != nil {
		l.ln.Close()
		l.ln = nil
		return nil, err
	}
	return l.ln, nil
}

// Release closes the local channel and lets the folder go. The caller has
// closed the database first.
func (l *Lock) Release() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	if l.ln != nil {
		l.ln.Close() // removes the socket file, while the lock still says it is ours
		l.ln = nil
	}
	err := l.f.Close() // closing the last descriptor lets the lock go
	l.f = nil
	return err
}

// ErrForeignPeer: what answers at the local channel's address is not a
// process of this user's.
var ErrForeignPeer = errors.New("the local channel is answered by another user's process")

// CheckPeer is a client's check of a connection it made to a local
// channel: the owner at the other end must be of this user's, as the
// owner checks its clients (a socket outside the data folder sits where
// another user could, in principle, have listened first).
func CheckPeer(c net.Conn) error {
	uid, err := peerUID(c)
	if err != nil {
		return err
	}
	if uid != os.Getuid() {
		return fmt.Errorf("%w (uid %d)", ErrForeignPeer, uid)
	}
	return nil
}

// peerListener hands on only the connections of uid.
type peerListener struct {
	net.Listener
	uid int
	log *slog.Logger
}

func (l *peerListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		uid, err := peerUID(c)
		if err == nil && uid == l.uid {
			return c, nil
		}
		l.log.Warn("the local channel refused a connection from another user", "uid", uid, "err", err)
		c.Close()
	}
}
