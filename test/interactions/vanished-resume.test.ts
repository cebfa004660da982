import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { park } from "../../src/interactions/park.ts";
import { testDbKind } from "../helpers/databases.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";

// A parked run resumes under its tool's entry; when the instance that takes the answer no
// longer has that tool (a deploy removed it), the run ends NOT_FOUND instead of resuming
// under an entry that is not there (src/dispatch/executed-entry.ts, `vanished`).
describe("a parked run whose tool left the surface", () => {
  const runtimes: TestRuntime[] = [];
  afterEach(async () => {
    for (const rt of runtimes.reverse()) await rt.dispose();
    runtimes.length = 0;
  });

  it("should end FAILED with NOT_FOUND when answered on an instance without its tool, and say why", async () => {
    const app = new App();
    app.tool({ name: "approve", description: "Ask for approval.", input: z.object({}), pauses: true }, () =>
      park({ interactions: [{ question: "ok?", answerFormat: { type: "boolean" } }] }),
    );
    const before = await testRuntime({ app });
    runtimes.push(before);
    const after = await testRuntime({ databaseUrl: before.config.databaseUrl, kind: testDbKind() });
    runtimes.push(after);
    const caller = as("USER");
    const parked = await before.dispatcher.run({ tool: "approve", input: {}, caller, door: "graphql" });
    expect(parked.status).toBe("PARKED");
    const [interaction] = await after.interactions.forRun(parked.id);

    const ended = await after.interactions.answer(interaction.id, true, caller);

    expect(ended).toMatchObject({ id: parked.id, status: "FAILED", errorKind: "NOT_FOUND" });
    expect(ended.errorMessage).toContain('"approve" is no longer on the surface');
    expect((await before.runs.get(parked.id))?.status).toBe("FAILED");
  });
});
