import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { App } from "../../src/app.ts";
import { loadConfig } from "../../src/config.ts";
import { openDb, type Db } from "../../src/db/client.ts";
import { createRuntime, type RuntimeOptions } from "../../src/runtime.ts";
import { createLogger } from "../../src/log.ts";
import { as } from "../helpers/runtime.ts";
import { limiter, runCli } from "../helpers/cli.ts";
import { freshDatabase } from "../helpers/databases.ts";

/**
 * A one-shot command is not a server: it takes on none of an instance's duties (register,
 * beat, fail the runs of gone instances, expire interactions, recover agent runs), except
 * that a command running tools registers and beats so that no server fails its runs.
 */
let url: string;
let db: Db;
let orphans = 0;
const limit = limiter(2);

beforeAll(async () => {
  url = (await freshDatabase("sqlite")).url;
  db = (await openDb(url)).db;
});
afterAll(() => db?.$disconnect());

/** A RUNNING run of an instance that no longer exists: any server start fails it. */
async function orphan(): Promise<string> {
  const id = `orphan-${++orphans}`;
  await db.run.create({
    data: {
      id,
      tool: "echo",
      status: "RUNNING",
      content: [],
      door: "graphql",
      callerRole: "USER",
      instanceId: "gone-host/1/gone",
    },
  });
  return id;
}
const statusOf = async (id: string) => (await db.run.findUniqueOrThrow({ where: { id } })).status;
const open = (duties: RuntimeOptions["duties"]) =>
  createRuntime({
    config: { ...loadConfig({}), databaseUrl: url, shutdownGraceSeconds: 1 },
    app: new App(),
    loadModules: false,
    log: createLogger({}, () => {}),
    duties,
  });

describe("a runtime's instance duties", () => {
  it("should register nothing and leave other instances' runs alone with duties none", async () => {
    const id = await orphan();
    const rt = await open("none");
    try {
      expect(await db.instance.count({ where: { id: rt.instanceId } })).toBe(0);
      expect(rt.recovered).toEqual([]);
      expect(rt.surface.resolve("echo")).toBeDefined();
      expect(await statusOf(id)).toBe("RUNNING");
    } finally {
      await rt.close();
    }
  });

  it("should register and run tools, but fail no other instance's run, with duties runs", async () => {
    const id = await orphan();
    const rt = await open("runs");
    try {
      expect(await db.instance.count({ where: { id: rt.instanceId } })).toBe(1);
      const run = await rt.dispatcher.run({ tool: "echo", input: { text: "hi" }, caller: as("USER"), door: "cli" });
      expect(run.status).toBe("SUCCEEDED");
      expect((await db.run.findUniqueOrThrow({ where: { id: run.id } })).instanceId).toBe(rt.instanceId);
      expect(await statusOf(id)).toBe("RUNNING");
    } finally {
      await rt.close();
    }
    expect(await db.instance.count({ where: { id: rt.instanceId } })).toBe(0);
  });

  it("should fail the runs of gone instances at start as a server (the default)", async () => {
    const id = await orphan();
    const rt = await open(undefined);
    try {
      expect(rt.recovered).toContain(id);
      expect(await statusOf(id)).toBe("OUTCOME_UNKNOWN");
    } finally {
      await rt.close();
    }
  });
});

describe("one-shot tai commands", () => {
  it("should leave another instance's RUNNING run alone when they list, read stored data or run a tool", async () => {
    const id = await orphan();
    const commands = [
      ["tools", "list"],
      ["presets", "list"],
      ["manifests", "list"],
      ["keys", "list"],
      ["tools", "run", "echo", "--input", '{"text":"x"}'],
    ];
    const results = await Promise.all(commands.map((args) => limit(() => runCli(args, { DATABASE_URL: url }))));
    for (const [i, r] of results.entries()) expect(r.code, `${commands[i].join(" ")}: ${r.stderr}`).toBe(0);
    expect(await statusOf(id)).toBe("RUNNING");
    expect(await db.instance.count()).toBe(0);
  }, 120_000);
});
