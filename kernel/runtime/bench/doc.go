// Package bench holds benchmarks of the runtime against a bare agent loop
// (issue 4): the same 20-step tool-using turn, against the same fake Ollama
// server, once through Quire (every event durably logged) and once through
// a loop that calls Ollama's client directly and logs nothing. The figures
// are in docs/BENCHMARKS-NOTEBOOK.md.
//
// It has no code outside its tests. The tests import Ollama's client and
// the test kit; test imports are not part of the module's layering (go list
// -deps does not follow them), so this package stays inside the rules.
package bench
