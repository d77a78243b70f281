package assembly

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// fakeAddress is whatever may answer at an address the user types: version
// answers /api/version, tags /api/tags.
func fakeAddress(t *testing.T, version, tags http.HandlerFunc) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/api/version", version)
	mux.HandleFunc("/api/tags", tags)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func answering(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, body)
	}
}

// tagsOf is an /api/tags answer listing names.
func tagsOf(names ...string) string {
	type model struct {
		Name string `json:"name"`
	}
	list := struct {
		Models []model `json:"models"`
	}{}
	for _, n := range names {
		list.Models = append(list.Models, model{n})
	}
	b, _ := json.Marshal(list)
	return string(b)
}

func numbered(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("m%d", i)
	}
	return out
}

// TestCheckingAnAddressIsBounded: the address is anybody's, so the check
// reads at most maxProbeBody of an answer (a server streaming 1 GiB is cut
// off, counted in bytes it managed to send), follows no redirect (the
// other host is never asked), shows a version only if it looks like one
// and at most maxProbeModels printable names.
func TestCheckingAnAddressIsBounded(t *testing.T) {
	t.Run("an endless body is cut off", func(t *testing.T) {
		var served atomic.Int64
		srv := fakeAddress(t, func(w http.ResponseWriter, _ *http.Request) {
			chunk := []byte(strings.Repeat("7", 64<<10))
			n, _ := w.Write([]byte(`{"version":"`))
			served.Add(int64(n))
			for served.Load() < 1<<30 {
				n, err := w.Write(chunk)
				served.Add(int64(n))
				if err != nil {
					return
				}
			}
		}, answering(tagsOf()))
		got := settingsPort{}.CheckOllama(t.Context(), srv.URL)
		srv.Close() // waits for the handler, which stops when the check hangs up
		if got.OK || !strings.Contains(got.Message, "far more than Ollama") {
			t.Errorf("check: %+v", got)
		}
		if n := served.Load(); n > 64<<20 {
			t.Errorf("the server sent %d bytes before the check hung up; want at most 64 MiB", n)
		}
	})

	t.Run("a redirect is not followed", func(t *testing.T) {
		var reached atomic.Int32
		other := fakeAddress(t, func(w http.ResponseWriter, r *http.Request) {
			reached.Add(1)
			answering(`{"version":"0.17.4"}`)(w, r)
		}, answering(tagsOf("qwen3:4b")))
		srv := fakeAddress(t, func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.URL+"/api/version", http.StatusFound)
		}, answering(tagsOf()))
		got := settingsPort{}.CheckOllama(t.Context(), srv.URL)
		if got.OK || !strings.Contains(got.Message, "redirects to another address") || reached.Load() != 0 {
			t.Errorf("check: %+v; the other host got %d requests", got, reached.Load())
		}
	})

	long := strings.Repeat("n", maxProbeName+1)
	for _, c := range []struct {
		name, version, tags string
		wantVersion         string
		wantModels          int
		phrase              string
	}{
		{"a junk version is not shown", "0.17.4\u001b[2J<script>alert(1)</script>" + strings.Repeat("9", 5000), tagsOf("qwen3:4b"),
			"", 1, "Ollama answers here (1 model installed)"},
		{"a version is shown", "0.17.4", tagsOf("qwen3:4b"), "0.17.4", 1, "Ollama 0.17.4 answers here"},
		{"thousands of models are capped", "0.17.4", tagsOf(numbered(5000)...), "0.17.4", maxProbeModels, "5000 models installed"},
		{"unprintable and long names are left out", "0.17.4", tagsOf("bad\u0007name", long, "qwen3:4b"), "0.17.4", 1, "answers here"},
		{"100,000 models", "0.17.4", tagsOf(numbered(100_000)...), "0.17.4", 0, "its list of models could not be read"},
	} {
		t.Run(c.name, func(t *testing.T) {
			v, _ := json.Marshal(map[string]string{"version": c.version})
			srv := fakeAddress(t, answering(string(v)), answering(c.tags))
			got := settingsPort{}.CheckOllama(t.Context(), srv.URL)
			if !got.OK || got.Version != c.wantVersion || len(got.Models) != c.wantModels || !strings.Contains(got.Message, c.phrase) ||
				len(got.Message) > 200 {
				t.Errorf("check: ok %v, version %q, %d models, %q; want version %q, %d models, saying %q",
					got.OK, got.Version[:min(len(got.Version), 40)], len(got.Models), got.Message[:min(len(got.Message), 120)], c.wantVersion, c.wantModels, c.phrase)
			}
		})
	}
}
