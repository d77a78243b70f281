package skills

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"quire/kernel/protocol"
)

func TestInstallCopiesTheSkillAndOnlyItsFiles(t *testing.T) {
	t.Parallel()
	st := State{}
	c, user := world(t, &st)
	src := filepath.Join(t.TempDir(), "download-main") // a folder named otherwise
	writeSkill(t, filepath.Dir(src), "download-main", skillText("gamma", "User gamma.", "files: [ref.md]"),
		map[string]string{"ref.md": "reference", "secret.txt": "not listed"})
	sk, err := c.Install(src)
	if err != nil || sk.Name != "gamma" {
		t.Fatalf("%+v %v", sk, err)
	}
	if b, err := os.ReadFile(filepath.Join(user, "gamma", "ref.md")); err != nil || string(b) != "reference" {
		t.Fatalf("ref.md: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(user, "gamma", "secret.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("an unlisted file was copied: %v", err)
	}
	if e, ok := c.Find(t.Context(), "gamma"); !ok || e.Source != FromUser {
		t.Fatalf("installed skill not listed: %+v", e)
	}
	entries, _ := os.ReadDir(user)
	if len(entries) != 1 {
		t.Fatalf("the skills folder holds %v", entries)
	}
	// Private, as everything in the data folder.
	for _, p := range []string{filepath.Join(user, "gamma"), filepath.Join(user, "gamma", "ref.md"), filepath.Join(user, "gamma", FileName)} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		want := os.FileMode(0o600)
		if st.IsDir() {
			want = 0o700
		}
		if st.Mode().Perm() != want {
			t.Errorf("%s is %v, want %v", p, st.Mode().Perm(), want)
		}
	}

	t.Run("twice is refused", func(t *testing.T) {
		_, err := c.Install(src)
		if !errors.Is(err, ErrInstalled) || !errors.Is(err, protocol.ErrConflict) || !strings.Contains(err.Error(), "remove that folder first") {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("a shipped name is installed and replaces it", func(t *testing.T) {
		alpha := filepath.Join(t.TempDir(), "alpha")
		writeSkill(t, filepath.Dir(alpha), "alpha", skillText("alpha", "Mine."), nil)
		if _, err := c.Install(alpha); err != nil {
			t.Fatal(err)
		}
		if e, _ := c.Find(t.Context(), "alpha"); !e.Replaces || e.Description != "Mine." {
			t.Fatalf("%+v", e)
		}
	})
	t.Run("an invalid folder is refused and leaves nothing", func(t *testing.T) {
		bad := filepath.Join(t.TempDir(), "bad")
		writeSkill(t, filepath.Dir(bad), "bad", skillText("bad", "d", "files: [../x]"), nil)
		if _, err := c.Install(bad); !errors.Is(err, ErrBadFile) {
			t.Fatalf("got %v", err)
		}
		if _, err := os.Stat(filepath.Join(user, "bad")); !errors.Is(err, os.ErrNotExist) {
			t.Fatal("a refused skill was copied")
		}
	})
	t.Run("a symlinked file out of the folder is refused", func(t *testing.T) {
		base := t.TempDir()
		if err := os.WriteFile(filepath.Join(base, "outside"), []byte("secret"), 0o644); err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(base, "delta")
		writeSkill(t, base, "delta", skillText("delta", "d", "files: [ref.md]"), nil)
		if err := os.Symlink(filepath.Join(base, "outside"), filepath.Join(dir, "ref.md")); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Install(dir); !errors.Is(err, ErrBadFile) {
			t.Fatalf("got %v", err)
		}
		left, _ := os.ReadDir(user)
		for _, e := range left {
			if strings.HasPrefix(e.Name(), ".") || e.Name() == "delta" {
				t.Fatalf("left behind %s", e.Name())
			}
		}
	})
	t.Run("a missing folder is refused", func(t *testing.T) {
		if _, err := c.Install(filepath.Join(t.TempDir(), "none")); !errors.Is(err, ErrNoSkillFile) {
			t.Fatalf("got %v", err)
		}
	})
}
