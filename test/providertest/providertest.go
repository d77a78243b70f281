// Package providertest is the fixture the model providers' tests share
// (kernel/provider/ollama, kernel/provider/openai): a one-line request, the
// chunks a stream delivered, and an address where nothing listens. Each
// test builds its own provider over the fake Ollama server (test/ollamatest),
// so both adapters are held to the same questions.
//
// Only tests import it. It must never import a provider adapter, only the
// kernel/provider contract they share.
package providertest

import (
	"context"
	"net"
	"testing"

	"quire/kernel/provider"
)

// Hello is a request to model of one user message, "hello".
func Hello(model string) provider.Request {
	return provider.Request{Model: model, Messages: []provider.Message{{Role: provider.RoleUser, Content: "hello"}}}
}

// Chunks runs p.Stream and returns the chunks it delivered, in order, with
// its error (the chunks before a failure are kept).
func Chunks(ctx context.Context, p provider.Provider, req provider.Request) ([]provider.Chunk, error) {
	var got []provider.Chunk
	err := p.Stream(ctx, req, func(c provider.Chunk) error {
		got = append(got, c)
		return nil
	})
	return got, err
}

// ClosedPort is the URL of a loopback address where nothing listens: a
// port taken from the system and given back at once.
func ClosedPort(tb testing.TB) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr
}
