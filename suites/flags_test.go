package suites

import "flag"

// update makes the tests that compare a run with a golden record rewrite it
// instead (docs/kill-matrix.md, suites/peers/a2ago/expected.yaml): `make
// golden`, or go test ./suites -run NAME -args -update.
var update = flag.Bool("update", false, "rewrite the golden records (kill matrix, peer verdicts) from this run instead of comparing")
