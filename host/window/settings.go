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

// The Settings screen's bound methods (the same port as `quire serve`'s
// /api/settings routes).

// Settings is the Settings screen: every choice and what it needs.
func (h *Host) Settings() (protocol.SettingsScreen, error) {
	if err := h.ready(); err != nil {
		return protocol.SettingsScreen{}, err
	}
	if h.settings == nil {
		return protocol.SettingsScreen{}, errNoSettingsHere
	}
	return h.settings.Screen(h.callCtx())
}

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

// CheckOllama asks an address being typed whether Ollama answers there,
// saving nothing.
func (h *Host) CheckOllama(address string) (protocol.OllamaCheck, error) {
	if err := h.ready(); err != nil {
		return protocol.OllamaCheck{}, err
	}
	if h.settings == nil {
		return protocol.OllamaCheck{}, errNoSettingsHere
	}
	return h.settings.CheckOllama(h.callCtx(), address), nil
}
