package ollama

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/ollama/ollama/api"

	"quire/kernel/provider"
)

// The probes below are what `quire doctor` asks of Ollama. Their errors
// are classified like Stream's, into the provider sentinel errors.

// Version is the version of the Ollama server, such as "0.17.4".
func (p *Provider) Version(ctx context.Context) (string, error) {
	v, err := p.client.Version(ctx)
	if err != nil {
		return "", p.failure(ctx, err, "")
	}
	return v, nil
}

// Models lists the names of the installed models ("qwen3:4b"), as
// /api/tags does: most recently modified first.
func (p *Provider) Models(ctx context.Context) ([]string, error) {
	resp, err := p.client.List(ctx)
	if err != nil {
		return nil, p.failure(ctx, err, "")
	}
	names := make([]string, len(resp.Models))
	for i, m := range resp.Models {
		names[i] = m.Name
	}
	return names, nil
}

// ModelInfo is what Ollama says about one installed model.
type ModelInfo struct {
	Name string
	// Capabilities as Ollama names them: "completion", "tools",
	// "thinking", "embedding", "vision", "insert".
	Capabilities []string
	// ContextLength is the context the model was trained for; zero if
	// Ollama did not say. Ollama caps num_ctx at this.
	ContextLength int
}

// ModelInfo asks Ollama about the model name; ErrModelMissing if it is not
// installed.
func (p *Provider) ModelInfo(ctx context.Context, name string) (ModelInfo, error) {
	resp, err := p.client.Show(ctx, &api.ShowRequest{Model: name})
	if err != nil {
		return ModelInfo{}, p.failure(ctx, err, name)
	}
	info := ModelInfo{Name: name, ContextLength: contextLength(resp.ModelInfo)}
	for _, c := range resp.Capabilities {
		info.Capabilities = append(info.Capabilities, string(c))
	}
	return info, nil
}

// contextLength reads "<architecture>.context_length" from a model's
// metadata, or failing that any key ending in ".context_length".
func contextLength(info map[string]any) int {
	if arch, ok := info["general.architecture"].(string); ok {
		if n, ok := info[arch+".context_length"].(float64); ok {
			return int(n)
		}
	}
	keys := make([]string, 0, len(info))
	for k := range info {
		keys = append(keys, k)
	}
	slices.Sort(keys) // the same answer every time, should there be two
	for _, k := range keys {
		if n, ok := info[k].(float64); ok && strings.HasSuffix(k, ".context_length") {
			return int(n)
		}
	}
	return 0
}

// Embed returns one vector per input, in order, from /api/embed (whose
// vectors have length 1). Inputs longer than the model's context are
// refused (ErrRejected) rather than silently cut, as with chat.
func (p *Provider) Embed(ctx context.Context, model string, inputs []string) ([][]float32, error) {
	truncate := false
	resp, err := p.client.Embed(ctx, &api.EmbedRequest{Model: model, Input: inputs, Truncate: &truncate})
	if err != nil {
		return nil, p.failure(ctx, err, model)
	}
	if len(resp.Embeddings) != len(inputs) {
		return nil, fmt.Errorf("%w: Ollama at %s returned %d embeddings for %d inputs",
			provider.ErrServer, p.host, len(resp.Embeddings), len(inputs))
	}
	return resp.Embeddings, nil
}

// Progress is one step of a pull. Completed and Total count bytes of the
// layer named by Digest; both are zero for steps without a layer, such as
// "pulling manifest" or "success".
type Progress struct {
	Status    string
	Digest    string
	Completed int64
	Total     int64
}

// Pull downloads model, calling onProgress (which may be nil) for each step
// in order. It returns nil only after Ollama reports "success"; an error
// from onProgress stops the pull and is returned as it is. A name the
// registry does not know is ErrModelMissing; a registry Ollama could not
// reach is ErrRegistryUnreachable. Cancelling ctx stops the download and
// keeps what Ollama wrote: a later Pull of the same name resumes it.
func (p *Provider) Pull(ctx context.Context, model string, onProgress func(Progress) error) error {
	var done bool
	var stopped error
	err := p.client.Pull(ctx, &api.PullRequest{Model: model}, func(r api.ProgressResponse) error {
		done = done || r.Status == "success"
		if onProgress == nil {
			return nil
		}
		if err := onProgress(Progress{Status: r.Status, Digest: r.Digest, Completed: r.Completed, Total: r.Total}); err != nil {
			stopped = err
			return err
		}
		return nil
	})
	if stopped != nil {
		return stopped
	}
	// The registry's "not found" and an unreachable registry arrive as
	// error lines, which are otherwise a server failure.
	if err != nil && ctx.Err() == nil {
		if failed := p.pullFailure(err, model); failed != nil {
			p.log.Debug("ollama pull failed", "error", failed)
			return failed
		}
	}
	return p.ended(ctx, err, done, model, "the pull of "+model)
}
