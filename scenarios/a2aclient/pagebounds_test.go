package a2aclient

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestCountArray(t *testing.T) {
	for raw, want := range map[string]int{
		`[]`: 0, ` [ ] `: 0, `[1]`: 1, `[1,2,3]`: 3, `[{"a":[1,2]},"x,y",[3,4]]`: 3,
		`["a\"],[", {"b":"\\"}]`: 2, "[\n{\"id\":\"1\"} ,\n{\"id\":\"2\"}\n]": 2,
	} {
		if n, ok := countArray([]byte(raw)); !ok || n != want {
			t.Errorf("countArray(%s) = %d, %v; want %d", raw, n, ok, want)
		}
	}
	for _, raw := range []string{``, `{}`, `null`, `"[1]"`, `7`} {
		if _, ok := countArray([]byte(raw)); ok {
			t.Errorf("countArray(%s) says it is an array", raw)
		}
	}
}

func TestTooManyTasksAreNotDecoded(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"jsonrpc":"2.0","id":"pw-1","result":{"tasks":[`+strings.Repeat(`{"id":"1"},`, 150)+`{"id":"2"}],"nextPageToken":""}}`)
	}))
	defer srv.Close()
	c := rpcClient(srv.URL, nil)
	c.MaxPageTasks = 150
	p, err := c.ListTasks(context.Background(), ListRequest{})
	var tm *TooManyTasksError
	if !errors.As(err, &tm) || tm.Seen != 151 || tm.Limit != 150 {
		t.Fatalf("err = %v, want *TooManyTasksError{150, 151}", err)
	}
	if len(p.Tasks) != 0 || p.X.Err == "" {
		t.Errorf("the page was decoded (%d tasks) or the exchange has no error", len(p.Tasks))
	}
	c.MaxPageTasks = 151
	if p, err := c.ListTasks(context.Background(), ListRequest{}); err != nil || len(p.Tasks) != 151 {
		t.Fatalf("at the bound: %v, %d tasks", err, len(p.Tasks))
	}
}

// fixedLister serves pages of one reply size forever.
type fixedLister struct{ size int }

func (f *fixedLister) ListTasks(_ context.Context, r ListRequest) (*Page, error) {
	next := r.PageToken + "x"
	return &Page{Response: &Response{X: &Exchange{RespBody: strings.Repeat(" ", f.size)}, Result: Fields{}},
		NextPresent: true, NextPageToken: next}, nil
}

func TestByteBudgetStopsAWalk(t *testing.T) {
	steps := 0
	var last error
	for _, err := range Walk(context.Background(), ByteBudget(&fixedLister{size: 1000}, 10_500), ListRequest{}) {
		steps++
		last = err
	}
	var be *BudgetError
	var stop *StopError
	if !errors.As(last, &stop) || stop.Kind != StopTransport || !errors.As(last, &be) {
		t.Fatalf("walk ended with %v, want a StopTransport with *BudgetError", last)
	}
	if steps != 11 || be.Pages != 11 || be.Seen != 11_000 {
		t.Errorf("stopped at step %d, %+v; want page 11 at 11000 bytes", steps, be)
	}
	if !strings.Contains(be.Error(), "over its 10500 bytes budget") {
		t.Errorf("message %q", be.Error())
	}
}
