// Package vault owns the linked graph of a folder of Markdown notes as
// Obsidian and Logseq read it: what one note holds (Parse: title, aliases,
// tags, headings, block ids and every link with its exact byte range), how
// a link resolves to a file (Resolve, Obsidian's rule, and Logseq's page
// names in a Logseq graph), the backlinks, unresolved links and orphans of
// the whole folder (Vault, Scan), and what moving a note, an attachment or
// a folder does to the links (PlanMove: the exact text of every note before
// and after). It computes; it never writes a file.
//
// It is pure domain code: it imports the standard library, goldmark and
// yaml.v3 only — never SQLite, the kernel, the tools or a host (arch_test).
package vault
