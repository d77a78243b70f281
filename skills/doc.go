// Package skills owns skill packages (seed 002 §4.1: tools packaged by
// scenario — a complete user need, not loose functions): a folder with a
// SKILL.md whose YAML front matter, in the Agent Skills shape, names the
// skill, says in one line what it does and when to use it, declares what
// it requires (a model that takes tools, an MCP server by name, a notes
// folder) and the files it ships, and whose Markdown body is the
// instructions the model follows.
//
// Parse reads and checks one folder; every field is bounded and every
// refusal is a sentence saying what is wrong and how to fix it (unknown
// keys, the name's charset, sizes, files outside the folder or behind a
// symlink). The catalog of where skills live, which are enabled and which
// are available, and the progressive disclosure to the model (names and
// descriptions in the system text, the instructions through a load_skill
// tool call) are built on it.
//
// It must never import kernel/store, kernel/runtime, kernel/core, a host or
// Wails: it is read by the composition root and by lane code that proposes
// skills (evolution), and reaches MCP state only through an interface it
// declares.
package skills
