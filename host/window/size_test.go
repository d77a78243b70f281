package window

import (
	"os"
	"path/filepath"
	"testing"
)

// The window opens at the size it was closed at (issue 31), held to bounds
// a usable window keeps; nothing kept or a damaged file is the default.
func TestWindowSizeIsKept(t *testing.T) {
	cases := []struct {
		name          string
		file          string // "" = no file
		width, height int
	}{
		{"nothing kept", "", DefaultWidth, DefaultHeight},
		{"kept", `{"width":1000,"height":700}`, 1000, 700},
		{"too small", `{"width":100,"height":50}`, MinWidth, MinHeight},
		{"too large", `{"width":99999,"height":99999}`, maxWidth, maxHeight},
		{"damaged", `{"width":`, DefaultWidth, DefaultHeight},
		{"zero", `{"width":0,"height":0}`, DefaultWidth, DefaultHeight},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if c.file != "" {
				if err := os.WriteFile(filepath.Join(dir, "window.json"), []byte(c.file), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if w, h := LoadSize(dir); w != c.width || h != c.height {
				t.Errorf("LoadSize = %d×%d, want %d×%d", w, h, c.width, c.height)
			}
		})
	}
	dir := t.TempDir()
	if err := SaveSize(dir, 1333, 777); err != nil {
		t.Fatal(err)
	}
	if w, h := LoadSize(dir); w != 1333 || h != 777 {
		t.Errorf("after saving 1333×777 the window opens at %d×%d", w, h)
	}
}

// A file dialog opens on the notes folder, else ~/Documents, else home:
// never on GTK's empty "Recent" or the working folder (issue 31).
func TestDialogStart(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	if got := dialogStart(""); got != home {
		t.Errorf("no Documents: %q, want home %q", got, home)
	}
	if err := os.Mkdir(filepath.Join(home, "Documents"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := dialogStart(""); got != filepath.Join(home, "Documents") {
		t.Errorf("with Documents: %q", got)
	}
	if got := dialogStart("/srv/notes"); got != "/srv/notes" {
		t.Errorf("with a notes folder: %q", got)
	}
}
