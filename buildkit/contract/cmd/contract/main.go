// Command contract writes the frontend's generated TypeScript types
// (buildkit/contract) from the Go types, and PROTOCOL.md's list of
// operations from the host ports. Run it from the module root:
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
	if err == nil {
		err = writeOperations()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "contract:", err)
		os.Exit(1)
	}
}

// writeOperations makes PROTOCOL.md's list of operations anew.
func writeOperations() error {
	doc, err := os.ReadFile(contract.ProtocolPath)
	if err != nil {
		return err
	}
	list, err := contract.OperationsMarkdown(".")
	if err != nil {
		return err
	}
	out, err := contract.WithOperations(string(doc), list)
	if err != nil {
		return err
	}
	return os.WriteFile(contract.ProtocolPath, []byte(out), 0o644)
}
