import { createServer, type Server } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.ts";
import { freshDatabase } from "../helpers/databases.ts";

let taken: Server;
let port: number;
let databaseUrl: string;
let drop: () => Promise<void>;

beforeAll(async () => {
  ({ url: databaseUrl, drop } = await freshDatabase("sqlite"));
  taken = createServer();
  await new Promise<void>((r) => taken.listen(0, "127.0.0.1", r));
  port = (taken.address() as { port: number }).port;
});
afterAll(async () => {
  await new Promise((r) => taken?.close(r));
  await drop?.();
});

describe("tai serve on a port that is taken", () => {
  it("should exit 2 saying the port is in use and to set PORT, without a stack trace", async () => {
    const r = await runCli(["serve"], { DATABASE_URL: databaseUrl, PORT: String(port), HOST: "127.0.0.1" });
    expect(r.code).toBe(2);
    expect(r.stdout).not.toContain("listening");
    expect(r.stderr.trim()).toBe(`error: port ${port} on 127.0.0.1 is in use: set PORT to another port`);
  }, 120_000);
});
