// Package memory is what the assistant remembers (seed 002 decisions 4-6):
// working memory per session (conclusions reached, open sub-tasks, paths
// already tried and their outcome), long-term facts about the user's world,
// and the user's preferences (how notes are named, filed, tagged, written).
//
// Every write is a plain event in the log of the session it concerns
// (memory.remember, memory.edit, memory.forget, memory.review; see
// kernel/event/memory.go), appended through the runtime so hosts following the
// session see it. The tables here are an index over those events: each row
// keeps the seq of every event that shaped it and the seqs it came from, and
// the whole index is rebuilt from the log when its tables are missing.
//
// It offers the runtime three facets: the remember / forget tools
// (ToolProvider; both declare tool.WriteMemory, so the kernel asks the user
// before each call unless "remember without asking" grants remember and the
// conversation has read no document or note), the working-memory zone
// (ContextContributor: a bounded, structured summary of this session's
// working memory plus the long-term items relevant to the request, found
// with FTS5 and vectors), and a post-run step (LifecycleSubscriber) that
// records the searches a run made and asks the model, with its own prompt,
// for facts and preferences worth keeping — pending until the user keeps
// them, unless "remember without asking" is on and the conversation read
// nothing. Every item records how the user let it in (Item.Approved).
//
// It implements kernel/compact's working memory itself (Compaction): what a
// compaction extracts is filed as the session's working memory.
//
// It shares the database handle the composition root opens and owns only its memory_* tables
// and their schema version (memory_meta). It must never import the SQL
// driver, a model client, Wails, kernel/store, kernel/runtime or a host.
package memory
