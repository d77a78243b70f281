package app

import (
	"context"

	"quire/host/httpapi"
)

// ServeBackend is what `quire serve` hands host/httpapi: the kernel, the
// doctor, the settings, memory and the documents panel (started now, on
// ctx). probePath is the test probe file (QUIRE_TEST_PROBE), "" outside
// tests. The browser tests serve the same backend.
func (p *Parts) ServeBackend(ctx context.Context, probePath string) httpapi.Backend {
	return httpapi.Backend{Kernel: p.Kernel(), Doctor: p.Doctor, Settings: p.Settings(), Memory: p.Memory(),
		Documents: p.Documents(ctx), ProbePath: probePath}
}
