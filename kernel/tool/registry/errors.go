package registry

import "errors"

var (
	// ErrDuplicate: two tools declare the same name.
	ErrDuplicate = errors.New("duplicate tool name")
	// ErrInvalidSpec: a tool's declaration is unusable (name, idempotency or
	// parameters schema).
	ErrInvalidSpec = errors.New("invalid tool spec")
	// ErrUnknownTool: no tool is registered under the name.
	ErrUnknownTool = errors.New("unknown tool")
)
