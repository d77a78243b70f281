package openai

import (
	"fmt"
	"net/url"
	"strings"
)

// ParseBase reads the address of an OpenAI-compatible API: "host:port",
// "http://host:port" or with its path ("http://host:1234/v1"). Without a
// path the API is at /v1, where every runner Quire knows serves it; a
// path is kept for a server behind a prefix. It refuses what it cannot
// read (ErrBadBase) rather than guessing.
func ParseBase(s string) (*url.URL, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, fmt.Errorf("%w: the address is empty", ErrBadBase)
	}
	if !strings.Contains(s, "://") {
		s = "http://" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("%w: %q: %v", ErrBadBase, s, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("%w: %q: the scheme must be http or https", ErrBadBase, s)
	}
	if u.Hostname() == "" || u.Port() == "" && u.Scheme == "http" {
		return nil, fmt.Errorf("%w: %q: give the host and its port, such as 127.0.0.1:1234", ErrBadBase, s)
	}
	if u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return nil, fmt.Errorf("%w: %q: no query, fragment or user belongs in it", ErrBadBase, s)
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	if u.Path == "" {
		u.Path = "/v1"
	}
	return u, nil
}
