package assembly

import (
	"context"
	"io/fs"
	"log/slog"

	"quire/host/httpapi"
)

// ServeBackend is what `quire serve` hands host/httpapi: the kernel, the
// doctor and its watcher, the settings, memory, the models screen, the notes
// panel, the inspector's calls, the batches, the Evolution panel and the documents panel (started now, on ctx), with the standing tasks firing from now. probePath is the test probe file
// (QUIRE_TEST_PROBE), "" outside tests. The browser tests serve the same
// backend.
func (p *Parts) ServeBackend(ctx context.Context, probePath string) httpapi.Backend {
	p.RunStanding(ctx) // both serve the user for long: standing tasks fire while they run
	return httpapi.Backend{Kernel: p.Kernel(), Doctor: p.pageReport, Settings: p.Settings(), Memory: p.Memory(),
		Documents: p.Documents(ctx), Models: p.Models(), Notes: p.Notes(), Calls: p.Calls(), Conversations: p.Conversations(), Batches: p.Batches(), Standing: p.Standing(), MCP: p.MCP(), Evolution: p.Evolution(), Skills: p.Skills(), ProbePath: probePath, Health: p.Health(ctx), Claims: &p.claims}
}

// Serve is `quire serve`'s HTTP host over b, made the one that asks the
// user: in a browser the page's own card is where a question is answered,
// so the server keeps each question with its descriptions for the page to
// show whole (httpapi's Ask, GET /api/questions). main and the browser
// tests build it here, so both wire it the same way.
func (p *Parts) Serve(b httpapi.Backend, assets fs.FS, log *slog.Logger) *httpapi.Server {
	srv := httpapi.New(b, assets, log)
	p.SetAsker(srv.Ask)
	return srv
}
