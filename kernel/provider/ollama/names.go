package ollama

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ollama/ollama/types/model"
)

// ErrBadModelName: a name Ollama would refuse ("invalid model name").
var ErrBadModelName = errors.New("not a valid Ollama model name")

// SameModel reports whether a and b name the same model the way Ollama
// matches names: each is completed with Ollama's defaults (host
// registry.ollama.ai, namespace library, tag latest) and the parts are
// compared without regard to case, so "Tiny-Text", "library/tiny-text" and
// "registry.ollama.ai/library/tiny-text:latest" are one model. A name
// Ollama cannot parse matches nothing, not even itself.
func SameModel(a, b string) bool {
	na, nb := model.ParseName(a), model.ParseName(b)
	return na.IsValid() && nb.IsValid() && na.EqualFold(nb)
}

// FindModel returns the name in names that is the same model as name
// (SameModel), as Ollama spells it, and whether there is one.
func FindModel(names []string, name string) (string, bool) {
	for _, n := range names {
		if SameModel(n, name) {
			return n, true
		}
	}
	return "", false
}

// CheckModelName refuses a name Ollama could not parse, before it is
// sent: an empty name, one with a character Ollama does not allow, or a
// part over Ollama's length limits.
func CheckModelName(name string) error {
	if !model.ParseName(name).IsValid() {
		return fmt.Errorf("%w: %q", ErrBadModelName, name)
	}
	return nil
}

// ModelKey is the one spelling of every name SameModel deems the same
// model (its full form, lower case), for keying maps; "" for a name Ollama
// cannot parse.
func ModelKey(name string) string {
	n := model.ParseName(name)
	if !n.IsValid() {
		return ""
	}
	return strings.ToLower(n.String())
}
