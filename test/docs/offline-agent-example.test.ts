// The example of README "Testing an agent offline" (examples/offline-agent/), run exactly as
// a user runs it: its test file starts `tai serve` (the compiled dist/, built before the
// suite) with the example's modules and runs the agent over the GraphQL API.
import "../../examples/offline-agent/test/weather.test.ts";
