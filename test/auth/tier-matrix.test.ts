import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import type { Role, Tier } from "../../src/auth/roles.ts";
import type { RunRecord } from "../../src/dispatch/run-record.ts";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { buildApp, type TaiServer } from "../../src/server/build-app.ts";
import { limiter, runCli } from "../helpers/cli.ts";
import { freshDatabase } from "../helpers/databases.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";

const ROLES: Role[] = ["READER", "USER", "ADMIN"];
const TIERS: Tier[] = ["read", "write", "fenced", "secret"];

/** SPEC §11, written out independently of src/auth/tiers.ts so that a bug there shows. */
const MAY_RUN: Record<Role, Tier[]> = {
  READER: ["read"],
  USER: ["read", "write"],
  ADMIN: ["read", "write", "fenced", "secret"],
};

const PAIRS = ROLES.flatMap((role) => TIERS.map((tier) => ({ role, tier, allowed: MAY_RUN[role].includes(tier) })));
const label = ({ role, tier, allowed }: (typeof PAIRS)[number]) =>
  `${allowed ? "should let" : "should forbid"} ${role} ${allowed ? "run" : "from running"} a ${tier}-tier tool`;

let databaseUrl: string;
let rt: TestRuntime;
let server: TaiServer;
const keys = {} as Record<Role, string>;
const bodyRuns: Record<Tier, number> = { read: 0, write: 0, fenced: 0, secret: 0 };

beforeAll(async () => {
  databaseUrl = (await freshDatabase("sqlite")).url;
  const app = new App();
  for (const tier of TIERS) {
    app.tool(
      {
        name: `tier_${tier}`,
        description: `A ${tier}-tier probe.`,
        input: z.object({ note: z.string().optional() }),
        tier,
      },
      () => {
        bodyRuns[tier]++;
        return { ran: tier };
      },
    );
  }
  rt = await testRuntime({ app, databaseUrl });
  for (const role of ROLES) keys[role] = await rt.keys.create(`matrix-${role.toLowerCase()}`, role);
  server = buildApp(rt);
});

afterAll(async () => {
  await server?.stop();
  await rt?.dispose();
});

/** The common verdict of one (role, tier) dispatch, whatever the door. */
async function expectVerdict(
  run: Pick<RunRecord, "id" | "status" | "errorKind" | "errorMessage">,
  pair: (typeof PAIRS)[number],
  door: string,
) {
  const stored = await rt.runs.get(run.id);
  expect(stored, "the run is persisted").not.toBeNull();
  expect(stored).toMatchObject({
    tool: `tier_${pair.tier}`,
    door,
    callerRole: pair.role,
    callerKey: `matrix-${pair.role.toLowerCase()}`,
  });
  if (pair.allowed) {
    expect(run).toMatchObject({ status: "SUCCEEDED", errorKind: null });
    expect(stored).toMatchObject({ status: "SUCCEEDED", errorKind: null });
  } else {
    expect(run).toMatchObject({ status: "FAILED", errorKind: "PERMISSION_DENIED" });
    expect(run.errorMessage).toContain(pair.role);
    expect(run.errorMessage).toContain(pair.tier);
    expect(stored).toMatchObject({ status: "FAILED", errorKind: "PERMISSION_DENIED", attempts: [] });
  }
  if (pair.tier === "secret") expect(stored!.input).toBe("[redacted]");
  else expect(stored!.input).toEqual({ note: door });
}

describe("the tier matrix through a direct runtime call", () => {
  for (const pair of PAIRS) {
    it(label(pair), async () => {
      const caller = await rt.keys.verify(keys[pair.role]);
      const before = bodyRuns[pair.tier];
      const run = await rt.dispatcher.run({
        tool: `tier_${pair.tier}`,
        input: { note: "runtime" },
        caller: caller!,
        door: "runtime",
      });
      await expectVerdict(run, pair, "runtime");
      expect(bodyRuns[pair.tier] - before, "body runs").toBe(pair.allowed ? 1 : 0);
    });
  }
});

const DISPATCH = /* GraphQL */ `
  mutation ($input: DispatchInput!) {
    dispatch(input: $input) {
      id
      tool
      status
      errorKind
      errorMessage
      door
      callerRole
    }
  }
`;

describe("the tier matrix through the GraphQL dispatch mutation", () => {
  for (const pair of PAIRS) {
    it(label(pair), async () => {
      const before = bodyRuns[pair.tier];
      const res = await server.yoga.fetch("http://x/graphql", {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${keys[pair.role]}` },
        body: JSON.stringify({
          query: DISPATCH,
          variables: { input: { tool: `tier_${pair.tier}`, input: { note: "graphql" } } },
        }),
      });
      const body = (await res.json()) as { data?: { dispatch: RunRecord }; errors?: unknown[] };
      expect(body.errors, "a forbidden run is data, not a GraphQL error").toBeUndefined();
      expect(body.data!.dispatch).toMatchObject({ door: "graphql", callerRole: pair.role });
      await expectVerdict(body.data!.dispatch, pair, "graphql");
      expect(bodyRuns[pair.tier] - before, "body runs").toBe(pair.allowed ? 1 : 0);
    });
  }
});

describe("the tier matrix through the MCP door (tools/list and tools/call on /mcp)", () => {
  const clients = {} as Record<Role, Client>;
  beforeAll(async () => {
    const url = (await server.start(0, "127.0.0.1")).replace(/\/graphql$/, "/mcp");
    for (const role of ROLES) {
      clients[role] = new Client({ name: "tier-matrix", version: "1.0.0" });
      await clients[role].connect(
        new StreamableHTTPClientTransport(new URL(url), {
          requestInit: { headers: { authorization: `Bearer ${keys[role]}` } },
        }),
      );
    }
  });
  afterAll(async () => {
    for (const role of ROLES) await clients[role]?.close();
  });

  for (const pair of PAIRS) {
    it(label(pair), async () => {
      const listed = (await clients[pair.role].listTools()).tools.some((t) => t.name === `tier_${pair.tier}`);
      expect(listed, "listed exactly when the role may run it").toBe(pair.allowed);
      const before = bodyRuns[pair.tier];
      const result = (await clients[pair.role].callTool({
        name: `tier_${pair.tier}`,
        arguments: { note: "mcp" },
      })) as CallToolResult;
      if (pair.allowed) expect(result.isError, "a permitted run succeeds").toBeFalsy();
      else
        expect(result).toMatchObject({
          isError: true,
          structuredContent: { status: "FAILED", error: { kind: "PERMISSION_DENIED" } },
        });
      const run = await rt.runs.get(result._meta!["tai42/runId"] as string);
      await expectVerdict(run!, pair, "mcp");
      expect(bodyRuns[pair.tier] - before, "body runs").toBe(pair.allowed ? 1 : 0);
    });
  }
});

describe("the tier matrix through the CLI (tai tools run --key)", () => {
  let logDir: string;
  // Each spawn costs about two seconds of CPU: run them a few at a time, one per pair.
  const limit = limiter(3);

  beforeAll(() => {
    logDir = mkdtempSync(join(tmpdir(), "tai-tier-matrix-"));
  });
  afterAll(() => rmSync(logDir, { recursive: true, force: true }));

  for (const pair of PAIRS) {
    it.concurrent(
      label(pair),
      async ({ expect }) => {
        const bodyLog = join(logDir, `${pair.role}-${pair.tier}.log`);
        const cli = await limit(() =>
          runCli(
            ["tools", "run", `tier_${pair.tier}`, "--input", JSON.stringify({ note: "cli" }), "--key", keys[pair.role]],
            {
              DATABASE_URL: databaseUrl,
              TAI_MODULES: "test/fixtures/tier-tools.ts",
              TAI_TEST_BODY_LOG: bodyLog,
            },
          ),
        );
        expect(cli.code, `exit code; stderr: ${cli.stderr}`).toBe(pair.allowed ? 0 : 1);
        const run = JSON.parse(cli.stdout) as RunRecord;
        await expectVerdict(run, pair, "cli");
        if (pair.allowed) expect(readFileSync(bodyLog, "utf8")).toBe(`${pair.tier}\n`);
        else {
          expect(existsSync(bodyLog), "the body never ran").toBe(false);
          expect(cli.stderr).toContain("PERMISSION_DENIED");
        }
      },
      120_000,
    );
  }
});
