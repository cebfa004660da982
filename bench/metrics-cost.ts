/**
 * What counting a dispatch costs: the chokepoint's metrics calls (one counter and one
 * histogram with labels, and the attempts counter) in a loop, per call. Run with
 * `npx tsx bench/metrics-cost.ts`; compare with a dispatch (about a millisecond, see
 * docs/performance.md). A measurement, not a test: the numbers are printed, not checked.
 */
import { Metrics } from "../src/ops/metrics.ts";
import { newRun } from "../src/dispatch/run-record.ts";

const metrics = new Metrics();
metrics.bind({
  kind: () => "registered",
  inFlight: () => ({ tool: 0, agent: 0 }),
  subscribers: () => 0,
  pool: () => null,
  heartbeatAge: () => 0,
  redisConnected: () => null,
  surfaceVersion: () => 0,
  surfaceReloads: () => 0,
});
const run = {
  ...newRun({ tool: "echo", input: {}, door: "graphql", callerRole: "USER", callerKey: null }),
  status: "SUCCEEDED" as const,
};
const calls = 500_000;
for (let round = 1; round <= 3; round++) {
  const started = performance.now();
  for (let i = 0; i < calls; i++) {
    metrics.dispatched(run, "graphql", 0.0012);
    metrics.attempted("echo", 1);
  }
  console.log(`round ${round}: ${(((performance.now() - started) * 1e6) / calls).toFixed(0)} ns per dispatch counted`);
}
