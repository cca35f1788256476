package main

import (
	"fmt"
	"math/rand/v2"
	"time"
)

var allStates = []string{"TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_COMPLETED", "TASK_STATE_FAILED",
	"TASK_STATE_CANCELED", "TASK_STATE_INPUT_REQUIRED", "TASK_STATE_REJECTED", "TASK_STATE_AUTH_REQUIRED"}

var projects = []string{"procurement", "travel", "hiring", "vendor-onboarding", "capex", "offsite", "licenses", "security-review",
	"marketing", "facilities", "legal", "training", "hardware", "cloud-budget", "contractors", "audit", "events", "renewals"}

// preload gives every principal its history of approval requests,
// deterministically from seed, and returns the newest stamp. Requests
// filed by the nightly batch share one microsecond, so there are ties.
func (d *db) preload(principals []string, n int, seed uint64) time.Time {
	var newest time.Time
	for pi, p := range principals {
		rnd := rand.New(rand.NewPCG(seed, uint64(pi)+1))
		count := n / (pi + 1)
		nctx := count/50 + 3
		perCtx := map[string]int{}
		at := time.Date(2026, 7, 6, 7, 0, 0, 0, time.UTC).Add(time.Duration(rnd.IntN(90_000_000)) * time.Microsecond)
		for i := 0; i < count; i++ {
			if rnd.IntN(7) != 0 {
				at = at.Add(time.Duration(rnd.Int64N(int64(40 * time.Minute)))).Truncate(time.Microsecond).Add(time.Microsecond)
			}
			var ctx string
			for {
				ctx = fmt.Sprintf("%s-%d", projects[rnd.IntN(min(nctx, len(projects)))], rnd.IntN(nctx/len(projects)+1))
				if i%97 == 0 {
					ctx = "all-hands"
				}
				if perCtx[ctx] < 95 {
					break
				}
			}
			perCtx[ctx]++
			st := allStates[rnd.IntN(len(allStates))]
			if i < len(allStates) {
				st = allStates[i]
			}
			r := &record{ID: d.newID("tsk_"), Owner: p, Context: ctx, State: st, Stamp: at}
			for k := 0; k < rnd.IntN(7); k++ {
				role := []string{"ROLE_USER", "ROLE_AGENT"}[k%2]
				r.History = append(r.History, message(fmt.Sprintf("msg_%s_%d", r.ID[4:], k), role, ctx, r.ID,
					fmt.Sprintf("request %d, message %d", i, k)))
			}
			if st == "TASK_STATE_COMPLETED" || rnd.IntN(12) == 0 {
				for k := 0; k <= rnd.IntN(2); k++ {
					r.Artifacts = append(r.Artifacts, artifact(fmt.Sprintf("receipt_%s_%d", r.ID[4:], k), fmt.Sprintf("receipt %d for request %d", k, i)))
				}
			}
			d.put(r)
			if at.After(newest) {
				newest = at
			}
		}
	}
	return newest
}

func message(id, role, ctx, task, text string) map[string]any {
	return map[string]any{"messageId": id, "role": role, "contextId": ctx, "taskId": task,
		"parts": []any{map[string]any{"text": text}}}
}

func artifact(id, text string) map[string]any {
	return map[string]any{"artifactId": id, "name": "receipt", "parts": []any{map[string]any{"text": text}}}
}
