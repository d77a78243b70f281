package ollama

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
)

// DefaultPort is the port Ollama listens on.
const DefaultPort = "11434"

// ParseHost reads an Ollama address as OLLAMA_HOST is read by Ollama's own
// client (envconfig.Host), with one deliberate difference:
//
//   - "" means http://127.0.0.1:11434;
//   - "host" or "host:port" means http, with port 11434 if none is given;
//   - "https://host" without a port means port 443;
//   - "ollama.com" means https://ollama.com:443;
//   - a path after the host is kept, for servers behind a path prefix.
//
// The difference: Ollama reads "http://host" without a port as port 80,
// because that is what the URL says. But people write
// OLLAMA_HOST=http://localhost meaning "Ollama on my machine", nothing
// answers on port 80, and Quire would report Ollama as not running while it
// is. Nobody runs Ollama itself on port 80, so here "http://host" means port
// 11434; a proxy on port 80 can still be named as "http://host:80".
//
// Unlike Ollama, which logs a warning and uses the default port, ParseHost
// refuses what it cannot read (an unknown scheme, a bad port) with
// ErrBadHost, so that a typo is reported rather than guessed around.
func ParseHost(s string) (*url.URL, error) {
	s = strings.TrimSpace(s)
	defaultPort := DefaultPort
	scheme, hostport, ok := strings.Cut(s, "://")
	switch {
	case !ok:
		scheme, hostport = "http", s
		if s == "ollama.com" {
			scheme, hostport = "https", "ollama.com:443"
		}
	case scheme == "http":
		// 11434, not 80: see above.
	case scheme == "https":
		defaultPort = "443"
	default:
		return nil, fmt.Errorf("%w: %q: the scheme must be http or https", ErrBadHost, s)
	}

	hostport, path, _ := strings.Cut(hostport, "/")
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		// No port: a bare name or IP address (IPv6 with or without brackets).
		host, port = hostport, ""
		if ip := net.ParseIP(strings.Trim(hostport, "[]")); ip != nil {
			host = ip.String()
		}
	}
	if host == "" {
		host = "127.0.0.1"
	}
	if port == "" {
		port = defaultPort
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return nil, fmt.Errorf("%w: %q: the port must be a number from 1 to 65535", ErrBadHost, s)
	}

	u := &url.URL{Scheme: scheme, Host: net.JoinHostPort(host, port)}
	if path != "" {
		u.Path = "/" + path
	}
	// Reparsing catches what no URL may contain, such as spaces in the host.
	if _, err := url.Parse(u.String()); err != nil {
		return nil, fmt.Errorf("%w: %q: %v", ErrBadHost, s, err)
	}
	return u, nil
}
