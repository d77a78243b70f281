package ollama_test

import (
	"errors"
	"testing"

	"quire/kernel/provider/ollama"
)

func TestParseHost(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in, want string
	}{
		{"", "http://127.0.0.1:11434"},
		{"   ", "http://127.0.0.1:11434"},
		{"localhost", "http://localhost:11434"},
		{"example.com:8080", "http://example.com:8080"},
		{"10.0.0.5", "http://10.0.0.5:11434"},
		{"0.0.0.0", "http://0.0.0.0:11434"},
		{"::1", "http://[::1]:11434"},
		{"[::1]", "http://[::1]:11434"},
		{"[::1]:9999", "http://[::1]:9999"},
		{":8080", "http://127.0.0.1:8080"},
		// The port-80 trap: Ollama reads this as port 80, where nothing runs.
		{"http://localhost", "http://localhost:11434"},
		{"http://localhost:80", "http://localhost:80"},
		{"http://gpu-box:11435", "http://gpu-box:11435"},
		{"https://ollama.internal", "https://ollama.internal:443"},
		{"https://ollama.internal:8443", "https://ollama.internal:8443"},
		{"ollama.com", "https://ollama.com:443"},
		{"http://proxy.lan/ollama", "http://proxy.lan:11434/ollama"},
		{"proxy.lan:8000/ollama", "http://proxy.lan:8000/ollama"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ollama.ParseHost(tc.in)
			if err != nil {
				t.Fatalf("ParseHost(%q): %v", tc.in, err)
			}
			if got.String() != tc.want {
				t.Errorf("ParseHost(%q) = %s, want %s", tc.in, got, tc.want)
			}
		})
	}
}

func TestParseHostRefusesWhatItCannotRead(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		"ftp://localhost",
		"localhost:http",
		"localhost:0",
		"localhost:70000",
		"http://local host",
	} {
		t.Run(in, func(t *testing.T) {
			if got, err := ollama.ParseHost(in); !errors.Is(err, ollama.ErrBadHost) {
				t.Errorf("ParseHost(%q) = %v, %v; want ErrBadHost", in, got, err)
			}
		})
	}
}
