package httpapi

import "net/http"

// pagePolicy is the page's Content-Security-Policy: the same as the one
// frontend/index.html carries in its <meta> (which is all the window has;
// TestPageHeadersCarryThePagesPolicy keeps the two equal). Nothing the
// page renders may reach off the laptop: a reply steered by a document
// could otherwise name an image, a background or a ping whose URL holds
// what the model read, and the browser would fetch it as it drew the
// reply. Only this origin's scripts, styles, images and API; no media,
// frames, plugins, workers or form posts; no <base> to move relative URLs.
const pagePolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; font-src 'self'; " +
	"connect-src 'self'; media-src 'none'; object-src 'none'; frame-src 'none'; worker-src 'none'; " +
	"form-action 'none'; base-uri 'none'"

// headerPolicy adds what only a header can say: no other page may frame
// quire serve's (a framed page can be clicked through, on Allow too).
const headerPolicy = pagePolicy + "; frame-ancestors 'none'"

// pageHeaders sets the browser's rules on every answer — the page, its
// assets, the API and the guard's refusals alike, so no answer is the one
// that forgot them: the policy, no Referer sent on (an address here can be
// a session's), no content sniffing, and no lookups of the hosts links
// name before a click (a host name can carry a secret too).
func pageHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", headerPolicy)
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-DNS-Prefetch-Control", "off")
		next.ServeHTTP(w, r)
	})
}
