package notes

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"quire/kernel/tool"
	"quire/vault"
	"quire/vault/vaultgen"
)

// BenchmarkRenameHub renames a note 1,000 others link to (2,001 notes),
// from the yes to done: plan, journal, 1,000 notes rewritten, rename. The
// hub goes back and forth, so every iteration rewrites every link. "scan"
// is a root without a Linker (a scan of the folder per move); "graph" is
// one with a graph already built, as the notes index keeps it.
func BenchmarkRenameHub(b *testing.B) {
	for _, mode := range []string{"scan", "graph"} {
		b.Run(mode, func(b *testing.B) {
			dir := b.TempDir()
			hubVault(b, dir, 1000)
			for i := range 1000 { // notes that link elsewhere
				os.WriteFile(filepath.Join(dir, fmt.Sprintf("other%04d.md", i)), fmt.Appendf(nil, "# Other %d\n\n[[n%04d]] and [[other%04d]]\n", i, i, (i+1)%1000), 0o644)
			}
			var opts []Option
			if mode == "graph" {
				opts = append(opts, WithLinker(graphOf(b, dir)))
			}
			r, err := Open(dir, append(opts, WithJournal(b.TempDir()))...)
			if err != nil {
				b.Fatal(err)
			}
			defer r.Close()
			mv := findTool(Tools(r, nil), "move_note")
			names := [2]string{"hub.md", "topics/hub renamed.md"}
			for i := 0; i < b.N; i++ {
				args, _ := json.Marshal(map[string]string{"from": names[i%2], "to": names[(i+1)%2]})
				res, err := mv.Run(b.Context(), tool.Call{ID: fmt.Sprint("b", i), Name: "move_note", Arguments: args})
				if err != nil || res.Status != tool.Success {
					b.Fatal(err, res.Content)
				}
				if c := res.Data.(Change); len(c.Edits) != 1000 {
					b.Fatalf("%d notes rewritten, want 1000", len(c.Edits))
				}
				if mode == "graph" {
					b.StopTimer()
					r.linker = graphOf(b, dir) // the index would follow the change
					b.StartTimer()
				}
			}
		})
	}
}

func graphOf(b *testing.B, dir string) *vault.Vault {
	v, _, err := vault.Scan(b.Context(), os.DirFS(dir), vault.DefaultLimits())
	if err != nil {
		b.Fatal(err)
	}
	return v
}

// BenchmarkRenameGeneratedHub renames a hub of vaultgen's realistic 3,000
// note vault (1,000+ backlinks in every form vaultgen writes), back and
// forth, from the yes to done: "scan" with a scan of the folder per move
// (no Linker), "graph" with the graph already built, as the notes index
// keeps it live. Each arm reports beside it the floor measured after each
// move with the timer stopped, on a second copy of the same vault: the
// same new texts written as an atomic save writes them and the hub
// renamed, with no planning, journal or check (floorRename).
func BenchmarkRenameGeneratedHub(b *testing.B) {
	for _, mode := range []string{"scan", "graph"} {
		b.Run(mode, func(b *testing.B) {
			dir := b.TempDir()
			if err := vaultgen.Generate(dir, 3000, 1); err != nil {
				b.Fatal(err)
			}
			r, err := Open(dir, WithJournal(b.TempDir()))
			if err != nil {
				b.Fatal(err)
			}
			defer r.Close()
			mv := findTool(Tools(r, nil), "move_note")
			names := [2]string{vaultgen.Hubs()[0], "Hubs/Index renamed.md"}
			floor := newFloorRename(b, names)
			edits := 0
			var wall, floorWall time.Duration
			b.ResetTimer() // the vaults' generation is not the move's
			for i := 0; i < b.N; i++ {
				if mode == "graph" {
					b.StopTimer()
					r.linker = graphOf(b, dir)
					b.StartTimer()
				}
				start := time.Now()
				args, _ := json.Marshal(map[string]string{"from": names[i%2], "to": names[(i+1)%2]})
				res, err := mv.Run(b.Context(), tool.Call{ID: fmt.Sprint("b", i), Name: "move_note", Arguments: args})
				if err != nil || res.Status != tool.Success {
					b.Fatal(err, res.Content)
				}
				wall += time.Since(start)
				edits = len(res.Data.(Change).Edits)

				b.StopTimer()
				floorWall += floor.run(b, i%2)
				b.StartTimer()
			}
			b.StopTimer()
			n := float64(b.N)
			b.ReportMetric(float64(edits), "notes/op")
			b.ReportMetric(float64(len(floor.plans[0].Edits)), "floor-notes/op")
			b.ReportMetric(wall.Seconds()*1000/n, "ms/op")
			b.ReportMetric(floorWall.Seconds()*1000/n, "floor-ms/op")
			b.ReportMetric(wall.Seconds()/floorWall.Seconds(), "x-floor-ms")
		})
	}
}

// floorRename is the least a rename of the hub can do: on its own copy of
// the vault, the plans of both directions computed beforehand, so a run
// only writes each new text (temporary file, fsync, rename, as an atomic
// save does) and renames the hub. The texts are written stageWorkers at a
// time, as the move stages them: a filesystem commits concurrent syncs
// together, and one at a time the floor was slower than the move itself.
type floorRename struct {
	dir   string
	plans [2]vault.Plan
}

func newFloorRename(b *testing.B, names [2]string) *floorRename {
	f := &floorRename{dir: b.TempDir()}
	if err := vaultgen.Generate(f.dir, 3000, 1); err != nil {
		b.Fatal(err)
	}
	read := func(p string) ([]byte, error) { return os.ReadFile(filepath.Join(f.dir, filepath.FromSlash(p))) }
	for d := range 2 { // each plan made from the text the other leaves
		p, err := graphOf(b, f.dir).PlanMove(names[d], names[1-d], read)
		if err != nil {
			b.Fatal(err)
		}
		f.plans[d] = p
		f.run(b, d)
	}
	return f
}

// run applies plans[d] and returns how long it took.
func (f *floorRename) run(b *testing.B, d int) time.Duration {
	start := time.Now()
	edits := f.plans[d].Edits
	next := make(chan int)
	errs := make(chan error, stageWorkers)
	var wg sync.WaitGroup
	for range min(stageWorkers, len(edits)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var first error
			for i := range next {
				if first == nil {
					first = saveAtomic(filepath.Join(f.dir, filepath.FromSlash(edits[i].Path)), edits[i].After)
				}
			}
			errs <- first
		}()
	}
	for i := range edits {
		next <- i
	}
	close(next)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			b.Fatal(err)
		}
	}
	for _, m := range f.plans[d].Moves {
		if err := os.Rename(filepath.Join(f.dir, filepath.FromSlash(m.From)), filepath.Join(f.dir, filepath.FromSlash(m.To))); err != nil {
			b.Fatal(err)
		}
	}
	return time.Since(start)
}

// saveAtomic replaces p's text as an editor's atomic save does.
func saveAtomic(p, text string) error {
	t, err := os.CreateTemp(filepath.Dir(p), ".floor-*.tmp")
	if err != nil {
		return err
	}
	_, err = t.WriteString(text)
	if err == nil {
		err = t.Sync()
	}
	if cerr := t.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(t.Name(), p)
	}
	if err != nil {
		os.Remove(t.Name())
	}
	return err
}
