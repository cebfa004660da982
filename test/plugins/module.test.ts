import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { gqlClient } from "../helpers/gql.ts";
import { as, testRuntime } from "../helpers/runtime.ts";
import { useScript } from "../agent/support.ts";

const SECRET = "vault-secret-5h4g3f2d1s";
const dir = mkdtempSync(join(tmpdir(), "tai42-vault-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("should let a module register a config-provider plugin from the public package, whose !ENV values never reach an agent's stream frames, thread or logs", async () => {
  const file = join(dir, "vault.json");
  writeFileSync(file, JSON.stringify({ VAULT_TOKEN: SECRET }));
  process.env.VAULT_PLUGIN_FILE = file;
  await import("./modules/vault-plugin.ts");
  const rt = await testRuntime();
  try {
    const gql = gqlClient(rt);
    const admin = await rt.keys.create("admin", "ADMIN");
    const created = await gql(
      `mutation { createPreset(input: { name: "vault_prod", description: "prod", baseTool: "vault_call", fixedKwargs: { token: "!ENV VAULT_TOKEN" } }) { name } }`,
      {},
      admin,
    );
    expect(created.errors).toBeUndefined();
    // The model repeats what the tool returned: the run must still not show the value.
    useScript(rt.agents, "s", [
      { toolCalls: [{ toolName: "vault_prod", input: {} }] },
      { text: `The header was Bearer ${SECRET}.` },
    ]);
    const done = await rt.agents.run({
      options: { userMessage: "call it", toolNames: ["vault_prod"], llmProvider: "s" },
      caller: as("ADMIN"),
    });
    expect(done.final).toMatchObject({ type: "message_final", text: "The header was Bearer [redacted]." });
    const tool = await rt.db.run.findFirst({ where: { tool: "vault_prod" } });
    expect(tool).toMatchObject({ status: "SUCCEEDED" });
    const served = await gql(
      `{ agentRun(id: "${done.runId}") { final { ... on MessageFinal { text } } } thread(id: "${done.threadId}") { messages { content } } }`,
      {},
      admin,
    );
    expect(served.errors).toBeUndefined();
    // What agentStream serves on a join: the run's log replayed from seq 0.
    const replay: unknown[] = [];
    for await (const e of rt.agents.events(done.runId, 0, new AbortController().signal)) replay.push(e);
    const everywhere = {
      responses: served.text,
      frames: JSON.stringify(replay),
      "agent events": JSON.stringify(await rt.db.agentEvent.findMany()),
      thread: JSON.stringify(await rt.db.threadMessage.findMany()),
      "tool runs": JSON.stringify([await rt.db.run.findMany(), await rt.db.runEvent.findMany()]),
      "log lines": rt.logLines.join("\n"),
    };
    for (const [where, text] of Object.entries(everywhere)) expect(text, where).not.toContain(SECRET);
    expect(everywhere["agent events"]).toContain("[redacted]");
  } finally {
    delete process.env.VAULT_PLUGIN_FILE;
    await rt.dispose();
  }
});
