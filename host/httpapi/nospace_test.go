package httpapi_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestAFullDiskIsSaidInWords: a message the database has no room for
// (SQLite's own page limit on the real store) is 507 Insufficient Storage
// with the sentence a page shows — what happened and what to do — not the
// driver's text.
func TestAFullDiskIsSaidInWords(t *testing.T) {
	e := serve(t, "")
	id := newSession(t, e)
	var pages int64
	if err := e.store.DB().QueryRowContext(t.Context(), "PRAGMA page_count").Scan(&pages); err != nil {
		t.Fatal(err)
	}
	e.store.LimitPages(pages)
	body, _ := json.Marshal(map[string]string{"text": strings.Repeat("more than the disk can take ", 4000)})
	status, got := e.srv.do(t, "POST", "/api/sessions/"+id+"/messages", string(body))
	var b struct{ Error string }
	if err := json.Unmarshal([]byte(got), &b); err != nil {
		t.Fatalf("body %q: %v", got, err)
	}
	if status != http.StatusInsufficientStorage || !strings.HasPrefix(b.Error, "the disk is full") || !strings.Contains(b.Error, "Free some space") {
		t.Fatalf("send on a full disk: %d %q, want 507 with the disk-full sentence", status, b.Error)
	}
	if strings.Contains(b.Error, "(13)") || strings.Contains(b.Error, "SQLITE") {
		t.Fatalf("the page reads the driver's words: %q", b.Error)
	}
}
