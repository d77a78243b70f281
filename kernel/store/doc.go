// Package store is the SQLite implementation of the kernel's ports: the
// append-only event log and the sessions index built from it.
//
// It is the only package that imports the SQL driver (modernc.org/sqlite,
// pure Go). It owns the schema, its version (PRAGMA user_version), the backup
// taken before a migration and the checks made on open; a database that is
// corrupt or was written by a newer Quire is reported and never overwritten.
// It must never import Wails, a model client, memory/, rag/ or tools/.
package store
