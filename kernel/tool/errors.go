package tool

import "errors"

var (
	// ErrInvalidArgs: a call's arguments are not a JSON object, or do not
	// match the tool's schema. The error's text is written for the model to
	// correct its call; match it with errors.Is.
	ErrInvalidArgs = errors.New("invalid tool arguments")

	// ErrUnknownEffect: ParseEffects met a name that is not an effect.
	ErrUnknownEffect = errors.New("unknown effect")
)
