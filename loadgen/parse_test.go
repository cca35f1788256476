package loadgen

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/pagewalk/pagewalk/scenarios/a2aclient"
	vegeta "github.com/tsenart/vegeta/v12/lib"
)

func TestParseRate(t *testing.T) {
	for in, want := range map[string]Rate{
		"50": {50, time.Second}, "50/s": {50, time.Second}, "50/1s": {50, time.Second},
		"50/3s": {50, 3 * time.Second}, "100/500ms": {100, 500 * time.Millisecond}, " 7/m ": {7, time.Minute},
	} {
		got, err := ParseRate(in)
		if err != nil || got != want {
			t.Errorf("ParseRate(%q) = %v, %v; want %v", in, got, err, want)
		}
		if back, err := ParseRate(got.String()); err != nil || back != got {
			t.Errorf("round trip of %v: %v %v", got, back, err)
		}
	}
	for _, bad := range []string{"", "0", "-5", "abc", "5.5", "50/", "50/0s", "50/-1s", "50/x"} {
		if _, err := ParseRate(bad); err == nil {
			t.Errorf("ParseRate(%q) accepted", bad)
		}
	}
	r := Rate{50, 3 * time.Second}
	if r.Interval() != 60*time.Millisecond || r.Expected(10*time.Second) != 166 {
		t.Errorf("50/3s: interval %s expected %d", r.Interval(), r.Expected(10*time.Second))
	}
}

func TestParseDepthsAndBuckets(t *testing.T) {
	spec, err := ParseDepths("1000, 1,10,last,10")
	if err != nil || !reflect.DeepEqual(spec.Depths, []int{1, 10, 1000}) || !spec.Last || spec.String() != "1,10,1000,last" {
		t.Fatalf("spec %+v %v", spec, err)
	}
	for _, bad := range []string{"", "0", "-1", "x", "1,,2,first"} {
		if _, err := ParseDepths(bad); err == nil {
			t.Errorf("ParseDepths(%q) accepted", bad)
		}
	}
	cases := []struct {
		deepest  int
		complete bool
		want     []Bucket
		skipped  []int
	}{
		{50, true, []Bucket{{1, false}, {10, false}, {50, true}}, []int{1000}},
		{1000, true, []Bucket{{1, false}, {10, false}, {1000, true}}, nil}, // last coincides with 1000: one bucket
		{1, true, []Bucket{{1, true}}, []int{10, 1000}},
		{70, false, []Bucket{{1, false}, {10, false}, {70, false}}, []int{1000}}, // capped walk: deepest is not "last"
	}
	for _, c := range cases {
		got, skipped := spec.Buckets(c.deepest, c.complete)
		if !reflect.DeepEqual(got, c.want) || !reflect.DeepEqual(skipped, c.skipped) {
			t.Errorf("Buckets(%d, %v) = %v skipped %v; want %v skipped %v", c.deepest, c.complete, got, skipped, c.want, c.skipped)
		}
	}
	if (Bucket{10000, true}).Label() != "10000 (last)" {
		t.Error("label")
	}
}

func TestDepthTagging(t *testing.T) {
	for in, want := range map[string]string{
		"http://127.0.0.1:9/jsonrpc":                      "http://127.0.0.1:9/jsonrpc#depth=3",
		"http://h/tasks?pageSize=100&pageToken=abc%3D%3D": "http://h/tasks?pageSize=100&pageToken=abc%3D%3D#depth=3",
		"http://h/jsonrpc#depth=9":                        "http://h/jsonrpc#depth=3",
	} {
		got := TagURL(in, 3)
		if got != want {
			t.Errorf("TagURL(%q) = %q, want %q", in, got, want)
		}
		if d, ok := DepthOf(got); !ok || d != 3 {
			t.Errorf("DepthOf(%q) = %d %v", got, d, ok)
		}
		if e := Endpoint(got); strings.ContainsAny(e, "?#") {
			t.Errorf("Endpoint(%q) = %q", got, e)
		}
	}
	for _, bad := range []string{"http://h/x", "http://h/x#d=3", "http://h/x#depth=0", "http://h/x#depth=abc"} {
		if _, ok := DepthOf(bad); ok {
			t.Errorf("DepthOf(%q) accepted", bad)
		}
	}
}

func TestAttackNameRoundTrip(t *testing.T) {
	n := AttackName{Generator: "lg-0.pod_x", Depth: 10000, Last: true, Rate: Rate{50, 3 * time.Second}, Duration: 10 * time.Second,
		Start: time.Unix(0, 1767225600123456789), Binding: "jsonrpc", PageSize: 100}
	s := n.String()
	if s != "pagewalk/1;gen=lg-0.pod_x;depth=10000;last=1;rate=50/3s;dur=10s;start=1767225600123456789;binding=jsonrpc;pageSize=100" {
		t.Fatalf("name %s", s)
	}
	back, err := ParseAttackName(s)
	if err != nil || !reflect.DeepEqual(back, n) {
		t.Fatalf("round trip: %+v %v", back, err)
	}
	if got := n.Intended(0); !got.Equal(n.Start.Add(60 * time.Millisecond)) {
		t.Errorf("Intended(0) = %v", got)
	}
	if got := n.Intended(9); !got.Equal(n.Start.Add(600 * time.Millisecond)) {
		t.Errorf("Intended(9) = %v", got)
	}
	if n.Expected() != 166 {
		t.Errorf("Expected = %d", n.Expected())
	}
	for _, bad := range []string{"", "host-a", "pagewalk/1;gen=a;depth=1", "pagewalk/1;gen=a;depth=0;rate=1;dur=1s;start=1",
		"pagewalk/1;gen=a;depth=1;rate=x;dur=1s;start=1", "pagewalk/2;gen=a;depth=1;rate=1;dur=1s;start=1"} {
		if _, err := ParseAttackName(bad); err == nil {
			t.Errorf("ParseAttackName(%q) accepted", bad)
		}
	}
	if !ValidGenerator(DefaultGenerator()) || ValidGenerator("a;b") || ValidGenerator("a b") || ValidGenerator("") {
		t.Error("ValidGenerator")
	}
}

func TestClassifyAndErrorKind(t *testing.T) {
	cases := []struct {
		binding a2aclient.Binding
		code    uint16
		body    string
		err     string
		kind    string
	}{
		{a2aclient.JSONRPC, 200, `{"jsonrpc":"2.0","id":"pw-1","result":{"tasks":[]}}`, "", ""},
		{a2aclient.JSONRPC, 200, `{"result":{"tasks":[`, "", ""}, // truncated after the decision point
		{a2aclient.JSONRPC, 200, `{"id":{"x":[1,2]},"error":{"code":-32602,"message":"pageToken\n expired"},"jsonrpc":"2.0"}`, "", "jsonrpc -32602"},
		{a2aclient.JSONRPC, 200, `{"jsonrpc":"2.0","id":1}`, "", "jsonrpc malformed"},
		{a2aclient.JSONRPC, 200, `<html>`, "", "jsonrpc malformed"},
		{a2aclient.HTTPJSON, 200, `<html>`, "", ""}, // HTTP+JSON is judged by status
		{a2aclient.HTTPJSON, 400, `{"error":{}}`, "400 Bad Request", "http 400"},
		{a2aclient.JSONRPC, 503, ``, "503 Service Unavailable", "http 503"},
		{a2aclient.JSONRPC, 0, ``, `Post "http://x": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`, "transport: timeout"},
		{a2aclient.JSONRPC, 0, ``, `dial tcp 127.0.0.1:1: connect: connection refused`, "transport: refused"},
	}
	for i, c := range cases {
		res := &vegeta.Result{Code: c.code, Body: []byte(c.body), Error: c.err}
		Classify(res, c.binding)
		if k := ErrorKind(res); k != c.kind {
			t.Errorf("case %d: kind %q (error %q), want %q", i, k, res.Error, c.kind)
		}
	}
	res := &vegeta.Result{Code: 200, Body: []byte(`{"error":{"code":-32001,"message":"a\n  b"}}`)}
	Classify(res, a2aclient.JSONRPC)
	if res.Error != "jsonrpc error -32001: a b" {
		t.Errorf("error %q", res.Error)
	}
}
