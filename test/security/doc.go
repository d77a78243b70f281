// Package security plays attacks against `quire serve` as main wires it —
// the composition root (assembly) as an Owner over a temporary data
// folder, its backend served by host/httpapi on a loopback port, Ollama at
// the fake server's address — and checks each is refused and changes
// nothing. It is tests only; `go test ./...` (and so `make test`) runs them.
//
// Each file holds one family of attacks (webauth_test.go: web pages and
// other local clients driving the HTTP API). It must never be imported.
package security
