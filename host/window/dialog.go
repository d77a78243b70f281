package window

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	wailsrt "github.com/wailsapp/wails/v2/pkg/runtime"
	"golang.org/x/text/width"
)

// Native dialogs: the user's yes to what changes notes, servers and what
// Quire does, one at a time, their text laid out so a GTK dialog (which
// does not scroll) keeps its buttons on screen.

// nativeQuestion shows a native Yes/No dialog. On Linux Wails ignores custom
// buttons and passes the message to GTK as a printf format (STACK.md), so
// '%' is escaped.
func nativeQuestion(ctx context.Context, title, message string) (bool, error) {
	answer, err := wailsrt.MessageDialog(ctx, wailsrt.MessageDialogOptions{
		Type: wailsrt.QuestionDialog, Title: title, Message: strings.ReplaceAll(message, "%", "%%"),
	})
	return strings.EqualFold(answer, "Yes"), err
}

// nativeNotice shows a native dialog with one OK button.
func nativeNotice(ctx context.Context, title, message string) error {
	_, err := wailsrt.MessageDialog(ctx, wailsrt.MessageDialogOptions{
		Type: wailsrt.InfoDialog, Title: title, Message: strings.ReplaceAll(message, "%", "%%"),
	})
	return err
}

// A GTK message dialog does not scroll: it grows with its text, and past
// the screen its buttons are out of reach. About 30 lines of body text fit
// a 768-pixel-high screen with the title, icon and buttons; 1,000
// characters wrap to some 15 lines at the dialog's width. Within these
// bounds every call is shown whole; a call that does not fit is named, with
// its size, and read in full on the window's card.
//
// GTK wraps a dialog's text only between words: a line with no break in
// it (one long word, a run of spaces or of no-break spaces) widens the
// dialog past the screen, with the text after it and the buttons out of
// sight. So every line is broken at dialogWrap cells (a wide character is
// two), each piece after the first marked with wrapMark, and counted as
// the lines it becomes.
const (
	dialogMaxLines = 20
	dialogMaxRunes = 1000
	dialogWrap     = 72
	wrapMark       = "↪ "
)

// wrap breaks each line of s into pieces of at most max cells, each piece
// after the first starting with wrapMark, so no line is wider than a
// dialog can show.
func wrap(s string, max int) string {
	var b strings.Builder
	for i, line := range strings.Split(s, "\n") {
		if i > 0 {
			b.WriteByte('\n')
		}
		w := 0
		for _, c := range line {
			cw := cellWidth(c)
			if w+cw > max {
				b.WriteString("\n" + wrapMark)
				w = cells(wrapMark)
			}
			b.WriteRune(c)
			w += cw
		}
	}
	return b.String()
}

// cells is how wide s draws, counting a wide (East Asian) character as two.
func cells(s string) int {
	n := 0
	for _, c := range s {
		n += cellWidth(c)
	}
	return n
}

func cellWidth(c rune) int {
	switch width.LookupRune(c).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return 2
	}
	return 1
}

// count writes n with its noun and thousands separators: "4,312 characters".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s + " " + many
}

// confirm shows one native Yes/No dialog, in turn with the permission
// questions' (one dialog at a time: Wails answers every message dialog
// through one channel).
func (h *Host) confirm(title, text string) (bool, error) {
	window := h.window.Load()
	if window == nil {
		return false, errNoWindow
	}
	select {
	case h.dialogs <- struct{}{}:
	case <-(*window).Done():
		return false, context.Cause(*window)
	}
	defer func() { <-h.dialogs }()
	return h.dialog(*window, title, text)
}

// batchText is a batch dialog's message: the lines that fit a dialog
// (dialogMaxLines, dialogMaxRunes, each wrapped at dialogWrap), and for
// the rest how many there are and where they are all listed — the page's
// review list, which shows them whole.
func batchText(head string, items []string, foot string) string {
	var b strings.Builder
	b.WriteString(head + "\n")
	lines, runes := 0, 0
	for i, it := range items {
		shown := wrap(it, dialogWrap)
		n := strings.Count(shown, "\n") + 1
		r := utf8.RuneCountInString(it)
		if lines+n > dialogMaxLines || runes+r > dialogMaxRunes {
			fmt.Fprintf(&b, "\n…and %s: the Quire window lists all %d. Read them there before you answer.", count(len(items)-i, "more change", "more changes"), len(items))
			break
		}
		lines, runes = lines+n, runes+r
		b.WriteString("\n• " + shown)
	}
	b.WriteString("\n\n" + foot)
	return b.String()
}
