package ollama

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ollama/ollama/api"

	"quire/kernel/provider"
)

// What the models screen asks of Ollama, beyond doctor's probes
// (probe.go): the installed models with their details, the loaded ones,
// deletion, and what a failed pull means.

// ErrRegistryUnreachable: Ollama could not reach the model registry (no
// internet, a proxy or DNS failure) while pulling. It is the Kind of the
// *provider.Error such a pull returns.
var ErrRegistryUnreachable = errors.New("ollama could not reach the model registry")

// Installed is one model /api/tags lists.
type Installed struct {
	Name          string
	Size          int64
	Modified      time.Time
	Family        string
	ParameterSize string
	Quantization  string
}

// Installed lists the installed models with their details, most recently
// modified first (Models lists only their names).
func (p *Provider) Installed(ctx context.Context) ([]Installed, error) {
	resp, err := p.client.List(ctx)
	if err != nil {
		return nil, p.failure(ctx, err, "")
	}
	out := make([]Installed, len(resp.Models))
	for i, m := range resp.Models {
		out[i] = Installed{Name: m.Name, Size: m.Size, Modified: m.ModifiedAt, Family: m.Details.Family,
			ParameterSize: m.Details.ParameterSize, Quantization: m.Details.QuantizationLevel}
	}
	return out, nil
}

// Loaded lists the names of the models Ollama holds in memory (/api/ps).
func (p *Provider) Loaded(ctx context.Context) ([]string, error) {
	resp, err := p.client.ListRunning(ctx)
	if err != nil {
		return nil, p.failure(ctx, err, "")
	}
	names := make([]string, len(resp.Models))
	for i, m := range resp.Models {
		names[i] = m.Name
	}
	return names, nil
}

// Delete removes an installed model (/api/delete); ErrModelMissing if
// Ollama has no model of that name.
func (p *Provider) Delete(ctx context.Context, name string) error {
	if err := CheckModelName(name); err != nil {
		return err
	}
	if err := p.client.Delete(ctx, &api.DeleteRequest{Model: name}); err != nil {
		return p.failure(ctx, err, name)
	}
	return nil
}

// pullFailure classifies an error line of a pull: the registry's "not
// found", and a registry Ollama could not reach. Both arrive as plain
// {"error": …} lines after "pulling manifest" (server/images.go PullModel:
// "pull model manifest: <the HTTP client's error>"), or while a layer
// downloads; nil when err is neither.
func (p *Provider) pullFailure(err error, model string) error {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "file does not exist"):
		return fmt.Errorf("%w: the Ollama library has no model %q (%w); check the name at https://ollama.com/library",
			provider.ErrModelMissing, model, err)
	case registryUnreachable(msg):
		return &provider.Error{Kind: ErrRegistryUnreachable, Err: err,
			Message: "Ollama could not reach the model registry: check the internet connection, then pull " + model + " again (what was downloaded is kept)"}
	}
	return nil
}

// registryUnreachable reports whether an error line of a pull says the
// registry could not be reached. Ollama passes on the Go HTTP client's
// error as text (`Get "https://registry.ollama.ai/v2/…": dial tcp: lookup
// registry.ollama.ai: no such host`), so the words of Go's net package are
// what is left to read.
func registryUnreachable(msg string) bool {
	for _, s := range []string{
		"dial tcp", "no such host", "network is unreachable", "i/o timeout",
		"TLS handshake timeout", "connection refused", "connection reset by peer",
		"server misbehaving", "Client.Timeout exceeded", "proxyconnect",
	} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// PullTotal folds a pull's per-layer progress into one figure: the bytes
// of every layer announced so far. Layers are announced one after another,
// so Total grows during the pull; a layer already on disk is reported
// complete at once, and a resumed one from the bytes already there.
type PullTotal struct {
	layers map[string][2]int64 // digest → completed, total
	order  []string
}

// Add takes one step of the pull.
func (t *PullTotal) Add(p Progress) {
	if p.Digest == "" {
		return
	}
	if t.layers == nil {
		t.layers = map[string][2]int64{}
	}
	if _, ok := t.layers[p.Digest]; !ok {
		t.order = append(t.order, p.Digest)
	}
	t.layers[p.Digest] = [2]int64{min(p.Completed, p.Total), p.Total}
}

// Bytes are the bytes done and the bytes known, over every layer so far.
func (t *PullTotal) Bytes() (completed, total int64) {
	for _, d := range t.order {
		l := t.layers[d]
		completed += l[0]
		total += l[1]
	}
	return completed, total
}
