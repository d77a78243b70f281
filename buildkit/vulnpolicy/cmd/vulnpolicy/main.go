// Command vulnpolicy reads `govulncheck -format json` on standard input,
// prints the verdict, and exits 1 when a called vulnerability has a fix
// that go.mod or the Go release does not take (package vulnpolicy says why
// only that fails).
package main

import (
	"fmt"
	"os"

	"quire/buildkit/vulnpolicy"
)

func main() {
	v, err := vulnpolicy.Read(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "vulnpolicy:", err)
		os.Exit(2)
	}
	v.Report(os.Stdout)
	if v.Failed() {
		os.Exit(1)
	}
}
