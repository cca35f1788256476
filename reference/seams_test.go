package reference

import (
	"reflect"
	"testing"
)

// TestZeroOptionServerIsClean proves that New with nothing but a principal
// is the clean reference: every seam is its clean implementation, and
// statusTimestampAfter is inclusive. Every other test in this package that
// uses newTestServer (no faults) then checks the clean behaviour itself.
func TestZeroOptionServerIsClean(t *testing.T) {
	s := mustNew(t, WithPrincipal("a", "b"))
	if !reflect.DeepEqual(s.seams, cleanSeams()) {
		t.Fatalf("the zero-option server's seams are %#v, want the clean ones %#v", s.seams, cleanSeams())
	}
	if s.cfg.afterOp != ">=" {
		t.Errorf("statusTimestampAfter compares with %q, want the proto's >=", s.cfg.afterOp)
	}
	want := map[string]string{
		"codec": "reference.binaryCodec", "pager": "reference.keysetPager", "access": "reference.ownerAccess",
		"params": "reference.strictParams", "rewriter": "reference.plainResponses", "keys": "reference.durableKeys",
		"edge": "reference.strictEdge", "reply": "reference.plainReplies",
	}
	for field, typ := range seamTypes(s.seams) {
		if want[field] != typ {
			t.Errorf("seam %s is %s, want the clean %s", field, typ, want[field])
		}
	}
	if len(want) != reflect.TypeOf(seams{}).NumField() {
		t.Errorf("seams has %d fields; this test knows %d: name the clean implementation of the new seam", reflect.TypeOf(seams{}).NumField(), len(want))
	}
}

// TestNoFaultSeamIsInstalledByDefault fails if the clean seams hold an
// implementation that some fault mode installs, and if a fault mode
// installs nothing (a fault that changes nothing can never be killed).
func TestNoFaultSeamIsInstalledByDefault(t *testing.T) {
	clean := seamTypes(cleanSeams())
	for _, f := range Faults() {
		c := config{seams: cleanSeams(), afterOp: ">="}
		f.install(&c)
		changed := c.afterOp != ">="
		for field, typ := range seamTypes(c.seams) {
			if typ == clean[field] {
				continue
			}
			changed = true
			for cf, ct := range clean {
				if ct == typ {
					t.Errorf("fault %s installs %s, which the clean server uses as its %s seam", f.Name, typ, cf)
				}
			}
		}
		if !changed {
			t.Errorf("fault %s installs nothing: the server it makes is the clean one", f.Name)
		}
	}
}

// seamTypes maps each seam to the type of its implementation.
func seamTypes(sm seams) map[string]string {
	out := map[string]string{}
	v := reflect.ValueOf(sm)
	for i := range v.NumField() {
		out[v.Type().Field(i).Name] = v.Field(i).Elem().Type().String()
	}
	return out
}
