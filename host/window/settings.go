package window

import (
	"errors"

	wailsrt "github.com/wailsapp/wails/v2/pkg/runtime"

	"quire/kernel/protocol"
)

// NotesFolder is the folder the note tools work on ("" until chosen).
func (h *Host) NotesFolder() string {
	if h.settings == nil {
		return ""
	}
	return h.settings.NotesDir()
}

// ChooseNotesFolder asks for the notes folder with the native folder dialog
// and remembers it. It returns the folder, or "" if the user cancelled.
func (h *Host) ChooseNotesFolder() (string, error) {
	if h.settings == nil {
		return "", errors.New("settings cannot be changed in this window")
	}
	window := h.window.Load()
	if window == nil {
		return "", errors.New("the window is not ready yet")
	}
	dir, err := wailsrt.OpenDirectoryDialog(*window, wailsrt.OpenDialogOptions{
		Title: "Choose the folder of your notes", DefaultDirectory: dialogStart(h.settings.NotesDir()), CanCreateDirectories: true,
	})
	if err != nil || dir == "" {
		return "", err
	}
	return dir, h.settings.SetNotesDir(dir)
}

// The Settings screen's save, whose refusal names its field (its reads are
// operations, Op).

// SaveSettings saves the screen's choices for the next run; a refused one
// comes back as Refused, naming its field.
func (h *Host) SaveSettings(u protocol.UserSettings) (protocol.SettingsSaved, error) {
	if err := h.ready(); err != nil {
		return protocol.SettingsSaved{}, err
	}
	if h.settings == nil {
		return protocol.SettingsSaved{}, errNoSettingsHere
	}
	screen, err := h.settings.Update(h.callCtx(), u)
	var refused *protocol.SettingError
	switch {
	case errors.As(err, &refused):
		return protocol.SettingsSaved{Refused: refused}, nil
	case err != nil:
		return protocol.SettingsSaved{}, err
	}
	return protocol.SettingsSaved{Screen: &screen}, nil
}
