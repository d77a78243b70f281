package protocol

import "testing"

func TestToolPhrase(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, want string }{
		{"list_notes", "Listed the notes"},
		{"search_docs", "Searched the documents"},
		{"weather__get_forecast", "get forecast (weather)"},
		{"brand_new_tool", "brand new tool"},
		{"_", "_"},
	} {
		if got := ToolPhrase(tc.name); got != tc.want {
			t.Errorf("ToolPhrase(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestToolOutcome(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ status, want string }{
		{"failure", "failed"},
		{"empty", "nothing found"},
		{"timed_out", "timed out"},
	} {
		if got := ToolOutcome(tc.status); got != tc.want {
			t.Errorf("ToolOutcome(%q) = %q, want %q", tc.status, got, tc.want)
		}
	}
}
