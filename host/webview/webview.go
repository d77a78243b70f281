// Package webview sets up the engine that draws the window's page,
// WebKitGTK, for an app that is not a browser, before Wails makes the
// window. The web process WebKit starts inherits Quire's environment, which
// is where JavaScriptCore reads its options from.
package webview

import "os"

// Env is the process environment Tune reads and changes (os.LookupEnv and
// os.Setenv in the window; a map in tests).
type Env interface {
	LookupEnv(key string) (string, bool)
	Setenv(key, value string) error
}

// jitOff is what Quire asks of JavaScriptCore in its own web process: no
// JIT, the page's scripts run by the interpreter. The JIT's compilers and the
// code they keep are most of what the web process grows by over a long
// conversation (docs/BENCHMARKS-NOTEBOOK.md, 200 turns), and the page is a chat, not a
// script-heavy site (docs/DECISIONS.md "webkit jit").
const jitOff = "JSC_useJIT"

// Tune sets JavaScriptCore's options for the web process before it starts,
// and returns what it set ("KEY=VALUE"), for the log. A value the user set
// in the environment is kept: it is theirs to try (JSC_useJIT=1 brings the
// JIT back).
func Tune(env Env) ([]string, error) {
	if _, ok := env.LookupEnv(jitOff); ok {
		return nil, nil
	}
	if err := env.Setenv(jitOff, "0"); err != nil {
		return nil, err
	}
	return []string{jitOff + "=0"}, nil
}

// OSEnv is the process's own environment.
type OSEnv struct{}

func (OSEnv) LookupEnv(key string) (string, bool) { return os.LookupEnv(key) }
func (OSEnv) Setenv(key, value string) error      { return os.Setenv(key, value) }
