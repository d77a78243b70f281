package compact

import (
	"math"
	"slices"
	"strings"
	"testing"

	"quire/kernel/event"
	"quire/kernel/history"
	"quire/kernel/provider"
)

func user(seq int64, text string) history.Entry {
	return history.Entry{Session: "s", Seq: seq, Message: provider.Message{Role: provider.RoleUser, Content: text}}
}

func assistant(seq int64, text string, calls ...string) history.Entry {
	m := provider.Message{Role: provider.RoleAssistant, Content: text}
	for _, c := range calls {
		m.ToolCalls = append(m.ToolCalls, provider.ToolCall{ID: c, Name: "read_note", Arguments: `{"path":"` + c + `"}`})
	}
	return history.Entry{Session: "s", Seq: seq, Message: m}
}

func result(seq int64, name, text string) history.Entry {
	return history.Entry{Session: "s", Seq: seq, Message: provider.Message{Role: provider.RoleTool, ToolName: name, Content: text}}
}

func summary(seq int64, text string) history.Entry {
	return user(seq, history.SummaryLabel+text)
}

func sized(tokens []int, es ...history.Entry) []Sized {
	out := make([]Sized, len(es))
	for i, e := range es {
		out[i] = Sized{Entry: e, Tokens: tokens[i]}
	}
	return out
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestMeasure(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a line of a long build log that repeats\n", 3)
	for _, tc := range []struct {
		name   string
		fixed  int
		hist   []Sized
		recent int
		window int
		want   event.Pollution
	}{
		{"empty history", 100, nil, 2, 1000,
			event.Pollution{Tokens: 100, Window: 1000, Fill: 0.1}},
		{"conversation only: nothing from a tool, nothing long", 0,
			sized([]int{50, 50}, user(1, "hello there"), assistant(2, "hi")), 0, 1000,
			event.Pollution{Tokens: 100, Window: 1000, Fill: 0.1}},
		{"one tool is 80% of the history, long outputs", 0,
			sized([]int{100, 50, 300, 50, 100}, user(1, "read"), assistant(2, "", "a"), result(3, "read_note", "x"), assistant(4, "", "b"), result(5, "grep", "y")), 0, 1200,
			event.Pollution{Tokens: 600, Window: 1200, Fill: 0.5, TopSource: "read_note", TopSourceShare: 0.5, LowValueShare: 0.5, Index: 0.5}},
		{"the same log twice: the second copy and its repeated lines are duplicates", 0,
			sized([]int{10, 10, 10}, user(1, "go"), result(2, "run", long), result(3, "run", long)), 0, 0,
			// 6 identical lines of 39 runes plus "go": 5 lines are repeats.
			event.Pollution{Tokens: 30, TopSource: "run", TopSourceShare: 20.0 / 30, DuplicateRatio: 5.0 * 39 / (6*39 + 2), Index: 5.0 * 39 / (6*39 + 2)}},
		{"the recent tail counts for fill, not for pollution", 0,
			sized([]int{100, 100, 50, 250}, user(1, "read"), assistant(2, "ok"), assistant(3, "", "a"), result(4, "read_note", "x")), 2, 1000,
			event.Pollution{Tokens: 500, Window: 1000, Fill: 0.5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := Measure(tc.fixed, tc.hist, tc.recent, tc.window, 200)
			if got.Tokens != tc.want.Tokens || got.Window != tc.want.Window || !near(got.Fill, tc.want.Fill) ||
				got.TopSource != tc.want.TopSource || !near(got.TopSourceShare, tc.want.TopSourceShare) ||
				!near(got.DuplicateRatio, tc.want.DuplicateRatio) || !near(got.LowValueShare, tc.want.LowValueShare) || !near(got.Index, tc.want.Index) {
				t.Fatalf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestDecide(t *testing.T) {
	t.Parallel()
	p := DefaultPolicy
	if got := p.TargetTokens(1000, 4000); got != 1000+1000 {
		t.Errorf("target %d with 1000 fixed in 4000: want half of the 2000 the size trigger leaves, on top of the fixed", got)
	}
	if got := p.TargetTokens(3500, 4000); got != 3500 {
		t.Errorf("target %d when the fixed part alone passes the trigger: want the fixed part", got)
	}
	fig := func(fill, index, low float64) event.Pollution {
		return event.Pollution{Window: 4096, Fill: fill, Index: index, LowValueShare: low}
	}
	for _, tc := range []struct {
		name   string
		f      event.Pollution
		forced bool
		memory bool
		want   Decision
	}{
		{"small and clean: nothing", fig(0.2, 0.1, 0), false, false, Decision{}},
		{"polluted but small: nothing (cheap anyway)", fig(0.2, 0.9, 0.9), false, false, Decision{}},
		{"polluted and a third full: pollution", fig(0.4, 0.7, 0.7), false, false,
			Decision{true, TriggerPollution, []string{StrategyDropLogs, StrategySummarise}}},
		{"full but clean: size, no logs to drop", fig(0.8, 0.1, 0), false, false,
			Decision{true, TriggerSize, []string{StrategySummarise}}},
		{"size wins over pollution as the trigger", fig(0.9, 0.9, 0.5), false, false,
			Decision{true, TriggerSize, []string{StrategyDropLogs, StrategySummarise}}},
		{"overflow whatever the figures", fig(0.1, 0, 0), true, false,
			Decision{true, TriggerOverflow, []string{StrategySummarise}}},
		{"working memory: facts before the summary", fig(0.8, 0.7, 0.3), false, true,
			Decision{true, TriggerSize, []string{StrategyDropLogs, StrategyExtractFacts, StrategySummarise}}},
		{"unknown window: only an overflow compacts", event.Pollution{Fill: 0, Index: 1}, false, false, Decision{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := Decide(tc.f, p, tc.forced, tc.memory)
			if got.Compact != tc.want.Compact || got.Trigger != tc.want.Trigger || !slices.Equal(got.Strategies, tc.want.Strategies) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestSpans(t *testing.T) {
	t.Parallel()
	parent := history.Entry{Session: "parent", Seq: 3, Message: provider.Message{Role: provider.RoleUser, Content: "from the parent"}}
	for _, tc := range []struct {
		name string
		hist []history.Entry
		keep int
		want []Span
	}{
		{"empty", nil, 2, nil},
		{"the latest request alone is never replaced", []history.Entry{user(1, "only")}, 0, nil},
		{"before the latest request, and after it except the tail",
			[]history.Entry{user(1, "fact"), assistant(2, "ok"), user(3, "latest"), assistant(4, "", "a"), result(5, "read_note", "A"), assistant(6, "", "b"), result(7, "read_note", "B"), assistant(8, "", "c"), result(9, "read_note", "C")}, 2,
			[]Span{{First: 0, Last: 1, From: 1, To: 2, BeforeLatest: true}, {First: 3, Last: 6, From: 4, To: 7}}},
		{"a call is never separated from its results",
			[]history.Entry{user(1, "latest"), assistant(2, "", "a", "b"), result(3, "read_note", "A"), result(4, "read_note", "B"), assistant(5, "done")}, 2,
			[]Span{}},
		{"tail boundary moves back to before the call",
			[]history.Entry{user(1, "latest"), assistant(2, "", "a"), result(3, "read_note", "A"), assistant(4, "", "b", "c"), result(5, "read_note", "B"), result(6, "read_note", "C")}, 1,
			[]Span{{First: 1, Last: 2, From: 2, To: 3}}},
		{"a branch's parent history is not its own",
			[]history.Entry{parent, assistant(5, "reply"), user(6, "x"), user(7, "latest")}, 0,
			[]Span{{First: 1, Last: 2, From: 5, To: 6, BeforeLatest: true}}},
		{"a lone earlier summary is a span (a long stub can be summarised)",
			[]history.Entry{summary(1, "earlier"), user(5, "latest"), assistant(6, "ok")}, 1,
			[]Span{{First: 0, Last: 0, From: 1, To: 1, BeforeLatest: true}}},
		{"an earlier summary is summarised again with what follows",
			[]history.Entry{summary(1, "earlier"), user(5, "x"), assistant(6, "ok"), user(7, "latest")}, 0,
			[]Span{{First: 0, Last: 2, From: 1, To: 6, BeforeLatest: true}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := Spans(tc.hist, "s", tc.keep)
			if len(got) == 0 && len(tc.want) == 0 {
				return
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("got %+v\nwant %+v", got, tc.want)
			}
			latest := Latest(tc.hist)
			for _, sp := range got {
				if latest >= sp.First && latest <= sp.Last {
					t.Fatalf("span %+v holds the latest request", sp)
				}
			}
		})
	}
}

func TestCalibration(t *testing.T) {
	t.Parallel()
	var c Calibration
	if c.Factor("m") != 1 {
		t.Fatal("an unobserved model must have factor 1")
	}
	for range 8 {
		c.Observe("m", 1000, 1300)
	}
	if f := c.Factor("m"); math.Abs(f-1.3) > 0.01 {
		t.Fatalf("factor %v after steady 1.3 reports, want about 1.3", f)
	}
	c.Observe("m", 1000, 0)   // no report
	c.Observe("m", 0, 100)    // no estimate
	c.Observe("m", 10, 10000) // a fluke is clamped, and only moves the factor halfway
	if f := c.Factor("m"); f > (1.3+maxFactor)/2+0.01 {
		t.Fatalf("factor %v: a fluke moved it too far", f)
	}
	if c.Factor("other") != 1 {
		t.Fatal("factors are per model")
	}
	if scale(10, 1.01) != 11 || scale(10, 1) != 10 {
		t.Fatal("scale must round up")
	}
}

func TestParseFacts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		answer string
		want   []Item
		bad    bool
	}{
		{"plain", `{"items":[{"kind":"fact","text":"code name BLUEBIRD"}]}`, []Item{{"fact", "code name BLUEBIRD"}}, false},
		{"fenced with prose", "Here:\n```json\n{\"items\":[{\"kind\":\"open\",\"text\":\" read note 7 \"}]}\n```", []Item{{"open", "read note 7"}}, false},
		{"unknown kind becomes fact, empty text dropped", `{"items":[{"kind":"guess","text":"x"},{"kind":"fact","text":""}]}`, []Item{{"fact", "x"}}, false},
		{"not JSON", "I could not find facts.", nil, true},
		{"no items", `{"items":[]}`, nil, true},
		{"broken JSON", `{"items":[{"kind":"fact","text":}]}`, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := parseFacts(tc.answer)
			if tc.bad {
				if err == nil {
					t.Fatalf("accepted %q as %v", tc.answer, got)
				}
				return
			}
			if err != nil || !slices.Equal(got, tc.want) {
				t.Fatalf("got %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

func TestDropLogsKeepsWhatWasSaid(t *testing.T) {
	t.Parallel()
	es := []history.Entry{user(1, "the code is BLUEBIRD"), assistant(2, "reading", "a"), result(3, "read_note", strings.Repeat("z", 2000)), assistant(4, "", "b"), result(5, "read_note", "short")}
	stub, dropped := dropLogs(es, []int{10, 10, 500, 10, 5}, 200)
	for _, want := range []string{"User: the code is BLUEBIRD", "Assistant: reading", `Assistant called read_note {"path":"a"}`,
		"[dropped: read_note output, 2000 characters, event 3; the whole output is kept in the log]", "Result of read_note: short"} {
		if !strings.Contains(stub, want) {
			t.Errorf("stub lacks %q:\n%s", want, stub)
		}
	}
	if strings.Contains(stub, "zzz") || len(dropped) != 1 {
		t.Errorf("the long output must be dropped (dropped %v):\n%s", dropped, stub)
	}
}
