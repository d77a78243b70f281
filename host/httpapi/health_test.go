package httpapi_test

import (
	"bufio"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"

	"quire/doctor"
	"quire/host"
	"quire/host/httpapi"
	"quire/kernel/protocol"
	"quire/test/testkit"
)

// TestHealthStreamSendsEveryChange: a page's stream is sent the report
// whenever the checks change, including a change another page's "Check
// again" found, and the report of GET /api/doctor is the one it is sent.
func TestHealthStreamSendsEveryChange(t *testing.T) {
	var up atomic.Bool
	report := func(context.Context) doctor.Report {
		c := doctor.Check{Name: "Ollama", OK: up.Load(), Detail: "version 0.17.4"}
		if !c.OK {
			c.Detail, c.Action = "not reachable", doctor.ActionInstall
		}
		return doctor.Report{OK: c.OK, Checks: []doctor.Check{c}}
	}
	k := testkit.New(t)
	h := httpapi.New(httpapi.Backend{Kernel: k.Runtime, Doctor: report, Health: host.NewHealth(report, report)},
		fstest.MapFS{}, slog.New(slog.DiscardHandler))
	srv := start(t, h)
	req := srv.request(t, "GET", "/api/health/stream?protocol="+protocol.Version, "")
	req.Header.Del(httpapi.ProtocolHeader)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	lines := bufio.NewScanner(resp.Body)
	lines.Scan() // ": connected"
	next := func() doctor.Report {
		t.Helper()
		for lines.Scan() {
			if lines.Text() == "event: health" {
				lines.Scan()
				var r doctor.Report
				if err := json.Unmarshal([]byte(strings.TrimPrefix(lines.Text(), "data: ")), &r); err != nil {
					t.Fatal(err)
				}
				return r
			}
		}
		t.Fatalf("the stream ended: %v", lines.Err())
		return doctor.Report{}
	}
	for _, want := range []bool{false, true, false} {
		up.Store(want)
		status, body := srv.do(t, "GET", "/api/doctor", "")
		var asked doctor.Report
		if err := json.Unmarshal([]byte(body), &asked); status != http.StatusOK || err != nil || asked.OK != want {
			t.Fatalf("GET /api/doctor with Ollama up=%v: %d %s", want, status, body)
		}
		if got := next(); got.OK != want || got.Checks[0].Detail != asked.Checks[0].Detail {
			t.Fatalf("the stream sent %+v after the doctor said %+v", got, asked)
		}
	}
}
