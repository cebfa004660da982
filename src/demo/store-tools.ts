import { z } from "zod";
import type { App } from "../app.ts";
import type { Db } from "../db/client.ts";
import { ToolError } from "../errors.ts";

/** The demo tools over the runtime's database: the key-value store and the platform statistics. */
export function registerStoreTools(app: App, db: Db): void {
  app.tool(
    {
      name: "kv_put",
      label: "Store a value",
      description:
        "Store a JSON value under a key in the persistent demo key-value store, replacing any previous value.",
      input: z.object({ key: z.string().min(1).max(200), value: z.json() }),
      tier: "write",
      executionMode: "sequential",
    },
    async ({ key, value }) => {
      const row = await db.kvEntry.upsert({
        where: { key },
        create: { key, value: value as never },
        update: { value: value as never },
      });
      return { key: row.key, updatedAt: row.updatedAt.toISOString() };
    },
  );

  app.tool(
    {
      name: "kv_get",
      label: "Read a value",
      description: "Read the JSON value stored under a key in the demo key-value store.",
      input: z.object({ key: z.string().min(1).max(200) }),
    },
    async ({ key }) => {
      const row = await db.kvEntry.findUnique({ where: { key } });
      if (!row) throw new ToolError(`no value is stored under "${key}"`, { kind: "NOT_FOUND" });
      return { key, value: row.value, updatedAt: row.updatedAt.toISOString() };
    },
  );

  app.tool(
    {
      name: "admin_stats",
      label: "Platform statistics",
      description: "Count runs by status and tool, and active API keys by role. Admin only.",
      input: z.object({}),
      tier: "fenced",
    },
    async () => {
      const [byStatus, byTool, keys] = await Promise.all([
        db.run.groupBy({ by: ["status"], _count: { _all: true } }),
        db.run.groupBy({ by: ["tool"], _count: { _all: true }, orderBy: { _count: { tool: "desc" } }, take: 10 }),
        db.apiKey.groupBy({ by: ["role"], where: { revokedAt: null }, _count: { _all: true } }),
      ]);
      return {
        runsByStatus: Object.fromEntries(byStatus.map((r) => [r.status, r._count._all])),
        topTools: byTool.map((r) => ({ tool: r.tool, runs: r._count._all })),
        activeKeysByRole: Object.fromEntries(keys.map((r) => [r.role, r._count._all])),
      };
    },
  );
}
