package skills

import (
	"errors"

	"quire/kernel/protocol"
)

// Sentinel errors. A refusal wraps one of these and protocol.ErrBadPayload,
// with a sentence that says what is wrong and what to do.
var (
	ErrNoSkillFile   = errors.New("the folder has no SKILL.md")
	ErrFrontMatter   = errors.New("the SKILL.md front matter is missing or not valid")
	ErrBadField      = errors.New("a SKILL.md field is not valid")
	ErrTooLarge      = errors.New("the skill is too large")
	ErrBadFile       = errors.New("a file the skill ships is not valid")
	ErrNoInstruction = errors.New("the skill has no instructions")
	ErrInstalled     = errors.New("a skill of that name is installed already")
	ErrUnknownSkill  = errors.New("no skill of that name is installed")
)

func refuse(sentinel error, msg string) error {
	return protocol.Refusal(protocol.ErrBadPayload, sentinel, msg)
}
