package mcpclient

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"quire/kernel/protocol"
)

// masked is c as a status shows it: every env and header value is
// protocol.MCPMasked, in maps of its own (the stored ones never leave the
// client's lock).
func masked(c protocol.MCPServerConfig) protocol.MCPServerConfig {
	c.Env, c.Headers = maskValues(c.Env), maskValues(c.Headers)
	c.Args = slices.Clone(c.Args)
	return c
}

func maskValues(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k := range m {
		out[k] = protocol.MCPMasked
	}
	return out
}

// unmasked is c with every value still protocol.MCPMasked replaced by
// the value stored under that name (stored: the server's config now, nil
// for a new one). A mask with nothing stored under its name is refused:
// saving the mask would replace a secret with it.
func unmasked(c protocol.MCPServerConfig, stored *protocol.MCPServerConfig) (protocol.MCPServerConfig, error) {
	var env, headers map[string]string
	if stored != nil {
		env, headers = stored.Env, stored.Headers
	}
	var missing []string
	c.Env = keepStored(c.Env, env, &missing)
	c.Headers = keepStored(c.Headers, headers, &missing)
	if len(missing) > 0 {
		slices.Sort(missing)
		return c, protocol.Refusef(protocol.ErrBadPayload, ErrBadConfig,
			"The server %s has no stored value for %s to keep: type the value itself instead of %s.", c.Name, strings.Join(missing, ", "), protocol.MCPMasked)
	}
	return c, nil
}

func keepStored(given, stored map[string]string, missing *[]string) map[string]string {
	if !slices.Contains(slices.Collect(maps.Values(given)), protocol.MCPMasked) {
		return given
	}
	out := make(map[string]string, len(given))
	for k, v := range given {
		if v == protocol.MCPMasked {
			old, ok := stored[k]
			if !ok {
				*missing = append(*missing, fmt.Sprintf("%q", k))
			}
			v = old
		}
		out[k] = v
	}
	return out
}
