package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Task is a stored task, one JSON line per write in the task file.
type Task struct {
	Num       int64             `json:"num"`
	Owner     string            `json:"owner"`
	Context   string            `json:"context"`
	State     string            `json:"state"`
	Micros    int64             `json:"micros"` // status timestamp, Unix microseconds
	History   []json.RawMessage `json:"history,omitempty"`
	Artifacts []json.RawMessage `json:"artifacts,omitempty"`
}

func (t *Task) ID() string { return fmt.Sprintf("tk-%05d", t.Num) }

// fileStore appends every write to tasks.jsonl and serves from memory.
type fileStore struct {
	mu    sync.Mutex
	f     *os.File
	tasks map[int64]*Task
	last  int64
	step  time.Duration
	clock time.Time
}

func openFileStore(dir string, owners []string, n int, seed int64, step time.Duration) (*fileStore, error) {
	path := filepath.Join(dir, "tasks.jsonl")
	s := &fileStore{tasks: map[int64]*Task{}, step: step}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		if err := writeInitial(path, owners, n, seed); err != nil {
			return nil, err
		}
	}
	in, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	var newest int64
	for sc.Scan() {
		t := &Task{}
		if err := json.Unmarshal(sc.Bytes(), t); err != nil {
			in.Close()
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		s.tasks[t.Num] = t
		s.last = max(s.last, t.Num)
		newest = max(newest, t.Micros)
	}
	in.Close()
	s.clock = time.UnixMicro(newest).UTC().Add(time.Hour).Truncate(time.Hour)
	if s.f, err = os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0o600); err != nil {
		return nil, err
	}
	return s, sc.Err()
}

// now returns the time for a write, in microseconds.
func (s *fileStore) now() int64 {
	t := time.Now().UTC()
	if s.step > 0 {
		t = s.clock.Add(s.step)
	}
	if t.Before(s.clock) {
		t = s.clock
	}
	t = t.Truncate(time.Microsecond)
	s.clock = t
	return t.UnixMicro()
}

// save records t (held under s.mu).
func (s *fileStore) save(t *Task) error {
	b, err := json.Marshal(t)
	if err != nil {
		return err
	}
	s.tasks[t.Num] = t
	_, err = s.f.Write(append(b, '\n'))
	return err
}

var topics = []string{"dentist", "taxes", "car-service", "birthday", "renewal", "standup", "invoice", "gym", "garden", "passport", "flights", "insurance"}

var states = []string{"TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_COMPLETED", "TASK_STATE_FAILED",
	"TASK_STATE_CANCELED", "TASK_STATE_INPUT_REQUIRED", "TASK_STATE_REJECTED", "TASK_STATE_AUTH_REQUIRED"}

// writeInitial writes each owner's reminders: several topics, every state,
// and bursts created in the same microsecond by a recurring-reminder job.
func writeInitial(path string, owners []string, n int, seed int64) error {
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(out)
	enc := json.NewEncoder(w)
	num := int64(0)
	for oi, owner := range owners {
		rng := rand.New(rand.NewPCG(uint64(seed), uint64(oi)*7919+1))
		count := n - oi*n/3
		micros := time.Date(2026, 6, 22, 5, 0, 0, 0, time.UTC).UnixMicro() + int64(rng.IntN(3600_000_000))
		per := map[string]int{}
		for i := 0; i < count; {
			burst := 1
			if rng.IntN(5) == 0 {
				burst = 2 + rng.IntN(5)
			}
			micros += 1 + rng.Int64N(2400_000_000)
			for b := 0; b < burst && i < count; b, i = b+1, i+1 {
				num++
				ctx := fmt.Sprintf("%s/%s", owner, topics[rng.IntN(len(topics))])
				if rng.IntN(30) == 0 {
					ctx = "family"
				}
				for per[ctx] >= 90 {
					ctx = fmt.Sprintf("%s/%s-%d", owner, topics[rng.IntN(len(topics))], rng.IntN(4))
				}
				per[ctx]++
				t := &Task{Num: num, Owner: owner, Context: ctx, State: states[rng.IntN(len(states))], Micros: micros}
				if i < len(states) {
					t.State = states[i]
				}
				for k := 0; k < rng.IntN(8); k++ {
					role := "ROLE_USER"
					if k%2 == 1 {
						role = "ROLE_AGENT"
					}
					t.History = append(t.History, message(fmt.Sprintf("%s-m%d", t.ID(), k), role, ctx, t.ID(), fmt.Sprintf("reminder %d, message %d", num, k)))
				}
				if t.State == "TASK_STATE_COMPLETED" || rng.IntN(9) == 0 {
					t.Artifacts = append(t.Artifacts, artifact(t.ID()+"-a0", fmt.Sprintf("reminder %d done", num)))
				}
				if err := enc.Encode(t); err != nil {
					return err
				}
			}
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return out.Close()
}

func message(id, role, ctx, task, text string) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"messageId": id, "role": role, "contextId": ctx, "taskId": task, "parts": []any{map[string]string{"text": text}}})
	return b
}

func artifact(id, text string) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"artifactId": id, "name": "done", "parts": []any{map[string]string{"text": text}}})
	return b
}
