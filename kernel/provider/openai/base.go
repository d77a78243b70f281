package openai

import (
	"fmt"
	"net"
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

// Loopback reports whether u names this machine: localhost or a loopback
// IP address. Anything else means the conversation leaves the laptop.
func Loopback(u *url.URL) bool {
	host := u.Hostname()
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// CheckBase is ParseBase with the loopback rule: an address off this
// machine is refused (ErrRemote) unless remote is true, the user's
// explicit choice to send conversations there.
func CheckBase(s string, remote bool) (*url.URL, error) {
	u, err := ParseBase(s)
	if err != nil {
		return nil, err
	}
	if !remote && !Loopback(u) {
		return nil, fmt.Errorf("%w: %s", ErrRemote, u.Host)
	}
	return u, nil
}
