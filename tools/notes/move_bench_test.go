package notes

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

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
// keeps it live.
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
			edits := 0
			for i := 0; i < b.N; i++ {
				if mode == "graph" {
					b.StopTimer()
					r.linker = graphOf(b, dir)
					b.StartTimer()
				}
				args, _ := json.Marshal(map[string]string{"from": names[i%2], "to": names[(i+1)%2]})
				res, err := mv.Run(b.Context(), tool.Call{ID: fmt.Sprint("b", i), Name: "move_note", Arguments: args})
				if err != nil || res.Status != tool.Success {
					b.Fatal(err, res.Content)
				}
				edits = len(res.Data.(Change).Edits)
			}
			b.ReportMetric(float64(edits), "notes/op")
		})
	}
}
