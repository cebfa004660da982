import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { app } from "../../src/index.ts";
import { freePort } from "../helpers/cli.ts";
import { readmeBlock } from "../helpers/readme.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";

// The README's "Writing a tool" example, run as written: its module registers on the
// shared `app`, as a user's module loaded through TAI_MODULES does.
const EXAMPLE = readmeBlock("// tools/pages.ts");
const file = join(fileURLToPath(new URL("../../.tmp", import.meta.url)), `readme-pages-${process.pid}.ts`);

let rt: TestRuntime;
let site: Server;
let base: string;

beforeAll(async () => {
  mkdirSync(join(file, ".."), { recursive: true });
  writeFileSync(file, EXAMPLE);
  await import(file);
  rt = await testRuntime({ app });
  site = createServer((req, res) => {
    const status = Number(req.url?.slice(1)) || 200;
    res
      .writeHead(status, { "content-type": "text/html" })
      .end(status === 200 ? "<html><title>Hello, tools</title></html>" : "no");
  });
  await new Promise<void>((r) => site.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(site.address() as { port: number }).port}`;
});
afterAll(async () => {
  await rt?.dispose();
  await new Promise((r) => site?.close(r));
  rmSync(file, { force: true });
});

const fetchTitle = (url: string) =>
  rt.dispatcher.run({ tool: "fetch_title", input: { url }, caller: as("USER"), door: "runtime" });

describe("the README's fetch_title example", () => {
  it("should return the page's title as data that its output schema checks", async () => {
    const run = await fetchTitle(`${base}/`);
    expect(run.status, run.errorMessage ?? "").toBe("SUCCEEDED");
    expect(run.data).toEqual({ title: "Hello, tools" });
    expect(rt.surface.resolve("fetch_title")?.outputSchema).toMatchObject({
      type: "object",
      properties: { title: {} },
      required: ["title"],
    });
  });

  it("should map a host it cannot reach to NETWORK, which its retry policy retries up to three attempts", async () => {
    const run = await fetchTitle(`http://127.0.0.1:${await freePort()}/`);
    expect(run.status).toBe("FAILED");
    expect(run.errorKind).toBe("NETWORK");
    expect(run.attempts.map((a) => a.errorKind)).toEqual(["NETWORK", "NETWORK", "NETWORK"]);
  });

  it("should retry a 5xx answer (its own verdict on UPSTREAM) but not a 404", async () => {
    const unavailable = await fetchTitle(`${base}/503`);
    expect([unavailable.errorKind, unavailable.attempts.length]).toEqual(["UPSTREAM", 3]);
    const missing = await fetchTitle(`${base}/404`);
    expect([missing.errorKind, missing.errorMessage, missing.attempts.length]).toEqual(["UPSTREAM", "HTTP 404", 1]);
  });
});
