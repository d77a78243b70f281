package window

import (
	"encoding/json"
	"os"
	"path/filepath"
)

// The window's size when none was kept, and the bounds a kept one is held
// to (the window's minimum; an 8K screen), so a damaged or hand-edited
// file cannot open a window too small to use or larger than any screen.
const (
	DefaultWidth, DefaultHeight = 1200, 800
	MinWidth, MinHeight         = 760, 520
	maxWidth, maxHeight         = 7680, 4320
)

// sizeFile keeps the window's size as it was when it last closed, in the
// data folder, so the window opens as the user left it (issue 31: it
// opened at 1200×800 every time).
func sizeFile(dataDir string) string { return filepath.Join(dataDir, "window.json") }

type windowSize struct {
	Width  int `json:"width"`
	Height int `json:"height"`
}

// LoadSize is the kept size, bounded; the default when none was kept or
// the file cannot be read.
func LoadSize(dataDir string) (width, height int) {
	b, err := os.ReadFile(sizeFile(dataDir))
	var s windowSize
	if err != nil || json.Unmarshal(b, &s) != nil || s.Width <= 0 || s.Height <= 0 {
		return DefaultWidth, DefaultHeight
	}
	return min(max(s.Width, MinWidth), maxWidth), min(max(s.Height, MinHeight), maxHeight)
}

// SaveSize keeps the size for the next start; written whole to a
// temporary file and renamed, so a crash leaves the old one or the new.
func SaveSize(dataDir string, width, height int) error {
	b, err := json.Marshal(windowSize{Width: width, Height: height})
	if err != nil {
		return err
	}
	tmp := sizeFile(dataDir) + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, sizeFile(dataDir))
}

// dialogStart is the folder a file dialog opens on: the notes folder once
// one is chosen, else ~/Documents when there is one, else the home folder.
// Given none, the folder chooser opened on GTK's empty "Recent" and the
// export's save dialog on the process's working folder (issue 31).
func dialogStart(notesDir string) string {
	if notesDir != "" {
		return notesDir
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	if fi, err := os.Stat(filepath.Join(home, "Documents")); err == nil && fi.IsDir() {
		return filepath.Join(home, "Documents")
	}
	return home
}
