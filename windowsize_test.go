package main

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
		{"nothing kept", "", defaultWidth, defaultHeight},
		{"kept", `{"width":1000,"height":700}`, 1000, 700},
		{"too small", `{"width":100,"height":50}`, minWidth, minHeight},
		{"too large", `{"width":99999,"height":99999}`, maxWidth, maxHeight},
		{"damaged", `{"width":`, defaultWidth, defaultHeight},
		{"zero", `{"width":0,"height":0}`, defaultWidth, defaultHeight},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if c.file != "" {
				if err := os.WriteFile(filepath.Join(dir, "window.json"), []byte(c.file), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if w, h := loadWindowSize(dir); w != c.width || h != c.height {
				t.Errorf("loadWindowSize = %d×%d, want %d×%d", w, h, c.width, c.height)
			}
		})
	}
	dir := t.TempDir()
	if err := saveWindowSize(dir, 1333, 777); err != nil {
		t.Fatal(err)
	}
	if w, h := loadWindowSize(dir); w != 1333 || h != 777 {
		t.Errorf("after saving 1333×777 the window opens at %d×%d", w, h)
	}
}
