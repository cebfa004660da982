import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { freshDatabase, redisTestUrl, requirePostgres, requireRedis } from "../helpers/databases.ts";
import { gqlClient } from "../helpers/gql.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { sseReader, until } from "../graphql/support.ts";
import { buildApp } from "../../src/server/build-app.ts";
import { tcpLink, through, type Link } from "../helpers/tcp-link.ts";
import { timed } from "./support.ts";

/**
 * Two instances on one PostgreSQL database and one Redis (docs/deploy.md §"Configuration
 * converges"): every configuration write bumps the stored surface version, the bus
 * message is only the fast path, and each instance reads the version every
 * TAI_SYNC_SECONDS. Under CI=true an unreachable PostgreSQL or Redis fails this file.
 */
const ready = (await requirePostgres()) && (await requireRedis());

const SYNC_SECONDS = 2;
/** What one reload may add to the interval on a loaded two-core machine. */
const SLACK_MS = 1000;
const NO_SLEEP = { tools: { exclude: ["sleep"] } };
const ADMIN = as("ADMIN");

const SURFACE = /* GraphQL */ `
  {
    activeManifest {
      name
    }
    tools {
      name
    }
    manifests {
      name
      active
    }
  }
`;
type SurfaceData = {
  activeManifest: { name: string } | null;
  tools: { name: string }[];
  manifests: { name: string; active: boolean }[];
};

describe.skipIf(!ready)("configuration convergence across instances", () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  /** Instances A and B on one fresh PostgreSQL database, each reaching Redis through a link of its own. */
  async function pair(): Promise<{ a: TestRuntime; b: TestRuntime; links: Link[] }> {
    const db = await freshDatabase("postgres");
    cleanup.push(db.drop);
    const redis = new URL(redisTestUrl());
    const prefix = `tai42-test-${randomUUID()}:`;
    const open = async () => {
      const link = await tcpLink(redis.hostname, Number(redis.port || 6379));
      cleanup.push(link.close);
      const rt = await testRuntime({
        databaseUrl: db.url,
        config: { redisUrl: through(redisTestUrl(), link), redisPrefix: prefix, syncSeconds: SYNC_SECONDS },
      });
      cleanup.push(() => rt.dispose());
      return { rt, link };
    };
    const a = await open();
    const b = await open();
    await until("both instances to reach Redis", async () =>
      (
        await Promise.all([
          a.rt.bus.ping().then(
            () => true,
            () => false,
          ),
          b.rt.bus.ping().then(
            () => true,
            () => false,
          ),
        ])
      ).every(Boolean),
    );
    return { a: a.rt, b: b.rt, links: [a.link, b.link] };
  }

  const serves = (rt: TestRuntime) =>
    rt.surface.resolve("sleep") === undefined && rt.surface.resolve("greet") !== undefined;

  it("should serve on both instances, within TAI_SYNC_SECONDS, a manifest activated and a preset created while the Redis link was cut", async () => {
    const { a, b, links } = await pair();
    await a.manifests.put({ name: "no-sleep", document: NO_SLEEP }, undefined, ADMIN);
    expect(b.surface.resolve("sleep")).toBeDefined();

    for (const l of links) l.cut();
    await a.manifests.activate("no-sleep", ADMIN);
    await a.presets.create(
      { name: "greet", description: "Echo a greeting.", baseTool: "echo", fixedKwargs: { text: "hello" } },
      ADMIN,
    );
    const written = Date.now();
    for (const l of links) l.restore();

    expect(serves(a)).toBe(true);
    await timed("B to serve the new surface", () => serves(b), SYNC_SECONDS * 1000 + SLACK_MS);
    expect(Date.now() - written).toBeLessThanOrEqual(SYNC_SECONDS * 1000 + SLACK_MS);
    expect(b.surface.snapshot().activeManifest?.name).toBe("no-sleep");
    expect(b.surface.snapshot().version).toBe(a.surface.snapshot().version);

    const refused = await b.dispatcher.run({
      tool: "sleep",
      input: { seconds: 20 },
      caller: as("USER"),
      door: "graphql",
    });
    expect(refused).toMatchObject({ status: "FAILED", errorKind: "NOT_FOUND" });
    const greeted = await b.dispatcher.run({ tool: "greet", input: {}, caller: as("USER"), door: "runtime" });
    expect(greeted.status).toBe("SUCCEEDED");
  });

  it("should run on the other instance a preset created a moment ago, before its next version check, with the bus cut", async () => {
    const { a, b, links } = await pair();
    for (const l of links) l.cut();
    await a.presets.create(
      { name: "greet", description: "Echo a greeting.", baseTool: "echo", fixedKwargs: { text: "hello" } },
      ADMIN,
    );
    const runs = await Promise.all(
      Array.from({ length: 20 }, () =>
        b.dispatcher.run({ tool: "greet", input: {}, caller: as("USER"), door: "runtime" }),
      ),
    );
    expect(runs.map((r) => r.status)).toEqual(Array(20).fill("SUCCEEDED"));
  });

  it("should run on the other instance, 60 of 60, presets created a moment ago while the bus's reload races the dispatch", async () => {
    const { a, b } = await pair();
    const statuses: string[] = [];
    for (const round of [1, 2, 3]) {
      await a.presets.create(
        { name: `greet_${round}`, description: "Echo a greeting.", baseTool: "echo", fixedKwargs: { text: "hi" } },
        ADMIN,
      );
      const runs = await Promise.all(
        Array.from({ length: 20 }, () =>
          b.dispatcher.run({ tool: `greet_${round}`, input: {}, caller: as("USER"), door: "graphql" }),
        ),
      );
      statuses.push(...runs.map((r) => r.status));
    }
    expect(statuses).toEqual(Array(60).fill("SUCCEEDED"));
  });

  it("should answer every GraphQL response of an instance catching up from one surface version: its tools, activeManifest and manifests agree", async () => {
    const { a, b, links } = await pair();
    const gql = gqlClient(b);
    await a.manifests.put({ name: "no-sleep", document: NO_SLEEP }, undefined, ADMIN);
    for (const l of links) l.cut();
    const responses: SurfaceData[] = [];
    let converged = false;
    const reader = (async () => {
      while (!converged) responses.push((await gql<SurfaceData>(SURFACE)).data!);
    })();
    await a.manifests.activate("no-sleep", ADMIN);
    await until(
      "B to serve the activated manifest",
      () => b.surface.resolve("sleep") === undefined,
      SYNC_SECONDS * 1000 + SLACK_MS,
    );
    // A few responses from after the switch too.
    const seen = responses.length;
    await until("more responses", () => responses.length > seen + 3);
    converged = true;
    await reader;

    const versions = responses.map((r) => {
      const manifest = r.activeManifest?.name ?? null;
      const hasSleep = r.tools.some((t) => t.name === "sleep");
      const listedActive = r.manifests.find((m) => m.active)?.name ?? null;
      return { manifest, hasSleep, listedActive };
    });
    for (const v of versions) {
      expect(v.hasSleep).toBe(v.manifest !== "no-sleep");
      expect(v.listedActive).toBe(v.manifest);
    }
    expect(versions.some((v) => v.manifest === null)).toBe(true);
    expect(versions.at(-1)?.manifest).toBe("no-sleep");
  });

  it("should send a toolsChanged subscriber of the other instance the new list first, never the list from before the change", async () => {
    const { a, b } = await pair();
    await a.manifests.put({ name: "no-sleep", document: NO_SLEEP }, undefined, ADMIN);
    const key = await b.keys.create("watcher", "USER");
    const server = buildApp(b);
    const res = await server.yoga.fetch("http://localhost/graphql", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream", authorization: `Bearer ${key}` },
      body: JSON.stringify({ query: "subscription { toolsChanged { name } }" }),
    });
    const sse = sseReader(res);
    cleanup.push(() => sse.cancel());
    await until("the subscription to listen", () => b.bus.listenerCount("toolsChanged") === 1);

    await a.manifests.activate("no-sleep", ADMIN);
    await until("a toolsChanged frame on B", () => sse.nexts().length > 0, SYNC_SECONDS * 1000 + SLACK_MS);
    const first = sse.nexts<{ toolsChanged: { name: string }[] }>()[0].data!.toolsChanged.map((t) => t.name);
    expect(first).toContain("echo");
    expect(first).not.toContain("sleep");
  });
});
