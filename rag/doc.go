// Package rag is Quire's document retrieval: it watches folders and files
// the user drops, keeps a durable index of them in SQLite, and answers
// searches with hybrid (lexical + vector) ranking and a citation on every hit.
//
// What it owns:
//   - ingestion: files are parsed (rag/parse) and cut into chunks
//     (rag/chunk) that keep their heading path and line range;
//   - change detection in two layers: an FNV-1a fingerprint over each
//     watched root's paths, sizes and modification times skips all work
//     when nothing changed; per-file SHA-256 content hashes re-index only
//     the files whose content changed, and files gone from disk are dropped;
//   - durable indexing: one job row per file (queued → parsed → embedded →
//     done, or failed with a reason); a restart resumes unfinished jobs
//     and never duplicates chunks; progress reports counts and an ETA;
//     cancellation through the context;
//   - lexical search with SQLite FTS5 and its bm25 ranking (Porter stemmer,
//     user text quoted term by term so no query is a syntax error);
//   - vector search with the shared in-memory index (internal/vecindex:
//     chromem-go documents scanned as a block matrix with gonum's SIMD dot
//     product) loaded from the vectors stored in SQLite by the first search
//     that ranks by vector, not at Open nor at a switch's swap (the database
//     is the truth; chromem's own file persistence is not used);
//     embeddings come from the Embedder the caller supplies (Ollama's
//     /api/embed through an adapter in the composition root), or from the built-in offline
//     embedder (rag/hashvec) when none is; each embedder's vectors are kept
//     and loaded apart (rag_embedders), so a ranking never mixes two, and a
//     switch re-embeds beside the old ones (Switch, Reembed);
//   - fusion of the two rankings by Reciprocal Rank Fusion.
//
// Its tables (rag_*) live in the database the caller opens and hands in;
// their schema version is a row in rag_meta (kernel/store owns PRAGMA
// user_version). It uses database/sql only: it must never import a SQL
// driver, the Ollama client, the kernel runtime, hosts or Wails.
//
// Ordering and delivery: one Index pass runs at a time (a second call
// waits); Search may run at any time, alongside a pass, and sees each
// file's chunks once they are committed. Progress callbacks are called
// synchronously, in order, from the goroutine running the pass; they must
// not block.
//
// Two processes may share the database (the app and a `quire index` run):
// each finds the other's chunks by words at once; the other's vectors reach
// this process's in-memory vector index at its next Open, and statistics
// that went stale that way are never saved over fresh ones.
package rag
