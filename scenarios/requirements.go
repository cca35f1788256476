package scenarios

import (
	"fmt"
	"sort"
)

// ReqLevel is how strongly the spec states a requirement, in the words of
// the requirement catalogue (catalogue.go).
type ReqLevel string

// The requirement levels. The severity table (ClassFor) turns each into the
// class of a finding that breaks it.
const (
	// LevelMUST: an RFC 2119 MUST, MUST NOT or REQUIRED.
	LevelMUST ReqLevel = "MUST"
	// LevelSHOULD: an RFC 2119 SHOULD or SHOULD NOT.
	LevelSHOULD ReqLevel = "SHOULD"
	// LevelShould: the word "should" in lower case: normative text without
	// an RFC 2119 keyword (RFC 8174).
	LevelShould ReqLevel = "should"
	// LevelMAY: an RFC 2119 MAY: the server's choice.
	LevelMAY ReqLevel = "MAY"
	// LevelProto: a normative proto comment or annotation with no RFC 2119
	// keyword (§1.4 makes the proto authoritative).
	LevelProto ReqLevel = "proto"
	// LevelSpec: a normative sentence of the specification without an RFC
	// 2119 keyword.
	LevelSpec ReqLevel = "spec"
	// LevelExample: only an illustrative example says it.
	LevelExample ReqLevel = "example"
	// LevelADR: an architecture decision record of the spec (ADR-001:
	// ProtoJSON is the normative JSON mapping).
	LevelADR ReqLevel = "ADR"
	// LevelSilent: the spec does not say.
	LevelSilent ReqLevel = "silent"
	// LevelNote: an implementation note, not a rule.
	LevelNote ReqLevel = "note"
	// LevelClient: a rule for clients, which a server cannot break.
	LevelClient ReqLevel = "client"
	// LevelSeed: the seed article's practice where the spec is silent.
	LevelSeed ReqLevel = "seed"
)

// Requirement is one requirement of A2A 1.0 ListTasks, as the catalogue
// states it.
type Requirement struct {
	// ID is stable, e.g. LT-RESP-2.
	ID    string
	Level ReqLevel
	// Written is the level as the catalogue writes it (e.g. "MUST (client)").
	Written string
	// Quote is the spec's words (at most about 30).
	Quote string
	// Section is where the spec says it (a § number, "proto", or "seed").
	Section string
	// Topic is the catalogue section the requirement is listed under.
	Topic string
}

// Ambiguity is a place where the spec is ambiguous or contradicts itself.
type Ambiguity struct {
	ID, Title, Text string
}

var reqIndex = func() map[string]Requirement {
	m := make(map[string]Requirement, len(catalogue))
	for _, r := range catalogue {
		if _, dup := m[r.ID]; dup {
			panic("scenarios: requirement " + r.ID + " listed twice")
		}
		m[r.ID] = r
	}
	return m
}()

var ambIndex = func() map[string]Ambiguity {
	m := make(map[string]Ambiguity, len(ambiguities))
	for _, a := range ambiguities {
		m[a.ID] = a
	}
	return m
}()

// Requirements returns the whole catalogue, in its order.
func Requirements() []Requirement { return append([]Requirement(nil), catalogue...) }

// LookupRequirement returns the requirement with the given ID.
func LookupRequirement(id string) (Requirement, bool) {
	r, ok := reqIndex[id]
	return r, ok
}

// Ambiguities returns the catalogue's ambiguities, A1 first.
func Ambiguities() []Ambiguity { return append([]Ambiguity(nil), ambiguities...) }

// LookupAmbiguity returns the ambiguity with the given ID (e.g. "A8").
func LookupAmbiguity(id string) (Ambiguity, bool) {
	a, ok := ambIndex[id]
	return a, ok
}

// severity is the one severity table: the class of a finding that breaks a
// requirement of each level. docs/verdicts.md explains it.
var severity = map[ReqLevel]Class{
	LevelMUST:    ClassFail,
	LevelSHOULD:  ClassNonStrict,
	LevelShould:  ClassNonStrict,
	LevelProto:   ClassNonStrict,
	LevelSpec:    ClassNonStrict,
	LevelExample: ClassNonStrict,
	LevelADR:     ClassNonStrict,
	LevelSeed:    ClassHardened,
	LevelMAY:     ClassInfo,
	LevelSilent:  ClassInfo,
	LevelNote:    ClassInfo,
	LevelClient:  ClassInfo,
}

// ClassFor returns the class of a finding that breaks requirement id: the
// severity table's entry for its level, at most Non-strict when the finding
// rests on an ambiguity. An unknown id panics: every requirement a case
// names must be in the catalogue (a test checks every case).
func ClassFor(id string, ambiguous bool) Class {
	r, ok := reqIndex[id]
	if !ok {
		panic(fmt.Sprintf("scenarios: requirement %q is not in the catalogue", id))
	}
	c := severity[r.Level]
	if ambiguous && c == ClassFail {
		c = ClassNonStrict
	}
	return c
}

// LevelsByClass lists, for docs/verdicts.md, the levels that map to each
// class, in a stable order.
func LevelsByClass() map[Class][]ReqLevel {
	out := map[Class][]ReqLevel{}
	for l, c := range severity {
		out[c] = append(out[c], l)
	}
	for c := range out {
		sort.Slice(out[c], func(i, j int) bool { return out[c][i] < out[c][j] })
	}
	return out
}
