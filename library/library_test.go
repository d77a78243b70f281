package library_test

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"quire/kernel/protocol"
	"quire/kernel/store"
	"quire/library"
	"quire/rag"
	"quire/test/testkit"
	"quire/test/testkit/smalldisk"
)

// open builds a library over a real rag index in a real SQLite file.
func open(t testing.TB, dataDir string, emb rag.Embedder) (*library.Library, *rag.Index) {
	t.Helper()
	st, err := store.Open(t.Context(), filepath.Join(dataDir, "quire.db"))
	if err != nil {
		t.Fatal(err)
	}
	idx, err := rag.Open(t.Context(), st.DB(), emb)
	if err != nil {
		t.Fatal(err)
	}
	lib := library.New(idx, slog.New(slog.DiscardHandler))
	ctx, cancel := context.WithCancel(context.Background())
	lib.Start(ctx)
	t.Cleanup(func() { lib.Close(); cancel(); idx.Close(); st.Close() })
	return lib, idx
}

// folder is a small folder of documents: two readable, one binary behind
// a text extension.
func folder(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "papers")
	testkit.WriteOld(t, filepath.Join(dir, "garden.md"), "# Garden\n\nTomatoes need sun.\n\n## Water\n\nWater the basil every morning.\n")
	testkit.WriteOld(t, filepath.Join(dir, "notes.txt"), "Plain notes about compost.\n")
	testkit.WriteOld(t, filepath.Join(dir, "blob.txt"), "\x00\x01\x02binary\x00\xff\xfe")
	return dir
}

// waitFinal reads progress until a pass ends, and returns every state seen.
func waitFinal(t *testing.T, ch <-chan protocol.IndexProgress) []protocol.IndexProgress {
	t.Helper()
	var seen []protocol.IndexProgress
	sawRunning := false
	timeout := time.After(30 * time.Second)
	for {
		select {
		case p := <-ch:
			seen = append(seen, p)
			if p.Running {
				sawRunning = true
			} else if sawRunning {
				return seen
			}
		case <-timeout:
			t.Fatalf("no end of the pass; seen %+v", seen)
		}
	}
}

// waitEndOf waits for the end of the pass over path, returning every state
// seen up to it. A pass with nothing to do can end before the relay hands
// over its running state (a newer state replaces one not yet taken), so its
// end is known by its path, not by a running state before it.
func waitEndOf(t *testing.T, ch <-chan protocol.IndexProgress, path string) []protocol.IndexProgress {
	t.Helper()
	var seen []protocol.IndexProgress
	timeout := time.After(30 * time.Second)
	for {
		select {
		case p := <-ch:
			seen = append(seen, p)
			if !p.Running && len(p.Paths) == 1 && p.Paths[0] == path {
				return seen
			}
		case <-timeout:
			t.Fatalf("no end of the pass over %s; seen %+v", path, seen)
		}
	}
}

// waitFirstPass waits for the end of a new library's first pass. A pass
// that only refuses a file can end before the relay hands over its running
// state (a newer state replaces a held one), so waitFinal could wait for a
// running state that is never delivered; with no earlier pass, the first
// state in a finished phase can only be this pass's end.
func waitFirstPass(t *testing.T, ch <-chan protocol.IndexProgress) []protocol.IndexProgress {
	t.Helper()
	var seen []protocol.IndexProgress
	timeout := time.After(30 * time.Second)
	for {
		select {
		case p := <-ch:
			seen = append(seen, p)
			if p.Running {
				continue
			}
			switch p.Phase {
			case protocol.PhaseDone, protocol.PhaseCancelled, protocol.PhaseFailed:
				return seen
			}
		case <-timeout:
			t.Fatalf("no end of the first pass; seen %+v", seen)
		}
	}
}

func docByName(st protocol.DocumentsState, name string) (protocol.Document, bool) {
	for _, d := range st.Documents {
		if strings.HasSuffix(d.Path, string(filepath.Separator)+name) {
			return d, true
		}
	}
	return protocol.Document{}, false
}

func TestAddIndexesInTheBackgroundWithProgress(t *testing.T) {
	lib, _ := open(t, t.TempDir(), nil)
	dir := folder(t)
	ch := lib.Watch(t.Context())
	if err := lib.Add(t.Context(), []string{dir}); err != nil {
		t.Fatal(err)
	}
	seen := waitFinal(t, ch)
	final := seen[len(seen)-1]
	if final.Phase != protocol.PhaseDone || final.Total != 3 || final.Done != 3 || final.Failed != 1 || final.Refused != 0 || final.Error != "" {
		t.Fatalf("final progress %+v", final)
	}
	st, err := lib.State(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if !st.Offline || !strings.Contains(st.Embedder, "offline") {
		t.Errorf("with no model the offline embedder is active: %+v", st)
	}
	if len(st.Roots) != 1 || st.Roots[0] != dir {
		t.Errorf("roots %v", st.Roots)
	}
	for name, status := range map[string]string{"garden.md": rag.Done, "notes.txt": rag.Done, "blob.txt": rag.Failed} {
		d, ok := docByName(st, name)
		if !ok || d.Status != status {
			t.Errorf("%s: %+v (found %v), want status %s", name, d, ok, status)
		}
	}
	blob, _ := docByName(st, "blob.txt")
	if !strings.Contains(blob.Reason, "binary") {
		t.Errorf("the binary file's reason does not say why: %q", blob.Reason)
	}
	garden, _ := docByName(st, "garden.md")
	if garden.Name != "papers/garden.md" || garden.Chunks == 0 {
		t.Errorf("garden.md as listed: %+v", garden)
	}
}

func TestADroppedFileQuireCannotReadIsSaid(t *testing.T) {
	lib, _ := open(t, t.TempDir(), nil)
	dir := t.TempDir()
	photo := filepath.Join(dir, "photo.png")
	testkit.WriteOld(t, photo, "\x89PNG\r\n\x1a\n\x00\x00")
	ch := lib.Watch(t.Context())
	if err := lib.Add(t.Context(), []string{photo}); err != nil {
		t.Fatal(err)
	}
	seen := waitFirstPass(t, ch)
	if final := seen[len(seen)-1]; final.Phase != protocol.PhaseDone || final.Total != 0 || final.Skipped != 1 || final.Failed != 0 || final.Refused != 0 {
		t.Fatalf("a skipped file is not counted as skipped in the outcome: %+v", final)
	}
	st, err := lib.State(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if d, ok := docByName(st, "photo.png"); !ok || d.Status != rag.Skipped || d.Reason != "Quire does not read .png files" {
		t.Fatalf("photo.png in the panel: %+v (found %v)", d, ok)
	}
}

// TestAPassOverAnUnchangedFolderReportsNothingNew: issue 15 saw the files
// Quire does not read reported on every run. A folder added again with
// nothing changed reports no file skipped, refused or failed, though the
// panel still lists them (skipped, failed) with their reasons.
func TestAPassOverAnUnchangedFolderReportsNothingNew(t *testing.T) {
	lib, _ := open(t, t.TempDir(), nil)
	dir := folder(t) // with blob.txt, which fails
	testkit.WriteOld(t, filepath.Join(dir, "config.yml"), "a: 1\n")
	testkit.WriteOld(t, filepath.Join(dir, "data.json"), "{}\n")
	ch := lib.Watch(t.Context())
	if err := lib.Add(t.Context(), []string{dir}); err != nil {
		t.Fatal(err)
	}
	seen := waitFinal(t, ch)
	if first := seen[len(seen)-1]; first.Skipped != 2 || first.Failed != 1 || first.Refused != 0 {
		t.Fatalf("the first pass: %+v, want 2 skipped and 1 failed", first)
	}
	// Named by one of its files, the folder is scanned again; that pass's
	// states carry the file's path, so its end is told from the first's.
	again := filepath.Join(dir, "config.yml")
	if err := lib.Add(t.Context(), []string{again}); err != nil {
		t.Fatal(err)
	}
	timeout := time.After(30 * time.Second)
	for {
		var p protocol.IndexProgress
		select {
		case p = <-ch:
		case <-timeout:
			t.Fatal("no end of the second pass")
		}
		if p.Running || len(p.Paths) != 1 || p.Paths[0] != again {
			continue
		}
		if p.Phase != protocol.PhaseDone || p.Total != 0 || p.Skipped != 0 || p.Failed != 0 || p.Refused != 0 {
			t.Fatalf("a pass over the unchanged folder reported %+v, want nothing", p)
		}
		break
	}
	st, err := lib.State(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for name, status := range map[string]string{"config.yml": rag.Skipped, "data.json": rag.Skipped, "blob.txt": rag.Failed} {
		if d, ok := docByName(st, name); !ok || d.Status != status || d.Reason == "" {
			t.Errorf("%s in the panel: %+v (found %v), want %s with a reason", name, d, ok, status)
		}
	}
}

func TestAddRefusesWhatCannotBeIndexed(t *testing.T) {
	lib, _ := open(t, t.TempDir(), nil)
	cases := []struct {
		name  string
		paths []string
		want  error
	}{
		{"nothing", nil, library.ErrNoPaths},
		{"blank", []string{"  "}, library.ErrNoPaths},
		{"relative", []string{"docs/plan.md"}, library.ErrRelativePath},
		{"missing", []string{filepath.Join(t.TempDir(), "gone")}, library.ErrMissing},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := lib.Add(t.Context(), c.paths)
			if !errors.Is(err, c.want) || !errors.Is(err, protocol.ErrBadPayload) {
				t.Fatalf("Add(%q) = %v, want %v (a bad request)", c.paths, err, c.want)
			}
		})
	}
}

func TestSourceReadsOnlyIndexedDocuments(t *testing.T) {
	lib, _ := open(t, t.TempDir(), nil)
	dir := folder(t)
	pdf, err := os.ReadFile(filepath.Join("testdata", "report.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "report.pdf"), pdf, 0o644); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(filepath.Dir(dir), "secret.md")
	testkit.WriteOld(t, outside, "# Secret\n")
	testkit.WriteOld(t, filepath.Join(dir, "keys.json"), `{"token": "s3cret"}`)
	ch := lib.Watch(t.Context())
	if err := lib.Add(t.Context(), []string{dir}); err != nil {
		t.Fatal(err)
	}
	waitFinal(t, ch)

	src, err := lib.Source(t.Context(), filepath.Join(dir, "garden.md"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if src.Name != "papers/garden.md" || src.Format != "markdown" || !strings.HasPrefix(src.Text, "# Garden\n\nTomatoes") {
		t.Errorf("garden.md source: %+v", src)
	}
	page2, err := lib.Source(t.Context(), filepath.Join(dir, "report.pdf"), 2)
	if err != nil {
		t.Fatal(err)
	}
	if page2.Page != 2 || page2.Pages != 2 || page2.Text != "Second page text\n\nCosts fell." {
		t.Errorf("report.pdf page 2: %+v", page2)
	}

	bad := []struct {
		name  string
		path  string
		page  int
		class error
		want  error
	}{
		{"outside the indexed folders", outside, 0, protocol.ErrNotFound, library.ErrUnknownDocument},
		{"a system file", "/etc/passwd", 0, protocol.ErrNotFound, library.ErrUnknownDocument},
		{"the folder itself", dir, 0, protocol.ErrNotFound, library.ErrUnknownDocument},
		{"a way out through ..", filepath.Join(dir, "..", "secret.md"), 0, protocol.ErrNotFound, library.ErrUnknownDocument},
		{"relative", "papers/garden.md", 0, protocol.ErrBadPayload, library.ErrRelativePath},
		{"a document that failed", filepath.Join(dir, "blob.txt"), 0, protocol.ErrConflict, library.ErrUnreadable},
		{"a file Quire does not read (skipped)", filepath.Join(dir, "keys.json"), 0, protocol.ErrConflict, library.ErrNotRead},
		{"a page the PDF does not have", filepath.Join(dir, "report.pdf"), 9, protocol.ErrNotFound, nil},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			got, err := lib.Source(t.Context(), c.path, c.page)
			if err == nil || !errors.Is(err, c.class) || (c.want != nil && !errors.Is(err, c.want)) {
				t.Fatalf("Source(%q) = %+v, %v; want %v", c.path, got, err, c.want)
			}
			if got.Text != "" {
				t.Fatalf("refused, yet text came back: %q", got.Text)
			}
		})
	}
}

// stuckEmbedder blocks every embedding until its context ends, so a pass
// is reliably in flight when the test cancels it.
type stuckEmbedder struct{ started chan struct{} }

func (e stuckEmbedder) Name() string { return "stuck" }
func (e stuckEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	select {
	case e.started <- struct{}{}:
	default:
	}
	<-ctx.Done()
	return nil, ctx.Err()
}

func TestCancelStopsThePassAndKeepsItsWork(t *testing.T) {
	data := t.TempDir()
	emb := stuckEmbedder{started: make(chan struct{}, 1)}
	lib, _ := open(t, data, emb)
	dir := folder(t)
	ch := lib.Watch(t.Context())
	if err := lib.Add(t.Context(), []string{dir}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-emb.started:
	case <-time.After(30 * time.Second):
		t.Fatal("the pass never reached embedding")
	}
	lib.Cancel()
	// The pass is known to be in flight (it reached embedding), so its end
	// is the first state that is not running; the lossy relay may have
	// replaced its running states by it, so none need be seen first.
	var final protocol.IndexProgress
	timeout := time.After(30 * time.Second)
	for final.Phase == "" || final.Running {
		select {
		case final = <-ch:
		case <-timeout:
			t.Fatalf("no end of the cancelled pass; last %+v", final)
		}
	}
	if final.Phase != protocol.PhaseCancelled {
		t.Fatalf("after Cancel: %+v", final)
	}
	st, err := lib.State(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	// The file whose embedding was stopped keeps its parsed chunks (searchable
	// by words) for the next pass; nothing claims to be done.
	parsed := 0
	for _, d := range st.Documents {
		switch d.Status {
		case rag.Parsed:
			parsed++
		case rag.Done, rag.Embedded:
			t.Errorf("%s is %s though no vector was ever made", d.Name, d.Status)
		}
	}
	if parsed == 0 {
		t.Fatalf("the parsed work was not kept: %+v", st.Documents)
	}
}

func TestRemoveAndRetry(t *testing.T) {
	lib, _ := open(t, t.TempDir(), nil)
	dir := folder(t)
	ch := lib.Watch(t.Context())
	if err := lib.Add(t.Context(), []string{dir}); err != nil {
		t.Fatal(err)
	}
	waitFinal(t, ch)

	for _, path := range []string{"/etc/passwd", filepath.Join(filepath.Dir(dir), "other.md")} {
		if err := lib.Remove(t.Context(), path); !errors.Is(err, library.ErrUnknownDocument) {
			t.Errorf("Remove(%s) = %v, want ErrUnknownDocument", path, err)
		}
		if err := lib.Retry(t.Context(), path); !errors.Is(err, library.ErrUnknownDocument) {
			t.Errorf("Retry(%s) = %v, want ErrUnknownDocument", path, err)
		}
	}

	if err := lib.Remove(t.Context(), filepath.Join(dir, "notes.txt")); err != nil {
		t.Fatal(err)
	}
	waitFinal(t, ch)
	testkit.WriteOld(t, filepath.Join(dir, "blob.txt"), "Now it is text about mulch.\n")
	if err := lib.Retry(t.Context(), filepath.Join(dir, "blob.txt")); err != nil {
		t.Fatal(err)
	}
	waitFinal(t, ch)
	st, err := lib.State(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := docByName(st, "notes.txt"); ok {
		t.Error("notes.txt is still listed after Remove")
	}
	if blob, _ := docByName(st, "blob.txt"); blob.Status != rag.Done {
		t.Errorf("blob.txt after fixing and Retry: %+v", blob)
	}
}

func TestStartRefreshesTheKnownFolders(t *testing.T) {
	data := t.TempDir()
	dir := folder(t)
	first, _ := open(t, data, nil)
	ch := first.Watch(t.Context())
	if err := first.Add(t.Context(), []string{dir}); err != nil {
		t.Fatal(err)
	}
	waitFinal(t, ch)
	first.Close()

	testkit.WriteOld(t, filepath.Join(dir, "later.md"), "# Later\n\nAdded while Quire was closed.\n")
	second, _ := open(t, data, nil)
	// The refresh at start is a pass like any other: the state is read
	// once it has ended (Watch gives the current state first, so a pass
	// that ended before this line is seen too).
	settle(t, second.Watch(t.Context()))
	st, err := second.State(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if d, ok := docByName(st, "later.md"); !ok || d.Status != rag.Done {
		t.Fatalf("the file added while closed was not indexed at start: %+v", st)
	}
}

// settle reads progress until every queued pass has ended, and returns the
// last state.
func settle(t testing.TB, ch <-chan protocol.IndexProgress) protocol.IndexProgress {
	t.Helper()
	timeout := time.After(testkit.Patience)
	for {
		select {
		case p := <-ch:
			if !p.Running && p.Queued == 0 && p.Phase != protocol.PhaseIdle {
				return p
			}
		case <-timeout:
			t.Fatalf("the passes did not end in %s", testkit.Patience)
		}
	}
}

func TestWatchGivesASlowReaderTheLatest(t *testing.T) {
	lib, _ := open(t, t.TempDir(), nil)
	ch := lib.Watch(t.Context())
	if first := <-ch; first.Phase != protocol.PhaseIdle {
		t.Fatalf("the first state is the current one: %+v", first)
	}
	// Three passes while nobody reads: the reader then gets the last state,
	// not a backlog.
	for range 3 {
		if err := lib.Add(t.Context(), []string{folder(t)}); err != nil {
			t.Fatal(err)
		}
	}
	// A second, fast reader says when the passes are over; every state is
	// offered to both readers at once, so the slow one holds the last too.
	last := settle(t, lib.Watch(t.Context()))
	// The slow reader's relay may hold one state it took before the last
	// arrived, so it gets at most that one and then the last; a backlog
	// would hand it the first pass's states first.
	var got []protocol.IndexProgress
	timeout := time.After(testkit.Patience)
	for len(got) == 0 || !reflect.DeepEqual(got[len(got)-1], last) {
		if len(got) == 2 {
			t.Fatalf("a slow reader got %+v, want at most one stale state and then the final %+v", got, last)
		}
		select {
		case p := <-ch:
			got = append(got, p)
		case <-timeout:
			t.Fatalf("a slow reader got %+v and then nothing, not the final %+v", got, last)
		}
	}
	if last.Running || last.Phase != protocol.PhaseDone {
		t.Fatalf("the final state is %+v", last)
	}
	select {
	case extra := <-ch:
		t.Fatalf("a backlog was queued: %+v after %+v", extra, got)
	default:
	}
}

// TestRemoveAndRetryTakeOnlyAnIndexedFolderOrDocument: "/" holds every
// document, and removing it once wiped the index; a parent or a sub-folder
// of an indexed folder, and any path not in its clean form, are refused
// and remove nothing.
func TestRemoveAndRetryTakeOnlyAnIndexedFolderOrDocument(t *testing.T) {
	lib, _ := open(t, t.TempDir(), nil)
	dir := folder(t)
	testkit.WriteOld(t, filepath.Join(dir, "sub", "deep.md"), "# Deep\n\nroots and shoots\n")
	ch := lib.Watch(t.Context())
	if err := lib.Add(t.Context(), []string{dir}); err != nil {
		t.Fatal(err)
	}
	waitFinal(t, ch)
	garden := filepath.Join(dir, "garden.md")
	refused := []struct {
		name, path string
		want       error
	}{
		{"the file system's root", "/", library.ErrUnknownDocument},
		{"the folder above the indexed one", filepath.Dir(dir), library.ErrUnknownDocument},
		{"a folder inside the indexed one", filepath.Join(dir, "sub"), library.ErrUnknownDocument},
		{"a file never indexed", "/etc/passwd", library.ErrUnknownDocument},
		{"relative", "papers/garden.md", library.ErrRelativePath},
		{"empty", "", library.ErrRelativePath},
		{"with ..", filepath.Join(dir, "sub") + "/../garden.md", library.ErrUncleanPath},
		{"with .", dir + "/./garden.md", library.ErrUncleanPath},
		{"with a doubled slash", dir + "//garden.md", library.ErrUncleanPath},
		{"with a trailing slash", dir + "/", library.ErrUncleanPath},
	}
	for _, c := range refused {
		t.Run(c.name, func(t *testing.T) {
			for op, f := range map[string]func(context.Context, string) error{"Remove": lib.Remove, "Retry": lib.Retry} {
				if err := f(t.Context(), c.path); !errors.Is(err, c.want) {
					t.Errorf("%s(%q) = %v, want %v", op, c.path, err, c.want)
				}
			}
		})
	}
	st, err := lib.State(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Documents) != 4 {
		t.Fatalf("a refused remove took documents away: %d left", len(st.Documents))
	}
	// The indexed folder and a document in it are taken.
	if err := lib.Remove(t.Context(), garden); err != nil {
		t.Fatal(err)
	}
	waitFinal(t, ch)
	if err := lib.Remove(t.Context(), dir); err != nil {
		t.Fatal(err)
	}
	waitFinal(t, ch)
	if st, err = lib.State(t.Context()); err != nil || len(st.Documents) != 0 || len(st.Roots) != 0 {
		t.Fatalf("after removing the folder: %+v, %v", st, err)
	}
}

// TestSourceDoesNotFollowALinkOutOfTheIndexedFolder: a document replaced
// by a link to a system file, or reached through a folder replaced by a
// link, is refused with a sentence; a link that stays inside is shown.
func TestSourceDoesNotFollowALinkOutOfTheIndexedFolder(t *testing.T) {
	lib, _ := open(t, t.TempDir(), nil)
	dir := folder(t)
	testkit.WriteOld(t, filepath.Join(dir, "sub", "deep.md"), "# Deep\n\nroots and shoots\n")
	outside := filepath.Join(filepath.Dir(dir), "elsewhere")
	testkit.WriteOld(t, filepath.Join(outside, "deep.md"), "# Not yours\n")
	secret := filepath.Join(filepath.Dir(dir), "secret.md")
	testkit.WriteOld(t, secret, "root:x:0:0:root:/root:/bin/bash\n")
	ch := lib.Watch(t.Context())
	if err := lib.Add(t.Context(), []string{dir}); err != nil {
		t.Fatal(err)
	}
	waitFinal(t, ch)
	replace := func(path, target string) {
		t.Helper()
		if err := os.RemoveAll(path); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, path); err != nil {
			t.Fatal(err)
		}
	}
	replace(filepath.Join(dir, "garden.md"), secret)
	replace(filepath.Join(dir, "sub"), outside)
	replace(filepath.Join(dir, "notes.txt"), "blob.txt") // inside: shown
	for _, path := range []string{filepath.Join(dir, "garden.md"), filepath.Join(dir, "sub", "deep.md")} {
		src, err := lib.Source(t.Context(), path, 0)
		if !errors.Is(err, library.ErrOutsideRoot) || !errors.Is(err, protocol.ErrConflict) || src.Text != "" {
			t.Errorf("Source(%s) = %q, %v; want ErrOutsideRoot", path, src.Text, err)
		}
		if err != nil && !strings.Contains(err.Error(), "put the file itself back") {
			t.Errorf("the refusal does not say what to do: %v", err)
		}
	}
	src, err := lib.Source(t.Context(), filepath.Join(dir, "notes.txt"), 0)
	if err != nil || !strings.Contains(src.Text, "binary") {
		t.Errorf("a link inside the folder: %q, %v", src.Text, err)
	}

	// A file indexed on its own is opened through the folder holding it.
	single := filepath.Join(t.TempDir(), "single.md")
	testkit.WriteOld(t, single, "# Single\n\nalone\n")
	if err := lib.Add(t.Context(), []string{single}); err != nil {
		t.Fatal(err)
	}
	waitFinal(t, ch)
	if src, err := lib.Source(t.Context(), single, 0); err != nil || !strings.Contains(src.Text, "alone") {
		t.Fatalf("an indexed file on its own: %q, %v", src.Text, err)
	}
	replace(single, secret)
	if src, err := lib.Source(t.Context(), single, 0); !errors.Is(err, library.ErrOutsideRoot) || src.Text != "" {
		t.Errorf("an indexed file replaced by a link: %q, %v", src.Text, err)
	}
}

// TestSourceDoesNotFollowAnIndexedFolderReplacedByALink: the indexed
// folder itself swapped for a link to another folder holding a file of the
// same name is refused with a sentence, not served (os.OpenRoot follows a
// link at the root). A folder added through a link is recorded as the
// folder it leads to, so its documents still open.
func TestSourceDoesNotFollowAnIndexedFolderReplacedByALink(t *testing.T) {
	lib, _ := open(t, t.TempDir(), nil)
	dir := folder(t)
	outside := filepath.Join(filepath.Dir(dir), "elsewhere")
	testkit.WriteOld(t, filepath.Join(outside, "garden.md"), "root:x:0:0:root:/root:/bin/bash\n")
	ch := lib.Watch(t.Context())
	link := filepath.Join(t.TempDir(), "link-to-notes")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	if err := lib.Add(t.Context(), []string{link}); err != nil {
		t.Fatal(err)
	}
	waitFinal(t, ch)
	garden := filepath.Join(dir, "garden.md")
	if src, err := lib.Source(t.Context(), garden, 0); err != nil || strings.Contains(src.Text, "root:x") {
		t.Fatalf("a document of a folder added through a link: %q, %v", src.Text, err)
	}
	if err := os.Rename(dir, dir+".moved"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, dir); err != nil {
		t.Fatal(err)
	}
	src, err := lib.Source(t.Context(), garden, 0)
	if !errors.Is(err, library.ErrFolderIsLink) || !errors.Is(err, protocol.ErrConflict) || src.Text != "" {
		t.Fatalf("Source through a folder replaced by a link = %q, %v; want ErrFolderIsLink", src.Text, err)
	}
	if !strings.Contains(err.Error(), "add the folder again") {
		t.Errorf("the refusal does not say what to do: %v", err)
	}
}

// TestAFullDiskIsSaidInWords: a pass the disk has no room for ends failed
// with the panel's sentence — the disk is full, and what to do — not the
// driver's "database or disk is full (13)".
func TestAFullDiskIsSaidInWords(t *testing.T) {
	disk := smalldisk.Mount(t, "16m")
	lib, _ := open(t, disk, nil)
	dir := folder(t)
	smalldisk.Fill(t, filepath.Join(disk, "ballast"))
	ch := lib.Watch(t.Context())
	if err := lib.Add(t.Context(), []string{dir}); err != nil {
		t.Fatal(err)
	}
	seen := waitFirstPass(t, ch) // it fails at once: its running state may never be seen
	final := seen[len(seen)-1]
	if final.Phase != protocol.PhaseFailed || !strings.HasPrefix(final.Error, "the disk is full") || !strings.Contains(final.Error, "Free some space") || strings.Contains(final.Error, "(13)") {
		t.Fatalf("a pass on a full disk ended %+v", final)
	}
}

// A refresh (a watched folder changed) that finds nothing to do says
// nothing, so the bar keeps the last pass's outcome; one that finds a new
// document shows its pass as Add's does.
func TestARefreshWithNothingToDoSaysNothing(t *testing.T) {
	lib, _ := open(t, t.TempDir(), nil)
	dir := folder(t)
	ch := lib.Watch(t.Context())
	if err := lib.Add(t.Context(), []string{dir}); err != nil {
		t.Fatal(err)
	}
	waitFinal(t, ch)
	if err := lib.Refresh(t.Context(), []string{dir}); err != nil {
		t.Fatal(err)
	}
	// A pass the user asks for after it marks where the refresh's states
	// would have been: queued behind it, it runs after it.
	marker := filepath.Join(dir, "garden.md")
	if err := lib.Add(t.Context(), []string{marker}); err != nil {
		t.Fatal(err)
	}
	for _, p := range waitEndOf(t, ch, marker) {
		if len(p.Paths) != 1 || p.Paths[0] != marker {
			t.Fatalf("a refresh with nothing to do said %+v", p)
		}
	}

	testkit.WriteOld(t, filepath.Join(dir, "new.md"), "# New\n\nA new page about seeds.\n")
	if err := lib.Refresh(t.Context(), []string{dir}); err != nil {
		t.Fatal(err)
	}
	seen := waitEndOf(t, ch, dir)
	if end := seen[len(seen)-1]; end.Phase != protocol.PhaseDone || end.Total != 1 || end.Done != 1 || len(end.Paths) != 1 || end.Paths[0] != dir {
		t.Fatalf("a refresh that found a new document ended %+v", end)
	}
}
