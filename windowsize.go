package main

import (
	"encoding/json"
	"os"
	"path/filepath"
)

// The window's size when none was kept, and the bounds a kept one is held
// to (the window's minimum; an 8K screen), so a damaged or hand-edited
// file cannot open a window too small to use or larger than any screen.
const (
	defaultWidth, defaultHeight = 1200, 800
	minWidth, minHeight         = 760, 520
	maxWidth, maxHeight         = 7680, 4320
)

// windowSizeFile keeps the window's size as it was when it last closed,
// in the data folder, so the window opens as the user left it (issue 31:
// it opened at 1200×800 every time).
func windowSizeFile(dataDir string) string { return filepath.Join(dataDir, "window.json") }

type windowSize struct {
	Width  int `json:"width"`
	Height int `json:"height"`
}

// loadWindowSize is the kept size, bounded; the default when none was
// kept or the file cannot be read.
func loadWindowSize(dataDir string) (width, height int) {
	b, err := os.ReadFile(windowSizeFile(dataDir))
	var s windowSize
	if err != nil || json.Unmarshal(b, &s) != nil || s.Width <= 0 || s.Height <= 0 {
		return defaultWidth, defaultHeight
	}
	return min(max(s.Width, minWidth), maxWidth), min(max(s.Height, minHeight), maxHeight)
}

// saveWindowSize keeps the size for the next start; written whole to a
// temporary file and renamed, so a crash leaves the old one or the new.
func saveWindowSize(dataDir string, width, height int) error {
	b, err := json.Marshal(windowSize{Width: width, Height: height})
	if err != nil {
		return err
	}
	tmp := windowSizeFile(dataDir) + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, windowSizeFile(dataDir))
}
