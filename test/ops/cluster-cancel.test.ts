import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { freshDatabase, redisTestUrl } from "../helpers/databases.ts";
import { tcpLink, through, type Link } from "../helpers/tcp-link.ts";
import { until } from "../graphql/support.ts";
import { ADMIN_KEY, post } from "../runlog/support.ts";
import { startCluster, withHaproxyServices, type Cluster } from "./haproxy-cluster.ts";
import { timed } from "./support.ts";

/**
 * Cancels and revocations that do not depend on Redis (docs/run-lifecycle.md §4, docs/security-model.md §1): three
 * `tai serve` processes over one PostgreSQL and Redis behind haproxy, one instance's Redis reached through a link the
 * test really cuts.
 */
const withServices = await withHaproxyServices();

/** The heartbeat the instances here beat at: the bound a cancel read from the store waits at most. */
const HEARTBEAT_S = 2;

const STEADY = /* GraphQL */ `
  mutation Steady($input: JSONObject!) {
    dispatch(input: { tool: "steady", input: $input }) {
      id
      status
      errorKind
    }
  }
`;
const ECHO = /* GraphQL */ `
  mutation {
    dispatch(input: { tool: "echo", input: { text: "hi" } }) {
      status
    }
  }
`;

/** An echo dispatched on `url` with `key`: its status, or the error code it was refused with. */
async function echo(url: string, key: string): Promise<string> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    body: JSON.stringify({ query: ECHO }),
  });
  const body = (await res.json()) as {
    data?: { dispatch: { status: string } };
    errors?: { extensions?: { code?: string } }[];
  };
  return body.data?.dispatch?.status ?? body.errors?.[0]?.extensions?.code ?? `HTTP ${res.status}`;
}

describe.skipIf(!withServices)("cancels and revocations across instances with one instance's Redis cut", () => {
  const cleanup: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  /** Three instances behind haproxy; instance `cut`'s Redis goes through a link the test cuts. */
  async function cluster(cut: number): Promise<{ urls: string[]; link: Link; c: Cluster }> {
    const db = await freshDatabase("postgres");
    cleanup.push(db.drop);
    const redis = new URL(redisTestUrl());
    const link = await tcpLink(redis.hostname, Number(redis.port || 6379));
    cleanup.push(link.close);
    const c = await startCluster(db.url, 3, {
      env: { TAI_HEARTBEAT_SECONDS: String(HEARTBEAT_S) },
      redisUrl: (i) => (i === cut ? through(redisTestUrl(), link) : redisTestUrl()),
    });
    cleanup.push(c.close);
    return { urls: c.ports.map((p) => `http://127.0.0.1:${p}/graphql`), link, c };
  }

  it("should end CANCELLED within the heartbeat a 60 s run on A whose Redis link is cut, cancelled from B", async () => {
    const { urls, link } = await cluster(0);
    const trace = join(mkdtempSync(join(tmpdir(), "tai42-cancel-")), "trace");
    type Run = { id: string; status: string; errorKind: string | null };
    const onA = post<{ dispatch: Run }>(urls[0], STEADY, { input: { trace, seconds: 60 } }, ADMIN_KEY);
    const begun = () => existsSync(trace) && readFileSync(trace, "utf8").includes("started");
    await until("the run to start on A", begun, 20_000);
    const list = await post<{ runs: { edges: { node: { id: string } }[] } }>(
      urls[1],
      `{ runs(tool: "steady", status: RUNNING) { edges { node { id } } } }`,
      {},
      ADMIN_KEY,
    );
    const id = list.runs.edges[0].node.id;
    link.cut();
    const started = Date.now();
    const cancelled = await post<{ cancelRun: Run }>(
      urls[1],
      `mutation($id: ID!) { cancelRun(id: $id) { id status errorKind } }`,
      { id },
      ADMIN_KEY,
    );
    const tookMs = Date.now() - started;
    console.log(`cancel with the holder's Redis cut answered in ${tookMs} ms (heartbeat ${HEARTBEAT_S} s)`);
    expect(cancelled.cancelRun).toEqual({ id, status: "CANCELLED", errorKind: "CANCELLED" });
    expect((await onA).dispatch).toEqual({ id, status: "CANCELLED", errorKind: "CANCELLED" });
    expect(readFileSync(trace, "utf8")).toMatch(/started\n\d+ aborted\n$/);
    // One heartbeat, the caller's poll (at most 1 s) and the abort itself; the run had 60 s to go.
    expect(tookMs).toBeLessThan((HEARTBEAT_S + 1) * 1000 + 2000);
  }, 120_000);

  it("should refuse on B, 40 of 40, a key revoked on A once the 1 s bound passed, B's cache warm and its Redis cut", async () => {
    const { urls, link } = await cluster(1);
    const key = (
      await post<{ createApiKey: string }>(
        urls[0],
        `mutation { createApiKey(name: "doomed", role: USER) }`,
        {},
        ADMIN_KEY,
      )
    ).createApiKey;
    expect(await echo(urls[1], key)).toBe("SUCCEEDED");
    link.cut();
    expect(await echo(urls[1], key)).toBe("SUCCEEDED");
    await post(urls[0], `mutation { revokeApiKey(name: "doomed") }`, {}, ADMIN_KEY);
    const tookMs = await timed(
      "B to refuse the revoked key",
      async () => (await echo(urls[1], key)) !== "SUCCEEDED",
      10_000,
    );
    console.log(`B refused the key revoked on A after ${tookMs} ms (bound 1 s)`);
    expect(tookMs).toBeLessThan(1000 + 1000);
    const answers = await Promise.all(Array.from({ length: 40 }, () => echo(urls[1], key)));
    expect(answers).toEqual(Array(40).fill("UNAUTHENTICATED"));
  }, 120_000);
});
