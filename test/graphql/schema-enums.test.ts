import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callerOf } from "../../src/auth/roles.ts";
import { gqlClient } from "../helpers/gql.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { useScript } from "../agent/support.ts";

// Closed sets are enums (docs/api-changes.md), serialized exactly as the strings the API
// served before, so JSON responses did not change.

describe("closed sets as enums", () => {
  let rt: TestRuntime;
  let gql: ReturnType<typeof gqlClient>;
  let admin: string;

  /** The named type of a field, through introspection. */
  const typeOf = async (type: string, field: string) => {
    const r = await gql<{
      __type: {
        fields: {
          name: string;
          type: { kind: string; name: string | null; ofType: { kind: string; name: string } | null };
        }[];
      };
    }>(`query($t: String!) { __type(name: $t) { fields { name type { kind name ofType { kind name } } } } }`, {
      t: type,
    });
    const t = r.data!.__type.fields.find((f) => f.name === field)!.type;
    return t.kind === "NON_NULL" ? t.ofType! : { kind: t.kind, name: t.name! };
  };

  beforeAll(async () => {
    rt = await testRuntime();
    gql = gqlClient(rt);
    admin = await rt.keys.create("enums-admin", "ADMIN");
  });
  afterAll(async () => {
    await rt?.dispose();
  });

  it("should type door, callerRole, interaction status and recipient, thread message role and agent run status as enums", async () => {
    expect(await typeOf("ToolRun", "door")).toEqual({ kind: "ENUM", name: "Door" });
    expect(await typeOf("ToolRun", "callerRole")).toEqual({ kind: "ENUM", name: "Role" });
    expect(await typeOf("Interaction", "status")).toEqual({ kind: "ENUM", name: "InteractionStatus" });
    expect(await typeOf("Interaction", "to")).toEqual({ kind: "ENUM", name: "InteractionRecipient" });
    expect(await typeOf("ThreadMessage", "role")).toEqual({ kind: "ENUM", name: "ThreadMessageRole" });
    expect(await typeOf("AgentRun", "status")).toEqual({ kind: "ENUM", name: "AgentRunStatus" });
    expect(await typeOf("SuspendedFinal", "expiryAt")).toEqual({ kind: "SCALAR", name: "DateTime" });
    expect(await typeOf("Span", "durationMs")).toEqual({ kind: "SCALAR", name: "Float" });
  });

  it("should serve a run's door in lower case and an anonymous caller's role as its configured role", async () => {
    const anonymous = await gql<{ dispatch: { door: string; callerRole: string } }>(
      `mutation { dispatch(input: { tool: "echo", input: { text: "hi" } }) { door callerRole } }`,
    );
    expect(anonymous.data!.dispatch).toEqual({ door: "graphql", callerRole: rt.config.anonymousRole });
    const viaCli = await rt.dispatcher.run({
      tool: "echo",
      input: { text: "hi" },
      caller: callerOf("ADMIN"),
      door: "cli",
    });
    const read = await gql<{ run: { door: string; callerRole: string } }>(
      `query($id: ID!) { run(id: $id) { door callerRole } }`,
      { id: viaCli.id },
      admin,
    );
    expect(read.data!.run).toEqual({ door: "cli", callerRole: "ADMIN" });
  });

  it("should serve thread message roles in lower case and agent run statuses as before", async () => {
    useScript(rt.agents, "hello", () => ({ text: "Hello." }));
    const ran = await gql<{ runAgent: { runId: string; threadId: string } }>(
      `mutation { runAgent(input: { userMessage: "hi", llmProvider: "hello" }) { runId threadId } }`,
    );
    expect(ran.errors).toBeUndefined();
    const thread = await gql<{ thread: { messages: { role: string }[] } }>(
      `query($id: ID!) { thread(id: $id) { messages { role } } }`,
      { id: ran.data!.runAgent.threadId },
    );
    expect(thread.data!.thread.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    const run = await gql<{ agentRun: { status: string } }>(`query($id: ID!) { agentRun(id: $id) { status } }`, {
      id: ran.data!.runAgent.runId,
    });
    expect(run.data!.agentRun.status).toBe("SUCCEEDED");
  });

  it("should serve a closed span's durationMs as a number, and null while it is open", async () => {
    const put = await gql(
      `mutation { putManifest(input: { name: "traced", document: { extensions: { echo: ["monitor"] } } }) { name } }`,
      {},
      admin,
    );
    expect(put.errors).toBeUndefined();
    expect((await gql(`mutation { activateManifest(name: "traced") { name } }`, {}, admin)).errors).toBeUndefined();
    const run = await gql<{ dispatch: { id: string } }>(
      `mutation { dispatch(input: { tool: "echo_monitor", input: { text: "traced" } }) { id } }`,
      {},
      admin,
    );
    const spans = await gql<{ recentSpans: { runId: string; durationMs: number | null; finishedAt: string | null }[] }>(
      `{ recentSpans(first: 1) { runId durationMs finishedAt } }`,
      {},
      admin,
    );
    const [span] = spans.data!.recentSpans;
    expect(span.runId).toBe(run.data!.dispatch.id);
    expect(typeof span.durationMs).toBe("number");
    expect(span.durationMs).toBeGreaterThanOrEqual(0);
    const stored = await rt.spans.list(undefined, 1);
    expect(span.durationMs).toBe(stored[0].attributes.durationMs);
    const open = await rt.spans.open("echo_monitor", run.data!.dispatch.id, {});
    const again = await gql<{ recentSpans: { durationMs: number | null }[] }>(
      `{ recentSpans(first: 1) { durationMs } }`,
      {},
      admin,
    );
    expect(open.finishedAt).toBeNull();
    expect(again.data!.recentSpans).toEqual([{ durationMs: null }]);
  });
});
