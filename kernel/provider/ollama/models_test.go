package ollama_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"quire/kernel/provider"
	"quire/kernel/provider/ollama"
	"quire/test/ollamatest"
)

func TestInstalledListsDetails(t *testing.T) {
	t.Parallel()
	srv, p := fake(t)
	srv.AddModel(ollamatest.Model{Name: "nomic-embed-text", Family: "nomic-bert", ParameterSize: "137M", QuantizationLevel: "F16", Size: 274_302_450})
	got, err := p.Installed(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("Installed = %+v, want 2 models", got)
	}
	want := ollama.Installed{Name: "nomic-embed-text:latest", Size: 274_302_450, Family: "nomic-bert", ParameterSize: "137M", Quantization: "F16"}
	got[0].Modified = time.Time{}
	if got[0] != want {
		t.Errorf("newest = %+v, want %+v", got[0], want)
	}
	if got[1].Name != "qwen3:4b" || got[1].Family != "qwen3" {
		t.Errorf("second = %+v, want qwen3:4b of family qwen3", got[1])
	}
}

func TestLoadedListsWhatOllamaHoldsInMemory(t *testing.T) {
	t.Parallel()
	srv, p := fake(t)
	srv.AddModel(ollamatest.Model{Name: "tiny-text"})
	if got, err := p.Loaded(t.Context()); err != nil || len(got) != 0 {
		t.Fatalf("Loaded before any use = %q, %v; want none", got, err)
	}
	srv.Load("Tiny-Text")
	if got, err := p.Loaded(t.Context()); err != nil || !slices.Equal(got, []string{"tiny-text:latest"}) {
		t.Errorf("Loaded = %q, %v; want [tiny-text:latest]", got, err)
	}
}

func TestDeleteRemovesTheModel(t *testing.T) {
	t.Parallel()
	srv, p := fake(t)
	srv.AddModel(ollamatest.Model{Name: "tiny-text"})
	srv.Load("tiny-text")
	if err := p.Delete(t.Context(), "library/Tiny-Text"); err != nil {
		t.Fatal(err)
	}
	if names, _ := p.Models(t.Context()); !slices.Equal(names, []string{"qwen3:4b"}) {
		t.Errorf("after the delete, Models = %q", names)
	}
	if loaded, _ := p.Loaded(t.Context()); len(loaded) != 0 {
		t.Errorf("a deleted model is still loaded: %q", loaded)
	}
	for _, tc := range []struct {
		name string
		want error
	}{
		{"tiny-text", provider.ErrModelMissing},
		{"bad name!", ollama.ErrBadModelName},
	} {
		if err := p.Delete(t.Context(), tc.name); !errors.Is(err, tc.want) {
			t.Errorf("Delete(%q) = %v, want %v", tc.name, err, tc.want)
		}
	}
}

// TestPullResumesAfterCancel: a pull cancelled half way keeps its bytes,
// and the next pull of the same name starts from them, as Ollama's does.
func TestPullResumesAfterCancel(t *testing.T) {
	t.Parallel()
	// The fake holds the pull at 2,000 of the first layer's 4,000 bytes
	// until it is cancelled.
	srv := ollamatest.New(t, ollamatest.WithHeldWait(5))
	srv.AddPullable(ollamatest.Model{Name: "qwen3:4b", Size: 4000})
	p := ollama.New(mustHost(t, srv.URL()), nil)

	ctx, cancel := context.WithCancelCause(t.Context())
	stop := errors.New("the user cancelled")
	err := p.Pull(ctx, "qwen3:4b", func(pr ollama.Progress) error {
		if pr.Total == 4000 && pr.Completed == 2000 {
			cancel(stop)
		}
		return nil
	})
	if !errors.Is(err, stop) || !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled pull: %v; want the cause and context.Canceled", err)
	}
	if names, _ := p.Models(t.Context()); len(names) != 0 {
		t.Fatalf("a cancelled pull installed %q", names)
	}

	var first []int64 // each layer's first figure
	var total ollama.PullTotal
	seen := map[string]bool{}
	err = p.Pull(t.Context(), "QWEN3:4b", func(pr ollama.Progress) error {
		total.Add(pr)
		if pr.Digest != "" && !seen[pr.Digest] {
			seen[pr.Digest] = true
			first = append(first, pr.Completed)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(first, []int64{2000, 0}) {
		t.Errorf("the second pull's layers started at %v bytes, want [2000 0] (the first layer resumed)", first)
	}
	if done, all := total.Bytes(); done != 4487 || all != 4487 {
		t.Errorf("PullTotal = %d of %d, want 4487 of 4487 (both layers)", done, all)
	}
}

func TestPullTotalAddsLayersAnnouncedSoFar(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		steps       []ollama.Progress
		done, total int64
	}{
		{"nothing yet", []ollama.Progress{{Status: "pulling manifest"}}, 0, 0},
		{"one layer half way", []ollama.Progress{{Digest: "a", Completed: 50, Total: 100}}, 50, 100},
		{"a later figure replaces the earlier", []ollama.Progress{{Digest: "a", Completed: 50, Total: 100}, {Digest: "a", Completed: 80, Total: 100}}, 80, 100},
		{"a second layer adds", []ollama.Progress{{Digest: "a", Completed: 100, Total: 100}, {Digest: "b", Completed: 5, Total: 10}}, 105, 110},
		{"completed past total is capped", []ollama.Progress{{Digest: "a", Completed: 120, Total: 100}}, 100, 100},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var tot ollama.PullTotal
			for _, s := range tc.steps {
				tot.Add(s)
			}
			if d, a := tot.Bytes(); d != tc.done || a != tc.total {
				t.Errorf("Bytes = %d, %d; want %d, %d", d, a, tc.done, tc.total)
			}
		})
	}
}

func TestPullFailureSaysWhatHappened(t *testing.T) {
	t.Parallel()
	// Error lines as Ollama 0.17.4 sends them (server/images.go PullModel
	// wraps the HTTP client's error in "pull model manifest: …"; a blob's
	// download passes it on as it is).
	tests := []struct {
		line string
		want error // nil: neither kind
		says string
	}{
		{`pull model manifest: Get "https://registry.ollama.ai/v2/library/qwen3/manifests/4b": dial tcp: lookup registry.ollama.ai on 127.0.0.53:53: no such host`, ollama.ErrRegistryUnreachable, "check the internet connection"},
		{`pull model manifest: Get "https://registry.ollama.ai/v2/library/qwen3/manifests/4b": dial tcp 104.21.75.227:443: connect: network is unreachable`, ollama.ErrRegistryUnreachable, "check the internet connection"},
		{`pull model manifest: Get "https://registry.ollama.ai/v2/library/qwen3/manifests/4b": net/http: TLS handshake timeout`, ollama.ErrRegistryUnreachable, "check the internet connection"},
		{`Get "https://dd20bb891979d25aebc8bec07b2b3bbc.r2.cloudflarestorage.com/ollama/docker/registry/v2/blobs/sha256/3e/3e4cb1417446/data": dial tcp: lookup dd20bb891979d25aebc8bec07b2b3bbc.r2.cloudflarestorage.com: i/o timeout`, ollama.ErrRegistryUnreachable, "what was downloaded is kept"},
		{`pull model manifest: file does not exist`, provider.ErrModelMissing, "https://ollama.com/library"},
		{`max retries exceeded: write /root/.ollama/models/blobs/sha256-3e4c-partial: no space left on device`, nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.line[:min(40, len(tc.line))], func(t *testing.T) {
			err := ollama.PullFailure(errors.New(tc.line), "qwen3:4b")
			if tc.want == nil {
				if err != nil {
					t.Errorf("classified as %v; want neither kind", err)
				}
				return
			}
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("got %v; want %v saying %q", err, tc.want, tc.says)
			}
		})
	}
}
