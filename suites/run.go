package suites

import (
	"context"

	"github.com/pagewalk/pagewalk/scenarios"
	"github.com/pagewalk/pagewalk/scenarios/a2aclient"
)

// RunAll runs every scenario on every binding of t without Ginkgo, in the
// same order and with the same engine as the Ginkgo suite. The kill matrix
// uses it to run the suite against many servers in one process.
func RunAll(ctx context.Context, t *scenarios.Target, j scenarios.Judgement) []*scenarios.Result {
	var out []*scenarios.Result
	for _, s := range scenarios.All() {
		bs := t.Bindings
		if s.CrossBinding {
			bs = []a2aclient.Binding{""}
		}
		for _, b := range bs {
			out = append(out, scenarios.Run(ctx, t, s, b, scenarios.RunOptions{Judgement: j}))
		}
	}
	return out
}
