package webview_test

import (
	"slices"
	"testing"

	"quire/host/webview"
)

type mapEnv map[string]string

func (m mapEnv) LookupEnv(k string) (string, bool) { v, ok := m[k]; return v, ok }
func (m mapEnv) Setenv(k, v string) error          { m[k] = v; return nil }

func TestTuneTurnsTheJITOffUnlessTheUserChose(t *testing.T) {
	tests := []struct {
		name string
		env  mapEnv
		want string
		set  []string
	}{
		{"nothing set: off", mapEnv{}, "0", []string{"JSC_useJIT=0"}},
		{"the user's JIT kept", mapEnv{"JSC_useJIT": "1"}, "1", nil},
		{"the user's empty value kept", mapEnv{"JSC_useJIT": ""}, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set, err := webview.Tune(tt.env)
			if err != nil {
				t.Fatal(err)
			}
			if got := tt.env["JSC_useJIT"]; got != tt.want {
				t.Errorf("JSC_useJIT=%q, want %q", got, tt.want)
			}
			if !slices.Equal(set, tt.set) {
				t.Errorf("Tune reports %q, want %q", set, tt.set)
			}
		})
	}
}
