import { afterEach, describe, expect, it } from "vitest";
import { freshDatabase } from "../helpers/databases.ts";
import { ADMIN_KEY, post } from "../runlog/support.ts";
import { startCluster, withHaproxyServices, type Cluster } from "./haproxy-cluster.ts";

/**
 * A configuration write answered on one instance is what the next request sees on every instance (docs/deploy.md
 * §"Configuration converges"): three `tai serve` processes over one PostgreSQL and Redis behind haproxy, the write
 * sent to A and the dispatches sent straight to B and C the moment it answered, while the bus's reload races them.
 */
const withServices = await withHaproxyServices();

const RUN = /* GraphQL */ `
  mutation Run($tool: String!, $input: JSONObject!) {
    dispatch(input: { tool: $tool, input: $input }) {
      status
      errorKind
      retryPolicy {
        maxAttempts
      }
    }
  }
`;
type Answer = { status: string; errorKind: string | null; retryPolicy: { maxAttempts: number } | null };

/** `calculate` on, retried twice by the manifest's declaration. */
const WITH = { retry: { calculate: { maxAttempts: 2, idempotent: true } } };
/** `calculate` off; a declaration on it that a request mixing the two manifests would show. */
const WITHOUT = { tools: { exclude: ["calculate"] }, retry: { calculate: { maxAttempts: 3, idempotent: true } } };
const SUM = { op: "add", a: 1, b: 2 };

describe.skipIf(!withServices)("configuration writes across instances behind haproxy", () => {
  const cleanup: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  async function cluster(): Promise<{ admin: (q: string, v: object) => Promise<unknown>; at: Run[] }> {
    const db = await freshDatabase("postgres");
    cleanup.push(db.drop);
    const c: Cluster = await startCluster(db.url, 3);
    cleanup.push(c.close);
    const urls = c.ports.map((p) => `http://127.0.0.1:${p}/graphql`);
    const at = urls.map(
      (url) => async (tool: string, input: object) =>
        (await post<{ dispatch: Answer }>(url, RUN, { tool, input }, ADMIN_KEY)).dispatch,
    );
    return { admin: (q, v) => post(urls[0], q, v as Record<string, unknown>, ADMIN_KEY), at };
  }
  type Run = (tool: string, input: object) => Promise<Answer>;

  const activate = (admin: (q: string, v: object) => Promise<unknown>, name: string) =>
    admin(`mutation($n: String!) { activateManifest(name: $n) { name } }`, { n: name });

  it("should run on B and C, 60 of 60, presets created on A the moment each creation answered", async () => {
    const { admin, at } = await cluster();
    const statuses: string[] = [];
    for (const round of [1, 2, 3]) {
      const name = `greet_${round}`;
      await admin(`mutation($p: PresetInput!) { createPreset(input: $p) { name } }`, {
        p: { name, description: "Echo a greeting.", baseTool: "echo", fixedKwargs: { text: "hi" } },
      });
      const runs = await Promise.all(Array.from({ length: 20 }, (_, i) => at[1 + (i % 2)](name, {})));
      statuses.push(...runs.map((r) => `${r.status} ${r.errorKind ?? ""}`.trim()));
    }
    expect(statuses).toEqual(Array(60).fill("SUCCEEDED"));
  }, 120_000);

  it("should refuse on B and C, 20 of 20 each, a tool removed by a manifest activated on A, and run it again, 20 of 20, once one restoring it is activated", async () => {
    const { admin, at } = await cluster();
    const put = `mutation($m: ManifestInput!) { putManifest(input: $m) { name } }`;
    await admin(put, { m: { name: "with", document: WITH } });
    await admin(put, { m: { name: "without", document: WITHOUT } });
    const removed: string[] = [];
    const restored: string[] = [];
    const kept: string[] = [];
    const answer = (r: Answer) => `${r.status} ${r.errorKind ?? ""} ${r.retryPolicy?.maxAttempts ?? "-"}`;
    for (let round = 0; round < 20; round++) {
      await activate(admin, "without");
      const [b, c, keptB, keptC] = await Promise.all([
        at[1]("calculate", SUM),
        at[2]("calculate", SUM),
        at[1]("echo", { text: "x" }),
        at[2]("echo", { text: "x" }),
      ]);
      removed.push(answer(b), answer(c));
      kept.push(keptB.status, keptC.status);
      await activate(admin, "with");
      restored.push(...(await Promise.all([at[1]("calculate", SUM), at[2]("calculate", SUM)])).map(answer));
    }
    expect(removed).toEqual(Array(40).fill("FAILED NOT_FOUND -"));
    expect(restored).toEqual(Array(40).fill("SUCCEEDED  2"));
    expect(kept).toEqual(Array(40).fill("SUCCEEDED"));
  }, 120_000);

  it("should answer every dispatch on B and C from one manifest while A flips between two", async () => {
    const { admin, at } = await cluster();
    const put = `mutation($m: ManifestInput!) { putManifest(input: $m) { name } }`;
    await admin(put, { m: { name: "with", document: WITH } });
    await admin(put, { m: { name: "without", document: WITHOUT } });
    let flipping = true;
    const answers: string[] = [];
    const client = async (run: Run) => {
      while (flipping) {
        const r = await run("calculate", SUM);
        answers.push(`${r.status} ${r.errorKind ?? ""} ${r.retryPolicy?.maxAttempts ?? "-"}`);
      }
    };
    const clients = [1, 2, 1, 2, 1, 2].map((i) => client(at[i]));
    for (let flip = 0; flip < 30; flip++) await activate(admin, flip % 2 ? "with" : "without");
    flipping = false;
    await Promise.all(clients);
    const seen = new Set(answers);
    // Only the two manifests' answers: found with its declaration, or not found; never the one with the other's.
    expect([...seen].sort()).toEqual(["FAILED NOT_FOUND -", "SUCCEEDED  2"]);
  }, 120_000);
});
