import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { freshDatabase, requirePostgres } from "../helpers/databases.ts";
import { tcpLink, through } from "../helpers/tcp-link.ts";
import { until } from "../graphql/support.ts";
import { serve } from "../runlog/support.ts";

/**
 * Admission control (docs/flow-control.md §5): one `tai serve` on PostgreSQL reached through a link the test makes
 * slow (every byte held 8 s), under an open load of 200 dispatches a second. Needs PostgreSQL; under CI=true a
 * missing one fails this file.
 */
const withPostgres = await requirePostgres();

const ECHO = JSON.stringify({
  query: `mutation { dispatch(input: { tool: "echo", input: { text: "hi" } }) { id status } }`,
});

/** What `/metrics` says of `tai42_dispatches_open`. */
async function serverOpen(graphql: string): Promise<number> {
  const text = await (await fetch(graphql.replace(/\/graphql$/, "/metrics"))).text();
  return Number(/^tai42_dispatches_open (\d+)/m.exec(text)?.[1] ?? "NaN");
}

/** The resident memory of process `pid`, in MB. */
const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024;

interface Answer {
  sentAt: number;
  ms: number;
  status: number;
  retryAfter: string | null;
  code?: string;
  ok: boolean;
}

describe.skipIf(!withPostgres)("a slow database under load", () => {
  const cleanup: (() => Promise<unknown> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  it("should keep open requests under the bound, refuse the excess at once with 503 and a retry time, keep memory flat, and recover when the delay ends", async () => {
    const database = await freshDatabase("postgres");
    cleanup.push(database.drop);
    const u = new URL(database.url);
    const link = await tcpLink(u.hostname, Number(u.port || 5432));
    cleanup.push(() => link.close());
    const server = await serve(through(database.url, link), { TAI_MAX_DB_WAIT_SECONDS: "2" });
    cleanup.push(() => server.process.stop("SIGKILL"));
    const pid = server.process.child.pid!;

    let open = 0;
    let mostOpen = 0;
    const answers: Answer[] = [];
    const send = async () => {
      const sentAt = Date.now();
      open++;
      mostOpen = Math.max(mostOpen, open);
      try {
        const res = await fetch(server.url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: ECHO,
        });
        const body = (await res.json()) as {
          data?: { dispatch: { status: string } };
          errors?: { extensions?: { code?: string } }[];
        };
        answers.push({
          sentAt,
          ms: Date.now() - sentAt,
          status: res.status,
          retryAfter: res.headers.get("retry-after"),
          code: body.errors?.[0]?.extensions?.code,
          ok: body.data?.dispatch?.status === "SUCCEEDED",
        });
      } finally {
        open--;
      }
    };
    // 200 a second for 16 s: 3 s normal, 8 s with every byte held 8 s, then normal again.
    let rssAtSlow = 0;
    let rssMostSlow = 0;
    let mostServerOpen = 0;
    const samples: Promise<void>[] = [];
    const started = Date.now();
    const sent: Promise<void>[] = [];
    const timeline: string[] = [];
    await new Promise<void>((done) => {
      let n = 0;
      const tick = setInterval(() => {
        const t = Date.now() - started;
        if (t >= 16_000) return (clearInterval(tick), done());
        if (t >= 3000 && t < 11_000) link.slow(8000);
        else link.slow(0);
        if (n++ % 40 === 0) {
          const rss = rssMb(pid);
          if (t >= 3000 && t < 11_000) rssMostSlow = Math.max(rssMostSlow, rss);
          if (t >= 3000 && !rssAtSlow) rssAtSlow = rss;
          samples.push(serverOpen(server.url).then((o) => void (mostServerOpen = Math.max(mostServerOpen, o))));
          timeline.push(`${(t / 1000).toFixed(1)}s:${Math.round(rss)}MB/${open}`);
        }
        sent.push(send());
      }, 5);
    });
    await Promise.all([...sent, ...samples]);
    const slowStart = started + 3000;
    const shed = answers.filter((a) => a.code === "UNAVAILABLE");
    const late = answers.filter((a) => a.sentAt >= started + 11_000 + 9000);
    console.log(
      "slow database:",
      JSON.stringify({
        sent: answers.length,
        succeeded: answers.filter((a) => a.ok).length,
        shed: shed.length,
        mostOpen,
        mostServerOpen,
        slowestShedMs: Math.max(...shed.map((a) => a.ms)),
        rssAtSlowMb: Math.round(rssAtSlow),
        rssMostSlowMb: Math.round(rssMostSlow),
      }),
      timeline.join(" "),
    );
    expect(answers.filter((a) => !a.ok && a.code !== "UNAVAILABLE")).toEqual([]);
    // Everything sent from the 2nd second of the slowness to its end (some 6 s at up to 200 a second) is shed.
    expect(shed.length).toBeGreaterThan(200);
    for (const a of shed) {
      expect(a.status).toBe(503);
      expect(a.retryAfter).toBe("1");
      expect(a.ms).toBeLessThan(1000);
      expect(a.sentAt).toBeGreaterThanOrEqual(slowStart + 1900);
    }
    // Admission shed from the 2nd second of the slowness: at 200 a second, some 400 wait on the database at most.
    expect(mostServerOpen).toBeLessThan(600);
    expect(rssMostSlow - rssAtSlow).toBeLessThan(60);
    // Recovered: what is sent once the held bytes are through succeeds again.
    await until("a dispatch to succeed again", async () => (await send(), answers.at(-1)!.ok), 20_000);
    expect(late.every((a) => a.ok)).toBe(true);
  }, 90_000);
});
