package bench_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"quire/kernel/event"
	"quire/kernel/protocol"
	"quire/kernel/runtime"
	"quire/kernel/tool"
	"quire/test/ollamatest"
	"quire/test/testkit"
)

const (
	// steps is the number of model calls in one turn: steps-1 that each
	// call the tool once, then one that answers with text only.
	steps = 20
	// chunkDelay is the fake server's pause before every chunk it streams.
	// Every model call streams 5 message chunks (4 of text and 1 tool call,
	// or 5 of text at the last step) and the final done chunk, so a call
	// takes 6 × chunkDelay = 120 ms and a turn at least 2.4 s.
	chunkDelay = 20 * time.Millisecond
	// numCtx is the context testkit gives the runtime; the bare loop sends
	// the same.
	numCtx = 8192

	question = "What do my notes say?"
)

// BenchmarkToolTurn runs one 20-step tool-using turn through Quire and
// through a bare loop over Ollama's client, against the same fake server
// with the same script, once with a realistic per-chunk delay and once with
// none (to show the absolute overhead per step). Each arm reports ms/step;
// the bare arm, which runs second, also reports the ratio quire/bare of the
// times per turn and the milliseconds Quire adds per step. (-count N runs
// the quire arm N times before the bare arm, so every bare line would be
// paired with the last quire run; to repeat, run the command again instead.)
func BenchmarkToolTurn(b *testing.B) {
	for _, delay := range []time.Duration{chunkDelay, 0} {
		b.Run("delay="+delay.String(), func(b *testing.B) {
			fake := ollamatest.New(b)
			fake.AddModel(ollamatest.DefaultModel())
			var quire time.Duration // per turn, from the last run of the quire arm
			b.Run("quire", func(b *testing.B) {
				quire = quireArm(b, fake, delay)
				b.ReportMetric(float64(quire)/steps/1e6, "ms/step")
			})
			b.Run("bare", func(b *testing.B) {
				bare := bareArm(b, fake, delay)
				b.ReportMetric(float64(bare)/steps/1e6, "ms/step")
				if quire > 0 {
					b.ReportMetric(float64(quire)/float64(bare), "quire/bare")
					b.ReportMetric(float64(quire-bare)/steps/1e6, "added-ms/step")
				}
			})
		})
	}
}

// quireArm runs the turn through a real runtime over a SQLite file (the
// production flush interval and limits, the "ask" profile, under which the
// read-only tool runs without asking), one new session per iteration, and
// waits for the run's run.finished event through a subscription. It returns
// the mean time per turn.
func quireArm(b *testing.B, fake *ollamatest.Server, delay time.Duration, opts ...runtime.Option) time.Duration {
	k := testkit.Open(b, fake, filepath.Join(b.TempDir(), "quire.db"),
		append([]runtime.Option{runtime.WithTools(tools{readNote{}}), runtime.WithLogger(slog.New(slog.DiscardHandler))}, opts...)...)
	rt := k.Runtime

	// What the subscriber saw of the run in progress; there is one at a time.
	var mu sync.Mutex
	var replies, results int
	finished := make(chan protocol.Event, 1)
	unsubscribe := rt.Subscribe(func(u runtime.Update) {
		mu.Lock()
		defer mu.Unlock()
		for _, e := range u.Events {
			switch event.Type(e.Type) {
			case event.AssistantMessage:
				replies++
			case event.ToolResult:
				results++
			case event.RunFinished:
				select {
				case finished <- e:
				default:
				}
			}
		}
	})
	defer unsubscribe()

	ctx := b.Context()
	n := 0
	for b.Loop() {
		b.StopTimer()
		s, err := protocol.Run[protocol.Session](ctx, rt, "", protocol.CreateSession, protocol.CreateSessionPayload{Title: "bench"})
		if err != nil {
			b.Fatal(err)
		}
		mu.Lock()
		replies, results = 0, 0
		mu.Unlock()
		fake.Script(script(delay)...)
		b.StartTimer()

		sent, err := protocol.Run[protocol.SendResult](ctx, rt, "", protocol.SendMessage,
			protocol.SendMessagePayload{Session: s.ID, Text: question})
		if err != nil {
			b.Fatal(err)
		}
		var fin protocol.Event
		select {
		case fin = <-finished:
		case <-time.After(time.Minute):
			b.Fatal("the run did not finish within a minute")
		}

		b.StopTimer()
		var p event.RunFinishedPayload
		if err := json.Unmarshal(fin.Payload, &p); err != nil {
			b.Fatal(err)
		}
		mu.Lock()
		got := fmt.Sprintf("%s %s, %d replies, %d tool results", fin.RunID, p.Reason, replies, results)
		mu.Unlock()
		if want := fmt.Sprintf("%s %s, %d replies, %d tool results", sent.RunID, event.ReasonCompleted, steps, steps-1); got != want || fake.Pending() != 0 {
			b.Fatalf("run ended as %q (%s), want %q; %d scripted turns unused", got, p.Error, want, fake.Pending())
		}
		n++
		b.StartTimer()
	}
	return b.Elapsed() / time.Duration(n)
}

// bareArm runs the same turn as a loop over Ollama's client that keeps the
// history in memory and logs nothing, and returns the mean time per turn.
func bareArm(b *testing.B, fake *ollamatest.Server, delay time.Duration) time.Duration {
	u, err := url.Parse(fake.URL())
	if err != nil {
		b.Fatal(err)
	}
	client := api.NewClient(u, http.DefaultClient)
	t := readNote{}
	decl, err := apiTool(t.Spec())
	if err != nil {
		b.Fatal(err)
	}

	ctx := b.Context()
	n := 0
	for b.Loop() {
		b.StopTimer()
		fake.Script(script(delay)...)
		b.StartTimer()

		calls, err := bareLoop(ctx, client, []api.Tool{decl}, t)

		b.StopTimer()
		if err != nil {
			b.Fatal(err)
		}
		if calls != steps || fake.Pending() != 0 {
			b.Fatalf("%d model calls, want %d; %d scripted turns unused", calls, steps, fake.Pending())
		}
		n++
		b.StartTimer()
	}
	return b.Elapsed() / time.Duration(n)
}

// bareLoop is the agent loop without Quire: send the growing history with
// the tool declared, collect the streamed reply and its tool calls, run each
// call in-process, append the results, and stop at a reply without calls.
// It sends what Quire's Ollama adapter sends: streaming, truncate:false and
// num_ctx. It returns the number of model calls.
func bareLoop(ctx context.Context, client *api.Client, decls []api.Tool, t tool.Tool) (int, error) {
	stream, truncate := true, false
	msgs := []api.Message{{Role: "user", Content: question}}
	for calls := 1; calls <= runtime.DefaultLimits.MaxSteps; calls++ {
		req := &api.ChatRequest{Model: testkit.Model, Messages: msgs, Stream: &stream, Truncate: &truncate,
			Tools: decls, Options: map[string]any{"num_ctx": numCtx}}
		reply := api.Message{Role: "assistant"}
		var content, thinking strings.Builder
		done := false
		err := client.Chat(ctx, req, func(r api.ChatResponse) error {
			content.WriteString(r.Message.Content)
			thinking.WriteString(r.Message.Thinking)
			reply.ToolCalls = append(reply.ToolCalls, r.Message.ToolCalls...)
			done = done || r.Done
			return nil
		})
		if err != nil {
			return calls, err
		}
		if !done {
			return calls, fmt.Errorf("model call %d ended without its final chunk", calls)
		}
		reply.Content, reply.Thinking = content.String(), thinking.String()
		msgs = append(msgs, reply)
		if len(reply.ToolCalls) == 0 {
			return calls, nil
		}
		for _, tc := range reply.ToolCalls {
			if tc.Function.Name != t.Spec().Name {
				return calls, fmt.Errorf("the model called an unknown tool %q", tc.Function.Name)
			}
			res, err := t.Run(ctx, tool.Call{ID: tc.ID, Name: tc.Function.Name, Arguments: json.RawMessage(tc.Function.Arguments.String())})
			if err != nil {
				res = tool.Result{Status: tool.Failure, Content: err.Error()}
			}
			msgs = append(msgs, api.Message{Role: "tool", Content: res.Content, ToolName: tc.Function.Name, ToolCallID: tc.ID})
		}
	}
	return runtime.DefaultLimits.MaxSteps, fmt.Errorf("no final answer after %d model calls", runtime.DefaultLimits.MaxSteps)
}

// script is the model's side of the turn: steps-1 replies that say a few
// words and read a different note each (so no loop guard trips), then a
// text-only answer. Every reply streams 5 message chunks.
func script(delay time.Duration) []ollamatest.Turn {
	turns := make([]ollamatest.Turn, 0, steps)
	for i := range steps - 1 {
		turns = append(turns, ollamatest.Turn{
			Content:   []string{"Let ", "me ", "read ", fmt.Sprintf("note %d. ", i)},
			ToolCalls: []ollamatest.ToolCall{{Name: "read_note", Arguments: json.RawMessage(fmt.Sprintf(`{"path":"notes/%02d.md"}`, i))}},
			Delay:     delay,
		})
	}
	return append(turns, ollamatest.Turn{Content: []string{"Your ", "notes ", "are ", "all ", "about groceries."}, Delay: delay})
}

// readNote is a cheap read-only tool: it answers from memory, so neither arm
// spends its time in the tool.
type readNote struct{}

func (readNote) Spec() tool.Spec {
	return tool.Spec{
		Name:        "read_note",
		Description: "Read one of the user's notes.",
		Parameters: map[string]any{
			"type":       "object",
			"properties": map[string]any{"path": map[string]any{"type": "string", "description": "the note's path"}},
			"required":   []string{"path"},
		},
		Effects:     tool.ReadFs,
		Idempotency: tool.Safe,
		Timeout:     5 * time.Second,
	}
}

func (readNote) Run(_ context.Context, call tool.Call) (tool.Result, error) {
	var args struct {
		Path string `json:"path"`
	}
	if err := json.Unmarshal(call.Arguments, &args); err != nil || args.Path == "" {
		return tool.Result{Status: tool.Failure, Content: "read_note needs a path"}, nil
	}
	return tool.Result{Status: tool.Success, Content: "# " + args.Path + "\nMilk, eggs, bread, coffee."}, nil
}

type tools []tool.Tool

func (t tools) Tools() []tool.Tool { return t }

// apiTool declares a tool to Ollama the way Quire's adapter does: the JSON
// Schema read into Ollama's types by a JSON round trip.
func apiTool(spec tool.Spec) (api.Tool, error) {
	params := api.ToolFunctionParameters{Type: "object", Properties: api.NewToolPropertiesMap()}
	raw, err := json.Marshal(spec.Parameters)
	if err == nil {
		err = json.Unmarshal(raw, &params)
	}
	if err != nil {
		return api.Tool{}, err
	}
	return api.Tool{Type: "function", Function: api.ToolFunction{Name: spec.Name, Description: spec.Description, Parameters: params}}, nil
}
