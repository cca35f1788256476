// Package loadgen measures A2A ListTasks latency per page depth with the
// vegeta/v12 library, corrects it for coordinated omission with an HDR
// histogram, and turns it into a depth-cost verdict with CI thresholds.
//
// A run has four steps, each its own concept in this package:
//
//  1. Harvest (Harvester): walk the target's list as one principal and keep,
//     for each wanted page depth, the exact request that fetches that page,
//     built with a2aclient.Client.Build. Depth 1 carries no pageToken; depth d
//     carries the nextPageToken of page d-1. Tokens are re-harvested before
//     they expire.
//  2. Attack (Runner, Schedule): by default one open-loop vegeta attack
//     that interleaves every depth bucket in seeded shuffled rounds
//     (Interleaved), or one attack per bucket in turn (Sequential); each
//     result is tagged with its depth in the URL fragment ("#depth=N"),
//     which never goes on the wire.
//  3. Measure (Aggregator): per depth, latency from the intended send time
//     (start + (seq+1)·interval) into an HDR histogram, beside vegeta's own
//     uncorrected Metrics; error kinds, dropped and late sends.
//  4. Verdict (Evaluate): the depth cost as the ratio of medians
//     median(deepest)/median(first) with a bootstrap confidence interval
//     (CompareDepths), judged pass, fail or inconclusive; thresholds that
//     fail on a breach or when they have no samples; the p99 ratio and the
//     slope, reported.
//
// Results are plain vegeta results (gob by default), so files from several
// generators merge (MergeFiles) into one Summary with the thresholds
// evaluated once, on the merged data. Everything a merge needs to recompute
// intended send times travels in the attack name; see AttackName.
//
// loadgen judges servers over the wire only: it never imports the
// reference server.
package loadgen
