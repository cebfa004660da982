import { afterEach, describe, expect, it } from "vitest";
import { freshDatabase } from "../helpers/databases.ts";
import { until } from "../graphql/support.ts";
import { withDb } from "../runlog/support.ts";
import { startCluster, withHaproxyServices } from "./haproxy-cluster.ts";
import { get } from "./support.ts";

/**
 * Requests routed to an instance that cannot make progress (docs/deploy.md §3): three `tai serve` processes behind
 * haproxy configured as the docs recommend, one frozen with SIGSTOP. haproxy's check takes it out and ends the requests
 * it held (`on-marked-down shutdown-sessions`), each answered 502; the client sends them again through the balancer,
 * which routes them elsewhere. When the frozen instance wakes, it reads those requests after their connections closed
 * and runs none of them (docs/run-lifecycle.md §2, step 4).
 */
const withServices = await withHaproxyServices();

/** haproxy's `inter` (1 s) plus its `timeout check` (3 s): how long a frozen instance keeps its requests. */
const BOUND_MS = 4000;

const ECHO = (i: number) =>
  `mutation { dispatch(input: { tool: "echo", input: { text: "stalled ${i}" } }) { status } }`;

/** One dispatch through the balancer: the HTTP status, the run's status (or the error code) and how long it took. */
async function dispatch(url: string, i: number): Promise<{ http: number; answer: string; ms: number }> {
  const started = Date.now();
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ query: ECHO(i) }),
  });
  const text = await res.text();
  let answer = `not JSON: ${text.slice(0, 80)}`;
  try {
    const body = JSON.parse(text) as { data?: { dispatch: { status: string } }; errors?: { message: string }[] };
    answer = body.data?.dispatch.status ?? body.errors?.[0]?.message ?? "no answer";
  } catch {
    // kept as "not JSON"
  }
  return { http: res.status, answer, ms: Date.now() - started };
}

describe.skipIf(!withServices)("an instance frozen behind haproxy", () => {
  const cleanup: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  it("should answer 502 within the check's bound the requests the frozen instance held, run each exactly once when sent again, and run none of them when it wakes", async () => {
    const db = await freshDatabase("postgres");
    cleanup.push(db.drop);
    // Its log is read: the woken instance names each request it did not run.
    const c = await startCluster(db.url, 3, { env: { TAI_LOG: "info" } });
    cleanup.push(c.close);
    const frozen = c.servers[0].process.child;
    frozen.kill("SIGSTOP");
    cleanup.unshift(() => void frozen.kill("SIGCONT"));
    const first = await Promise.all(Array.from({ length: 9 }, (_, i) => dispatch(c.url, i)));
    const failed = first.flatMap((a, i) => (a.http === 200 ? [] : [i]));
    const slowest = Math.max(...first.map((a) => a.ms));
    console.log(`9 requests: ${failed.length} answered 502 by haproxy, the slowest in ${slowest} ms`);
    // The frozen instance's share (round robin), each ended by the balancer with a status, never a closed socket.
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.map((i) => `${first[i].http} ${first[i].answer.slice(0, 8)}`)).toEqual(
      failed.map(() => "502 not JSON"),
    );
    expect(slowest).toBeLessThan(BOUND_MS + 2000);
    const again = await Promise.all(failed.map((i) => dispatch(c.url, i)));
    expect([...first.filter((a) => a.http === 200), ...again].map((a) => `${a.http} ${a.answer}`)).toEqual(
      Array(9).fill("200 SUCCEEDED"),
    );
    const resent = failed.length;

    frozen.kill("SIGCONT");
    const refusals = () =>
      c.servers[0].process
        .stderr()
        .split("\n")
        .filter((l) => l.includes("the caller's connection closed")).length;
    await until("the woken instance to refuse every request haproxy resent", () => refusals() >= resent, 20_000);
    await until(
      "the woken instance to be ready",
      async () => (await get(`http://127.0.0.1:${c.ports[0]}/ready`))?.status === 200,
    );
    const texts = await withDb(db.url, async (d) =>
      (await d.run.findMany({ where: { tool: "echo" }, select: { input: true } })).map(
        (r) => (r.input as { text: string }).text,
      ),
    );
    expect(texts.sort()).toEqual(Array.from({ length: 9 }, (_, i) => `stalled ${i}`).sort());
    expect(refusals()).toBe(resent);
  }, 120_000);
});
