package window

import (
	"log/slog"
	"strings"
	"testing"

	"quire/config"
	"quire/kernel/protocol"
	"quire/test/ollamatest"
)

// TestSettingsScreenInTheWindow: the window's bound methods reach the
// settings owner through the same port as `quire serve`: the screen,
// a save, a refusal that names its field (a bound method can reject
// only with text), and the address check; none answers before the
// handshake.
func TestSettingsScreenInTheWindow(t *testing.T) {
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	dir := t.TempDir()
	s := openOwner(t, dir, fake.URL())
	defer s.Close()
	a := newHost(s.Kernel(), s.Doctor, "", slog.New(slog.DiscardHandler))
	a.settings = s.Settings()
	if _, err := opAs[protocol.SettingsScreen](a, "Settings.Screen"); err == nil {
		t.Error("Settings answered before the handshake")
	}
	if _, err := a.Handshake(protocol.Version); err != nil {
		t.Fatal(err)
	}
	screen, err := opAs[protocol.SettingsScreen](a, "Settings.Screen")
	if err != nil || screen.Settings.Model != "qwen3:4b" || !screen.Model.CanThink {
		t.Fatalf("Settings = %+v, %v", screen, err)
	}
	u := screen.Settings
	hot := 2.5
	u.Temperature = &hot
	got, err := a.SaveSettings(u)
	if err != nil || got.Screen != nil || got.Refused == nil || got.Refused.Field != "temperature" || !strings.Contains(got.Refused.Message, "between 0 and 2") {
		t.Fatalf("a temperature of 2.5: %+v, %v", got, err)
	}
	warm := 1.1
	u.Temperature, u.Theme = &warm, "light"
	got, err = a.SaveSettings(u)
	if err != nil || got.Refused != nil || got.Screen == nil || got.Screen.Settings.Theme != "light" {
		t.Fatalf("SaveSettings = %+v, %v", got, err)
	}
	if saved, err := config.ReadSettings(dir); err != nil || saved.Theme != "light" || saved.Temperature == nil || *saved.Temperature != warm {
		t.Errorf("saved %+v, %v", saved, err)
	}
	check, err := opAs[protocol.OllamaCheck](a, "Settings.CheckOllama", fake.URL())
	if err != nil || !check.OK || !strings.Contains(check.Message, "answers here") {
		t.Errorf("CheckOllama = %+v, %v", check, err)
	}
}
