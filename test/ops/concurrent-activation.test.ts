import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { freshDatabase, redisTestUrl, requirePostgres, requireRedis } from "../helpers/databases.ts";
import { gqlClient, type GqlResult } from "../helpers/gql.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { until } from "../graphql/support.ts";

/**
 * 500 `activateManifest` mutations at once, split across two instances on one PostgreSQL
 * database (pool of 10 each) and one Redis (docs/deploy.md §"Contention"): each answers
 * the activated manifest or a typed, retryable CONFLICT / UNAVAILABLE, never a masked
 * error, and exactly one manifest is active after. Under CI=true an unreachable
 * PostgreSQL or Redis fails this file.
 */
const ready = (await requirePostgres()) && (await requireRedis());

const ACTIVATIONS = 500;
const MANIFESTS = ["m0", "m1", "m2", "m3", "m4"];
const ACTIVATE = /* GraphQL */ `
  mutation ($name: String!) {
    activateManifest(name: $name) {
      name
      active
    }
  }
`;

describe.skipIf(!ready)("concurrent manifest activation across two instances", () => {
  const runtimes: TestRuntime[] = [];
  afterEach(async () => {
    for (const r of runtimes.splice(0).reverse()) await r.dispose();
  });

  it(`should answer each of ${ACTIVATIONS} concurrent activations with the manifest or a typed retryable error, and leave exactly one active`, async () => {
    const db = await freshDatabase("postgres");
    const config = { redisUrl: redisTestUrl(), redisPrefix: `tai42-test-${randomUUID()}:`, dbPool: 10 };
    const a = await testRuntime({ databaseUrl: db.url, config });
    runtimes.push(Object.assign(a, { dispose: async () => (await a.close(), await db.drop()) }));
    const b = await testRuntime({ databaseUrl: db.url, config });
    runtimes.push(b);
    for (const name of MANIFESTS) await a.manifests.put({ name, document: {} }, undefined, as("ADMIN"));
    const key = await a.keys.create("activator", "ADMIN");
    const doors = [gqlClient(a), gqlClient(b)];

    const answers = await Promise.all(
      Array.from({ length: ACTIVATIONS }, (_, i) =>
        doors[i % 2]<{ activateManifest: { name: string; active: boolean } }>(
          ACTIVATE,
          { name: MANIFESTS[i % MANIFESTS.length] },
          key,
        ),
      ),
    );

    const outcome = (r: GqlResult<{ activateManifest: { name: string; active: boolean } }>) => {
      if (r.data?.activateManifest) return r.data.activateManifest.active ? "activated" : "answered inactive";
      const e = r.errors?.[0];
      const code = e?.extensions?.code;
      return (code === "CONFLICT" || code === "UNAVAILABLE") &&
        (e?.extensions as { retryable?: boolean }).retryable === true
        ? `retryable ${code}`
        : `untyped: ${r.text.slice(0, 300)}`;
    };
    const tally: Record<string, number> = {};
    for (const r of answers) tally[outcome(r)] = (tally[outcome(r)] ?? 0) + 1;
    expect(
      Object.keys(tally).filter((k) => !["activated", "retryable CONFLICT", "retryable UNAVAILABLE"].includes(k)),
      JSON.stringify(tally),
    ).toEqual([]);
    expect(tally.activated).toBeGreaterThan(0);
    expect(await a.db.manifest.count({ where: { active: true } })).toBe(1);

    // And both instances come to serve that one.
    const active = (await a.db.manifest.findFirstOrThrow({ where: { active: true } })).name;
    await until(
      "both instances to serve the active manifest",
      () => [a, b].every((r) => r.surface.snapshot().activeManifest?.name === active),
      5000,
    );
  }, 180_000);
});
