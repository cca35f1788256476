package main

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"time"
)

// seedData fills the store with each principal's pre-existing tasks,
// deterministically from seed: several conversations (one of them, "shared
// support", has the same client-chosen id for every principal), every
// state, histories, artifacts, and runs of tasks stamped in the same
// second (a batch import wrote them together).
func seedData(s *store, seed int64, principals []string, n int) {
	for pi, p := range principals {
		h := fnv.New64a()
		h.Write([]byte(p))
		rng := rand.New(rand.NewPCG(uint64(seed), h.Sum64()))
		count := n * 2 / (pi + 2)
		ctxs := []string{"shared-support"}
		for i := 0; i < count/45+2; i++ {
			ctxs = append(ctxs, s.newID())
		}
		used := map[string]int{}
		ts := time.Date(2026, 5, 4, 6, 0, 0, 0, time.UTC).Add(time.Duration(rng.IntN(3600)) * time.Second)
		for i := 0; i < count; i++ {
			if i == 0 || rng.IntN(100) >= 22 {
				ts = ts.Add(time.Duration(1 + rng.Int64N(int64(50*time.Minute)))).Truncate(precision)
			}
			ctx := ctxs[rng.IntN(len(ctxs))]
			for used[ctx] >= 90 {
				ctx = ctxs[rng.IntN(len(ctxs))]
			}
			used[ctx]++
			state := states[1+rng.IntN(8)]
			if i < 8 {
				state = states[1+i]
			}
			t := &task{id: s.newID(), owner: p, contextID: ctx, state: state, ts: ts}
			for k := 0; k < rng.IntN(12); k++ {
				role := "ROLE_USER"
				if k%2 == 1 {
					role = "ROLE_AGENT"
				}
				t.history = append(t.history, Message{MessageID: fmt.Sprintf("%s-h%d", t.id, k), Role: role, ContextID: ctx, TaskID: t.id,
					Parts: []json.RawMessage{textPart(fmt.Sprintf("note %d of task %d", k, i))}})
			}
			na := 0
			if state == "TASK_STATE_COMPLETED" {
				na = rng.IntN(3) + 1
			} else if rng.IntN(10) == 0 {
				na = 1
			}
			for k := 0; k < na; k++ {
				t.artifacts = append(t.artifacts, Artifact{ArtifactID: s.newID(), Name: fmt.Sprintf("notes-%d.txt", k),
					Parts: []json.RawMessage{textPart(fmt.Sprintf("summary %d of task %d", k, i))}})
			}
			s.add(t)
		}
	}
}
