// Command contract writes the frontend's generated TypeScript types
// (buildkit/contract) from the Go types. Run it from the module root:
// go run ./buildkit/contract/cmd/contract (make generate).
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"quire/buildkit/contract"
)

func main() {
	src, err := contract.TypeScript(".")
	if err == nil {
		err = os.MkdirAll(filepath.Dir(contract.Path), 0o755)
	}
	if err == nil {
		err = os.WriteFile(contract.Path, src, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "contract:", err)
		os.Exit(1)
	}
}
