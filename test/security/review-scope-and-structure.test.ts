import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { toolResult } from "../../src/tools/result.ts";
import { databaseText } from "../helpers/database-text.ts";
import { gqlClient } from "../helpers/gql.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";

/**
 * The review of issue 23's change, as an attacker: a caller's redacted word must not rewrite
 * the schemas every client validates against; a `writeOnly` value must stay out of whatever
 * the body does with it (a log line, a child run, the store); a short configured secret must
 * not scrub ordinary words out of every text; what a body writes into a content block's
 * MIME type or a store key is a value; an issue's path is structure (docs/security-model.md §3).
 */
const PASSWORD = "review-password-5c4b3a29";
const CONFIGURED = "fixedKwargs";

describe("scrubbing after the review of issue 23", () => {
  let rt: TestRuntime;
  let gql: ReturnType<typeof gqlClient>;
  let admin: string;

  beforeEach(async () => {
    process.env.EXT_REVIEW_SHORT = "postgres";
    process.env.EXT_REVIEW_PATH = CONFIGURED;
    const app = new App();
    app.tool({ name: "pin", description: "Redacts its pin.", input: z.object({ pin: z.string() }) }, ({ pin }, ctx) => {
      ctx.redact(pin);
      return { ok: true };
    });
    app.tool(
      {
        name: "dated",
        description: "Takes a time.",
        input: z.object({ at: z.string().datetime(), mode: z.enum(["fast", "careful"]) }),
      },
      () => ({ ok: true }),
    );
    app.tool({ name: "say", description: "Answers its text.", input: z.object({ text: z.string() }) }, ({ text }) => ({
      text,
    }));
    app.tool(
      {
        name: "login",
        description: "Uses a declared secret everywhere it can.",
        input: z.object({ password: z.string().meta({ writeOnly: true }) }),
      },
      async ({ password }, ctx) => {
        ctx.log.info(`logging in with ${password}`, { password });
        await ctx.runTool("say", { text: `child got ${password}` });
        await ctx.store.set(`session:${password}`, { password }, 60);
        return toolResult({ content: [{ type: "text", text: "done", mimeType: `text/plain; pw=${password}` }] });
      },
    );
    rt = await testRuntime({ app });
    gql = gqlClient(rt);
    admin = await rt.keys.create("admin", "ADMIN");
  });
  afterEach(async () => {
    delete process.env.EXT_REVIEW_SHORT;
    delete process.env.EXT_REVIEW_PATH;
    await rt.dispose();
  });

  it("should serve every tool's input schema whole after a caller redacted schema words", async () => {
    for (const pin of ["date-time", "careful", "object", "string"])
      await rt.dispatcher.run({ tool: "pin", input: { pin }, caller: as("USER"), door: "graphql" });
    const tools = await gql(`{ tools { name inputSchema } }`);
    const dated = (tools.data!.tools as { name: string; inputSchema: { properties: Record<string, unknown> } }[]).find(
      (t) => t.name === "dated",
    )!;
    expect(dated.inputSchema.properties.at).toMatchObject({ type: "string", format: "date-time" });
    expect(dated.inputSchema.properties.mode).toMatchObject({ enum: ["fast", "careful"] });
    // A word shorter than 8 characters scrubs its own run only: another run's output keeps it.
    const said = await rt.dispatcher.run({
      tool: "say",
      input: { text: "an object of string" },
      caller: as("USER"),
      door: "graphql",
    });
    expect(said.data).toEqual({ text: "an object of string" });
  });

  it("should keep a writeOnly value out of the body's log lines, its child run, the store and the content block's MIME type", async () => {
    const run = await rt.dispatcher.run({
      tool: "login",
      input: { password: PASSWORD },
      caller: as("USER"),
      door: "graphql",
    });
    expect(run.status).toBe("SUCCEEDED");
    expect(run.content[0]).toMatchObject({ type: "text", text: "done" });
    const [child] = await rt.runs.children(run.id, 10);
    expect(child.status).toBe("SUCCEEDED");
    expect(JSON.stringify(child)).not.toContain(PASSWORD);
    expect(rt.logLines.join("\n")).toContain("logging in with [redacted]");
    expect(rt.logLines.join("\n")).not.toContain(PASSWORD);
    expect(await databaseText(rt.config.databaseUrl)).not.toContain(PASSWORD);
  });

  it("should not scrub the ordinary words inside a short configured secret", async () => {
    const made = await gql(
      `mutation { createPreset(input: { name: "say_db", description: "x", baseTool: "say", fixedKwargs: { text: "!ENV EXT_REVIEW_SHORT" } }) { name } }`,
      {},
      admin,
    );
    expect(made.errors).toBeUndefined();
    const said = await rt.dispatcher.run({
      tool: "say",
      input: { text: "send a POST to /posts, see the Post docs; pw postgres" },
      caller: as("USER"),
      door: "graphql",
    });
    expect(said.data).toEqual({ text: "send a POST to /posts, see the Post docs; pw [redacted]" });
  });

  it("should keep an issue's path whole when a configured secret equals a field name", async () => {
    const learned = await gql(
      `mutation { createPreset(input: { name: "say_path", description: "x", baseTool: "say", fixedKwargs: { text: "!ENV EXT_REVIEW_PATH" } }) { name } }`,
      {},
      admin,
    );
    expect(learned.errors).toBeUndefined();
    const refused = await gql(
      `mutation { createPreset(input: { name: "say_bad", description: "x", baseTool: "say", fixedKwargs: { nope: 1 } }) { name } }`,
      {},
      admin,
    );
    const issues = refused.errors![0].extensions!.issues!;
    expect(issues.map((i) => i.path).join(" ")).toContain(CONFIGURED);
  });
});
