package standing

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// SysPower reads the battery where Linux exposes it: each supply under Dir
// (/sys/class/power_supply) whose type is Battery has a capacity (percent)
// and a status. Elsewhere, or with no battery, it says it does not know.
type SysPower struct{ Dir string }

// Battery is the lowest battery's percent, and whether any discharges.
func (p SysPower) Battery() (percent int, discharging, known bool) {
	entries, err := os.ReadDir(p.Dir)
	if err != nil {
		return 0, false, false
	}
	read := func(dir, name string) string {
		b, _ := os.ReadFile(filepath.Join(dir, name))
		return strings.TrimSpace(string(b))
	}
	percent = 100
	for _, e := range entries {
		dir := filepath.Join(p.Dir, e.Name())
		if read(dir, "type") != "Battery" {
			continue
		}
		n, err := strconv.Atoi(read(dir, "capacity"))
		if err != nil {
			continue
		}
		known = true
		percent = min(percent, n)
		if read(dir, "status") == "Discharging" {
			discharging = true
		}
	}
	return percent, discharging, known
}
