// Command vaultcheck checks package vault against a real notes folder: it
// scans the folder, counts its notes and links, then on a temporary copy
// performs random organising moves (renames, moves into new folders,
// folder renames, attachments), each planned by PlanMove and applied to
// the disk, rescans, and lists every link that resolved before and no
// longer resolves to the same (moved) file. It exits 1 if there is one.
//
//	go run ./vault/cmd/vaultcheck -dir DIR -moves N -seed S
//	go run ./vault/cmd/vaultcheck -generate 3000 -moves N   (a vaultgen vault)
//
// Test equipment: it writes only inside the temporary copy.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"quire/vault"
	"quire/vault/vaultgen"
)

func main() {
	dir := flag.String("dir", "", "the notes folder (read only; the moves happen on a copy)")
	moves := flag.Int("moves", 50, "how many random moves")
	seed := flag.Int64("seed", 1, "the random seed")
	keep := flag.Bool("keep", false, "keep the temporary copy")
	generate := flag.Int("generate", 0, "check a vault of this many notes written by vaultgen instead of -dir")
	flag.Parse()
	if *generate > 0 {
		gen, err := os.MkdirTemp("", "vaultgen-")
		if err == nil {
			err = vaultgen.Generate(gen, *generate, *seed)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "vaultcheck:", err)
			os.Exit(2)
		}
		*dir = gen
	}
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "vaultcheck: name the folder with -dir (or -generate N)")
		os.Exit(2)
	}
	broken, err := run(*dir, *moves, *seed, *keep, os.Stdout)
	code := 0
	switch {
	case err != nil:
		fmt.Fprintln(os.Stderr, "vaultcheck:", err)
		code = 2
	case broken > 0:
		code = 1
	}
	if *generate > 0 {
		os.RemoveAll(*dir)
	}
	os.Exit(code)
}

// ref is one resolved link, named by its note and its place among the note's links.
type ref struct {
	from string
	i    int
	to   string
	text string
}

func run(src string, n int, seed int64, keep bool, out io.Writer) (int, error) {
	tmp, err := os.MkdirTemp("", "vaultcheck-")
	if err != nil {
		return 0, err
	}
	if !keep {
		defer os.RemoveAll(tmp)
	}
	if err := copyTree(src, tmp); err != nil {
		return 0, err
	}
	start := time.Now()
	v, skipped, err := vault.Scan(context.Background(), os.DirFS(tmp), vault.DefaultLimits())
	if err != nil {
		return 0, err
	}
	scanTime := time.Since(start)
	links, resolved, unresolved, embeds := 0, 0, 0, 0
	var before []ref
	for _, p := range v.Paths() {
		for i, r := range v.Outgoing(p) {
			links++
			if r.Link.Embed {
				embeds++
			}
			if r.To == "" {
				unresolved++
				continue
			}
			resolved++
			before = append(before, ref{p, i, r.To, r.Link.Target})
		}
	}
	fmt.Fprintf(out, "folder %s: %d notes, %d other files, %d links (%d embeds), %d resolved, %d unresolved, %d skipped; scan %v\n",
		src, len(v.Paths()), len(v.Files()), links, embeds, resolved, unresolved, len(skipped), scanTime.Round(time.Millisecond))

	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	where := map[string]string{} // a file's first path → where it is now
	for _, p := range append(v.Paths(), v.Files()...) {
		where[p] = p
	}
	performed, rewritten, refused, planTime := 0, 0, 0, time.Duration(0)
	for k := 0; k < n; k++ {
		from, to := pickMove(rng, v, k)
		if from == "" {
			break
		}
		t0 := time.Now()
		plan, err := v.PlanMove(from, to, func(p string) ([]byte, error) { return os.ReadFile(filepath.Join(tmp, filepath.FromSlash(p))) })
		planTime += time.Since(t0)
		if err != nil {
			if errors.Is(err, vault.ErrExists) || errors.Is(err, vault.ErrIntoItself) || errors.Is(err, vault.ErrGraphConfig) {
				refused++
				continue
			}
			return 0, fmt.Errorf("move %s → %s: %w", from, to, err)
		}
		if err := applyPlan(tmp, plan); err != nil {
			return 0, err
		}
		performed++
		rewritten += plan.Links()
		moved := map[string]string{}
		for _, m := range plan.Moves {
			moved[m.From] = m.To
		}
		for orig, cur := range where {
			if q, ok := moved[cur]; ok {
				where[orig] = q
			}
		}
		if v, _, err = vault.Scan(context.Background(), os.DirFS(tmp), vault.DefaultLimits()); err != nil {
			return 0, err
		}
	}
	broken := 0
	outgoing := map[string][]vault.Ref{}
	for _, r := range before {
		from := where[r.from]
		refs, ok := outgoing[from]
		if !ok {
			refs = v.Outgoing(from)
			outgoing[from] = refs
		}
		want := where[r.to]
		if r.i >= len(refs) || refs[r.i].To != want {
			got := "(no such link)"
			if r.i < len(refs) {
				got = fmt.Sprintf("%q → %q", refs[r.i].Link.Target, refs[r.i].To)
			}
			fmt.Fprintf(out, "BROKEN: in %s (was %s) link %d %q led to %s, now %s; want %s\n", from, r.from, r.i, r.text, r.to, got, want)
			broken++
		}
	}
	fmt.Fprintf(out, "moves: %d performed, %d refused (a taken path); %d links rewritten; planning %v in all\n", performed, refused, rewritten, planTime.Round(time.Millisecond))
	fmt.Fprintf(out, "after: %d of %d links that resolved before resolve to the same file; broken: %d\n", resolved-broken, resolved, broken)
	if keep {
		fmt.Fprintln(out, "the copy is kept at", tmp)
	}
	return broken, nil
}

// pickMove chooses an organising move: a note renamed, a note moved into
// a new folder, a folder renamed or moved, an attachment moved.
func pickMove(rng *rand.Rand, v *vault.Vault, k int) (string, string) {
	notes, files := v.Paths(), v.Files()
	var movable []string
	for _, f := range files {
		if !strings.HasPrefix(f, "logseq/") {
			movable = append(movable, f)
		}
	}
	if len(notes) == 0 {
		return "", ""
	}
	note := notes[rng.IntN(len(notes))]
	ext := path.Ext(note)
	name := strings.TrimSuffix(path.Base(note), ext)
	switch rng.IntN(5) {
	case 0: // rename in place
		return note, path.Join(path.Dir(note), fmt.Sprintf("%s %d%s", name, k, ext))
	case 1: // into a new folder
		return note, path.Join(fmt.Sprintf("Sorted %d", k), path.Base(note))
	case 2: // into another note's folder (may clash, may shadow)
		other := path.Dir(notes[rng.IntN(len(notes))])
		return note, path.Join(other, path.Base(note))
	case 3: // a folder renamed or moved
		dirs := folders(notes)
		if len(dirs) == 0 {
			return note, path.Join(fmt.Sprintf("Folder %d", k), path.Base(note))
		}
		d := dirs[rng.IntN(len(dirs))]
		if strings.HasPrefix(d, "logseq") {
			return note, path.Join(fmt.Sprintf("Folder %d", k), path.Base(note))
		}
		if rng.IntN(2) == 0 {
			return d, path.Join(path.Dir(d), fmt.Sprintf("%s %d", path.Base(d), k))
		}
		return d, path.Join(fmt.Sprintf("Archive %d", k), path.Base(d))
	default: // an attachment
		if len(movable) == 0 {
			return note, path.Join(path.Dir(note), fmt.Sprintf("%s moved %d%s", name, k, ext))
		}
		f := movable[rng.IntN(len(movable))]
		fe := path.Ext(f)
		return f, path.Join(fmt.Sprintf("Attachments %d", k), strings.TrimSuffix(path.Base(f), fe)+fmt.Sprint(k)+fe)
	}
}

func folders(paths []string) []string {
	set := map[string]bool{}
	for _, p := range paths {
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			set[d] = true
		}
	}
	out := make([]string, 0, len(set))
	for d := range set {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}

// applyPlan writes the edits (each checked against its Before), then moves the files.
func applyPlan(root string, p vault.Plan) error {
	for _, e := range p.Edits {
		full := filepath.Join(root, filepath.FromSlash(e.Path))
		cur, err := os.ReadFile(full)
		if err != nil {
			return err
		}
		if string(cur) != e.Before {
			return fmt.Errorf("%s changed since the plan", e.Path)
		}
		if err := os.WriteFile(full, []byte(e.After), 0o644); err != nil {
			return err
		}
	}
	for _, m := range p.Moves {
		to := filepath.Join(root, filepath.FromSlash(m.To))
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		if err := os.Rename(filepath.Join(root, filepath.FromSlash(m.From)), to); err != nil {
			return err
		}
	}
	return nil
}

// copyTree copies a folder (not .git, no symbolic links) to dst.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case d.Type().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(target, b, 0o644)
		}
		return nil
	})
}
