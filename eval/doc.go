// Package eval owns the eval set's machinery: the scenario format (YAML
// files, read strictly), the runner that plays a scenario against a real
// kernel, and the report (a table, a summary line, JSON, success rates per
// class).
//
// A scenario is a user's task end to end: the notes folder and documents it
// starts from, the user's messages with their timing (follow-ups, steers
// mid-run, cancels, a crash and restart), the model's turns (scripted, served
// by the fake Ollama server of test/ollamatest, or replaced
// by a real model with Options.Real), the user's answers to permission
// questions, and the outcome: files on disk, events in the log, what the
// model was sent.
//
// The kernel comes from a Builder the composition root gives (its own
// wiring), so a scenario exercises what users run, and parts added to the
// wiring later (memory, compaction) are in every scenario without a change
// here.
//
// Against a real model (Options.Real) the scripted turns are never used: a
// recording proxy in front of Ollama keeps what the model was sent, and only
// outcome checks apply (files, unchanged folders, texts the model must never
// see, and the invariants every scenario gets: no change without the user's
// yes, one terminal event per run).
//
// Like assembly and test/testkit it picks a concrete part (the fake Ollama
// server), so arch_test.go lets it depend on the Ollama client. It must never
// import Wails, a host, the concrete tools, rag or the store: they reach it
// only through the Builder, and it reads the log through kernel/protocol.
package eval
