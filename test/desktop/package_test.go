//go:build desktoptest

package desktop

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"quire/test/ollamatest"
)

// TestInstalledPackage starts Quire as the Debian package installed it
// (`make test-package`: QUIRE_APP_BIN=/usr/bin/quire, QUIRE_DESKTOP_ENTRY its
// desktop entry) and checks that the entry names that binary and an icon the
// package installed, and that the window comes up with its first screen.
func TestInstalledPackage(t *testing.T) {
	bin, entryPath := os.Getenv("QUIRE_APP_BIN"), os.Getenv("QUIRE_DESKTOP_ENTRY")
	if bin == "" || entryPath == "" {
		t.Fatal("QUIRE_APP_BIN and QUIRE_DESKTOP_ENTRY are not set: run this test through `make test-package`, which installs the package first")
	}
	// The binary belongs to the installed package, not to a build folder.
	if out, err := exec.Command("dpkg-query", "-S", bin).CombinedOutput(); err != nil || !strings.HasPrefix(string(out), "quire: ") {
		t.Fatalf("%s is not installed by the quire package: %v %s", bin, err, out)
	}

	entry := readDesktopEntry(t, entryPath)
	for _, key := range []string{"Exec", "TryExec"} {
		cmd := strings.Fields(entry[key])
		if len(cmd) == 0 {
			t.Fatalf("%s has no %s", entryPath, key)
		}
		resolved, err := exec.LookPath(cmd[0])
		if err != nil || resolved != bin {
			t.Fatalf("%s=%s in %s resolves to %q (%v), want %s", key, entry[key], entryPath, resolved, err, bin)
		}
	}
	icons, _ := filepath.Glob("/usr/share/icons/hicolor/*/apps/" + entry["Icon"] + ".*")
	if entry["Icon"] == "" || len(icons) == 0 {
		t.Fatalf("Icon=%q in %s: no such icon under /usr/share/icons/hicolor", entry["Icon"], entryPath)
	}

	display := startXvfb(t)
	fake := ollamatest.New(t)
	fake.AddModel(ollamatest.DefaultModel())
	probe := filepath.Join(t.TempDir(), "view.json")
	a := startApp(t, display, t.TempDir(), probe, fake.URL())
	first := waitView(t, a, probe, "the first screen", func(v view) bool { return v.Messages != nil && v.SessionTitles != nil })
	win := strings.Fields(run(t, display, "xdotool", "search", "--sync", "--onlyvisible", "--name", "^"+entry["Name"]+"$"))
	if len(win) != 1 {
		t.Fatalf("want one visible window named %q, got %v", entry["Name"], win)
	}
	screenshot(t, display, "package-first-screen.png")
	if first.Banner != nil {
		t.Fatalf("the first screen shows a banner: %s", *first.Banner)
	}
	if len(first.Messages) != 0 || len(first.SessionTitles) != 0 {
		t.Fatalf("a fresh data folder shows messages %v and chats %v", first.Messages, first.SessionTitles)
	}
}

// readDesktopEntry reads the [Desktop Entry] group's keys (untranslated).
func readDesktopEntry(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	keys := map[string]string{}
	group := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "["):
			group = line
		case group == "[Desktop Entry]":
			if k, v, ok := strings.Cut(line, "="); ok {
				keys[strings.TrimSpace(k)] = strings.TrimSpace(v)
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if keys["Type"] != "Application" {
		t.Fatalf("%s: Type=%q, want Application", path, keys["Type"])
	}
	return keys
}
