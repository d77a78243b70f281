// Package childgroup starts the programs Quire runs for the user (the
// -ask program of `quire run`, every stdio MCP server) so that they, and
// whatever they start in turn, end with Quire however Quire ends: a stop,
// Close, a crash or a SIGKILL nobody can catch. A user who kills Quire
// expects its helpers gone, not orphaned and still holding their files,
// ports and tokens.
//
// On Unix a child runs in a process group of its own whose leader is a
// watcher: a /bin/sh that blocks reading a pipe whose one writer is Quire
// and, when the read ends, kills its whole group (kill -KILL 0). Any end
// of Quire closes the pipe, since the kernel closes a dead process's
// descriptors; Kill closes it too and kills the group itself. The group is
// what reaches a child's own children (npx's node under npm, a shell's
// pipeline): the parent-death signal reaches only the direct child, as
// Linux clears it in every fork. On Linux the direct child gets
// Pdeathsig=SIGKILL as well, so it dies with Quire even if the watcher
// was killed first. Elsewhere the child alone is killed on Kill.
//
// It depends only on the standard library and must never import Quire's
// own packages: mcpclient and host/cli both start children through it.
package childgroup
