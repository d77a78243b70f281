//go:build !unix

package vault_test

import "time"

// cpuTime is not measured here: the CPU metric reads 0.
func cpuTime() time.Duration { return 0 }
