import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type ServerUnderTest } from "./support.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const RECORDER = join(ROOT, "test", "fixtures", "record-loads.mjs");

/** What a program that uses the package as an app would: a dispatch, then a run's events over graphql-ws. */
const PROGRAM = `
  const { createTaiClient, TaiGraphQLError } = await import("tai42/client");
  const tai = createTaiClient({ url: process.env.TAI_URL });
  const run = await tai.dispatch("echo", { text: "from dist" });
  const types = [];
  for await (const e of tai.runEvents({ runId: run.id, afterSeq: 0 })) if (types.push(e.type) === 2) break;
  await tai.close();
  console.log(JSON.stringify({ status: run.status, types, errorClass: typeof TaiGraphQLError }));
`;

describe("tai42/client compiled (dist/, what the package exports by default)", () => {
  let server: ServerUnderTest;
  let dir: string;
  beforeAll(async () => {
    server = await startServer();
    dir = mkdtempSync(join(tmpdir(), "tai42-client-"));
  });
  afterAll(async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("should load from dist/client in plain Node and talk to a server, loading no server code", async () => {
    const out = join(dir, "loads.txt");
    const env = { ...process.env, TAI_URL: server.url, RECORD_LOADS_OUT: out, NODE_OPTIONS: "" };
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["--import", pathToFileURL(RECORDER).href, "--input-type=module", "-e", PROGRAM],
      {
        cwd: ROOT,
        env,
        timeout: 30_000,
      },
    );
    expect(JSON.parse(stdout)).toEqual({
      status: "SUCCEEDED",
      types: ["RUN_STARTED", "RUN_FINISHED"],
      errorClass: "function",
    });

    const loaded = readFileSync(out, "utf8").split("\n");
    const own = loaded
      .filter((u) => u.startsWith(pathToFileURL(ROOT).href) && !u.includes("/node_modules/"))
      .map((u) => u.slice(pathToFileURL(ROOT).href.length));
    expect(own.length).toBeGreaterThan(0);
    expect(own.filter((f) => !f.startsWith("dist/client/") && f !== "package.json")).toEqual([]);
    for (const name of ["graphql-yoga", "@prisma/client", "ws", "zod", "tsx"])
      expect(
        loaded.some((u) => u.includes(`/node_modules/${name}/`)),
        name,
      ).toBe(false);
  }, 60_000);
});
