package standing_test

import (
	"fmt"
	"testing"
	"time"

	"quire/standing"
)

// BenchmarkDue is one tick's decision over 100 tasks, each daily, weekly or
// a condition, half of them left unfired for three years (a laptop that
// slept that long): the count of missed slots is bounded, so a tick costs
// the same however long Quire was closed.
func BenchmarkDue(b *testing.B) {
	now := at(6, 12, 0).AddDate(3, 0, 0)
	var tasks []standing.Task
	states := map[string]standing.State{}
	for i := range 100 {
		t := daily(fmt.Sprint(i), "18:00")
		switch i % 4 {
		case 1:
			t.Schedule = standing.Schedule{Kind: standing.Weekly, Weekday: "monday", At: "09:00"}
		case 2:
			t.Schedule = standing.Schedule{Kind: standing.Over, More: 10}
		case 3:
			t.Schedule = standing.Schedule{Kind: standing.Lands}
		}
		tasks = append(tasks, t)
		if i%2 == 0 {
			states[t.ID] = standing.State{Last: now.Add(-time.Hour)}
		}
	}
	v := standing.Vault{Count: map[string]int{"inbox": 20}, Landed: map[string]time.Time{"inbox": now.Add(-time.Minute)}}
	b.ReportAllocs()
	for b.Loop() {
		standing.Due(tasks, states, now, v)
	}
}
