package window

import (
	"errors"
)

// The window's sentinels. Its words for the kernel's errors that need them
// are the page's, made once in package host (host.Spoken): the window and
// `quire serve` show one page.

// errWindowNotUp: the window was still not shown when the second start
// gave up waiting for it.
var errWindowNotUp = errors.New("the window is still opening")

// errQuestionClosed: the run's log closed the question before the user
// answered it here.
var errQuestionClosed = errors.New("the question was closed before it was answered")

var errNoHandshake = errors.New("the window has not shaken hands with Quire yet (call Handshake first); reload the window")

// errNoSettingsHere: a window without the settings port.
var errNoSettingsHere = errors.New("settings cannot be changed in this window")

var errNoNotesHere = errors.New("the notes panel is not available in this window (its database could not be opened); see the health checks")

// errNoBatches: this window was built without the task queue.
var errNoBatches = errors.New("organising a folder is not available in this window")

// errNoWindow: a batch's yes was asked for before the window was up.
var errNoWindow = errors.New("the window is not open yet, so Quire cannot ask; try again in a moment")

// errNoMCP: this window was built without MCP servers.
var errNoMCP = errors.New("MCP servers are not available in this window; update Quire")

// errMCPDeclined: the user said No to the servers' dialog.
var errMCPDeclined = errors.New("you said No: no MCP server was added or changed, and nothing was run")

// errMCPTooLong: what would run does not fit in one dialog, so it cannot be
// asked whole.
var errMCPTooLong = errors.New("these MCP servers are too long to show whole in one question, so Quire did not add them; " +
	"add them a few at a time, or type each with `quire mcp add` in a terminal")

// errNoEvolution: this window was built without the evolution part.
var errNoEvolution = errors.New("evolution is not available in this window")

// errAsksFirst: an operation the window confirms in a dialog, called
// without its dialog (Op).
var errAsksFirst = errors.New("the window asks the user before this operation; call its own method")
