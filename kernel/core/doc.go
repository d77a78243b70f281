// Package core is the agent loop as a pure state machine (seed 003):
//
//	Update(Model, Msg) -> Step{Model, Records, Cmds}
//
// A Msg is a fact (an input arrived, the model finished a reply, a tool
// returned, the user answered, a cancel was asked for...). Update decides what
// follows: the records to append to the log (a run started, a step started,
// a call was refused, the run finished with a reason) and the commands for
// the runtime to perform (stream a reply, run a tool, ask the user). It does
// no I/O, reads no clock and draws no random number: times and ids arrive in
// the messages. So re-running Update over a log's facts reproduces its
// records exactly — the log is the state, the Model is a fold of it.
//
// Phase is one of Idle, Streaming, AwaitingPermission, ExecutingTools, and
// Closing: the pre-close checkpoint, in flight like a tool, gets a phase of
// its own rather than a flag. Every (phase, message) pair is handled; a pair
// that makes no sense yields a kernel.error record and no change.
//
// It imports only the standard library, kernel/event and kernel/tool; an
// import test keeps it so.
package core
