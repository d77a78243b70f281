package host

import "errors"

// ErrUnknownOp: no port has an operation of that name.
var ErrUnknownOp = errors.New("no such operation")

// ErrBadArgs: the arguments do not fit the operation's parameters.
var ErrBadArgs = errors.New("the operation's arguments are not the JSON expected")

// ErrNoPort: this Quire has no back end for the operation's panel.
var ErrNoPort = errors.New("this part of Quire is not available here (its database could not be opened, or this host has none); see the health checks")
