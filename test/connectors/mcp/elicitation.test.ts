import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mcpKind } from "../../../src/connectors/mcp/mcp-kind.ts";
import type { McpConnection } from "../../../src/connectors/mcp/mcp-connection.ts";
import type { ParkedCallState } from "../../../src/connectors/mcp/elicitation-relay.ts";
import type { UpstreamTool } from "../../../src/connectors/connector-kind.ts";
import { expiringStore, type ExpiringStore } from "../../../src/db/expiring-store.ts";
import { Bus } from "../../../src/events/bus.ts";
import { ToolError } from "../../../src/errors.ts";
import { isPark, type Park } from "../../../src/interactions/park.ts";
import { normalizeResult } from "../../../src/tools/result.ts";
import { until } from "../../graphql/support.ts";
import { testRuntime, type TestRuntime } from "../../helpers/runtime.ts";
import { everythingStdio, mcpEnv, toolNamed, upstreamCall } from "./support.ts";

let rt: TestRuntime;
let store: ExpiringStore;
const open: McpConnection[] = [];
const connect = async (instanceId: string, bus: Bus, extra = {}): Promise<McpConnection> => {
  const { env } = mcpEnv(everythingStdio(extra), { store, bus, instanceId });
  const c = (await mcpKind.connect(env)) as McpConnection;
  open.push(c);
  return c;
};
let ask: UpstreamTool;

beforeAll(async () => {
  rt = await testRuntime();
  store = expiringStore(rt.db);
  const probe = await connect("probe", rt.bus);
  ask = toolNamed((await probe.list()).tools, "trigger-elicitation-request");
  await probe.close();
}, 60_000);

afterAll(async () => {
  await Promise.all(open.map((c) => c.close()));
  await rt?.dispose();
});

/** Calls the asking tool and expects a park on its question. */
async function parked(conn: McpConnection): Promise<Park & { state: ParkedCallState }> {
  const out = await conn.call(ask, {}, upstreamCall(store));
  expect(isPark(out)).toBe(true);
  return out as Park & { state: ParkedCallState };
}

const answered = (out: unknown) =>
  normalizeResult("up_ask", out)
    .content.map((b) => b.text)
    .join("\n");

describe("an MCP elicitation parks the run", () => {
  it("parks on the upstream's question with its schema as the answer format, the request left pending", async () => {
    const a = await connect("instance-a", rt.bus);
    const p = await parked(a);
    expect(p.interactions).toEqual([
      {
        question: "Please provide inputs for the following fields:",
        answerFormat: expect.objectContaining({ type: "object", required: ["name"] }),
        to: "user",
        expiresInSeconds: 600,
      },
    ]);
    expect(p.state.instanceId).toBe("instance-a");
    expect(a.pending.get(p.state.pendingId)?.parkedOn).toBe(p.state.elicitationId);
  });

  it("resumes on the holding instance: the answer is accepted upstream and the call's result returned", async () => {
    const a = await connect("instance-a", rt.bus);
    const p = await parked(a);
    const out = await a.resume!(ask, p.state, { i1: { name: "Ada Lovelace", check: true } }, upstreamCall(store));
    expect(answered(out)).toMatch(/- Name: Ada Lovelace[\s\S]*- Agreed to terms: true/);
    expect(a.pending.size).toBe(0);
  });

  it("resumes on another instance sharing the bus and store: the answer is relayed to the holder", async () => {
    const a = await connect("instance-a", rt.bus);
    const b = await connect("instance-b", rt.bus);
    const p = await parked(a);
    const out = await b.resume!(ask, p.state, { i1: { name: "Grace Hopper" } }, upstreamCall(store));
    expect(answered(out)).toMatch(/- Name: Grace Hopper/);
    expect(a.pending.size).toBe(0);
    expect(b.pending.size).toBe(0);
  });

  it("resumes on another instance whose bus never reaches the holder: the store alone carries the answer and the outcome", async () => {
    const a = await connect("instance-a", new Bus());
    const b = await connect("instance-b", new Bus());
    const p = await parked(a);
    const out = await b.resume!(ask, p.state, { i1: { name: "Katherine Johnson" } }, upstreamCall(store));
    expect(answered(out)).toMatch(/- Name: Katherine Johnson/);
  });

  it("fails the resume UNAVAILABLE after a bounded wait when the holding instance is gone", async () => {
    const a = await connect("instance-a", rt.bus);
    const b = await connect("instance-b", rt.bus);
    const p = await parked(a);
    await a.close();
    const started = Date.now();
    const err = await b.resume!(ask, p.state, { i1: { name: "nobody" } }, upstreamCall(store)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ToolError);
    expect((err as ToolError).kind).toBe("UNAVAILABLE");
    expect((err as ToolError).message).toMatch(/instance-a.*gone/);
    expect(Date.now() - started).toBeLessThan(15_000);
  }, 30_000);

  it("fails a resume on the holding instance UNAVAILABLE once its connection was reopened (the request died with it)", async () => {
    const a = await connect("instance-a", rt.bus);
    const p = await parked(a);
    await a.close();
    const again = await connect("instance-a", rt.bus);
    const err = await again.resume!(ask, p.state, { i1: { name: "late" } }, upstreamCall(store)).catch(
      (e: unknown) => e,
    );
    expect((err as ToolError).kind).toBe("UNAVAILABLE");
  });

  it("cancels a question nobody answered within elicitationTimeoutSeconds and forgets the call", async () => {
    const a = await connect("instance-a", rt.bus, { elicitationTimeoutSeconds: 1 });
    const p = await parked(a);
    expect(p.interactions?.[0]?.expiresInSeconds).toBe(1);
    await until("the parked call is forgotten", () => a.pending.size === 0, 5000);
    const err = await a.resume!(ask, p.state, { i1: { name: "too late" } }, upstreamCall(store)).catch(
      (e: unknown) => e,
    );
    expect((err as ToolError).kind).toBe("UNAVAILABLE");
  });

  it("does not advertise elicitation when the instance cannot park, so the server offers no asking tool", async () => {
    const { env } = mcpEnv(everythingStdio(), { store, bus: rt.bus, canPark: false });
    const c = (await mcpKind.connect(env)) as McpConnection;
    open.push(c);
    const { tools } = await c.list();
    expect(tools.map((t) => t.name)).not.toContain("trigger-elicitation-request");
    expect(tools.every((t) => t.pauses === false)).toBe(true);
  });
});
