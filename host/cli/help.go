package cli

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"quire/config"
)

// VersionLine is what `quire version` prints: the product version of
// wailsJSON (main embeds wails.json, the one source the window and the
// .deb share), and the commit it was built from when the build recorded one.
func VersionLine(wailsJSON []byte) string {
	var w struct {
		Info struct {
			ProductVersion string `json:"productVersion"`
		} `json:"info"`
	}
	v := "unknown"
	if json.Unmarshal(wailsJSON, &w) == nil && w.Info.ProductVersion != "" {
		v = w.Info.ProductVersion
	}
	line := "quire version " + v
	if bi, ok := debug.ReadBuildInfo(); ok {
		var rev, dirty string
		for _, s := range bi.Settings {
			switch {
			case s.Key == "vcs.revision" && len(s.Value) >= 12:
				rev = s.Value[:12]
			case s.Key == "vcs.modified" && s.Value == "true":
				dirty = ", modified"
			}
		}
		if rev != "" {
			line += " (commit " + rev + dirty + ")"
		}
	}
	return line
}

// Help is `quire help [COMMAND]` over main's usage text.
func Help(usage string, args []string, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 0:
		fmt.Fprint(stdout, usage)
		return 0
	case len(args) > 1:
		fmt.Fprintln(stderr, "usage: quire help [COMMAND]")
		return 2
	}
	if args[0] != "serve" && args[0] != "window" && args[0] != "version" && Lookup(args[0], flag.NewFlagSet("", flag.ContinueOnError)) == nil {
		fmt.Fprintf(stderr, "quire: unknown command %q; `quire help` lists them\n", args[0])
		return 2
	}
	fmt.Fprint(stdout, CommandHelp(usage, args[0]))
	return 0
}

// CommandHelp is one command's help, as gh and ollama give it: its lines
// of the global usage (the one place they are written), its own flags,
// then the flags every command takes. cmd "" is the global usage.
func CommandHelp(usage, cmd string) string {
	if cmd == "" || cmd == "window" {
		return usage
	}
	var b strings.Builder
	b.WriteString("Usage:\n")
	in := false
	for _, l := range strings.Split(usage, "\n") {
		switch {
		case strings.HasPrefix(l, "  quire "+cmd+" ") || l == "  quire "+cmd:
			in = true
		case !strings.HasPrefix(l, "   "):
			in = false
		}
		if in {
			b.WriteString(l + "\n")
		}
	}
	own := flag.NewFlagSet("", flag.ContinueOnError)
	switch cmd {
	case "serve":
		own.String("addr", "127.0.0.1:8765", "address to listen on (loopback only)")
	case "version":
	default:
		Lookup(cmd, own)
	}
	var flags bytes.Buffer
	own.SetOutput(&flags)
	own.PrintDefaults()
	if flags.Len() > 0 {
		b.WriteString("\nFlags:\n")
		b.Write(flags.Bytes())
	}
	global := flag.NewFlagSet("", flag.ContinueOnError)
	config.Register(global)
	flags.Reset()
	global.SetOutput(&flags)
	global.PrintDefaults()
	b.WriteString("\nFlags every command takes:\n")
	b.Write(flags.Bytes())
	return b.String()
}
