import { z } from "zod";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { App } from "../../src/app.ts";
import type { ConnectorKind } from "../../src/connectors/connector-kind.ts";
import { ApiError, ToolError } from "../../src/errors.ts";
import { databaseText } from "../helpers/database-text.ts";
import { as, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { until } from "../graphql/support.ts";
import { fakeKinds, fakeTool } from "../fixtures/connector-kinds.ts";

const SECRET = "tok-review-7c1e0a-secret";
const fake = fakeKinds("fake");

/** A one-shot gate on `list()`: the next listing is taken, then held until released. */
const gate = { armed: false, entered: false, release: (): void => {}, held: Promise.resolve() };
const arm = () => {
  gate.armed = true;
  gate.entered = false;
  gate.held = new Promise<void>((r) => (gate.release = r));
};
const gated: ConnectorKind = {
  ...fake.kind,
  name: "gated",
  connect: async (env) => {
    const conn = await fake.kind.connect(env);
    return {
      ...conn,
      list: async () => {
        const listing = await conn.list();
        if (gate.armed) {
          gate.armed = false;
          gate.entered = true;
          await gate.held;
        }
        return listing;
      },
    };
  },
};

/** A kind whose connect hangs until the test lets it through (then it connects to the fake upstream). */
let letThrough: () => void = () => {};
const hanging: ConnectorKind = {
  ...fake.kind,
  name: "hanging",
  connect: async (env) => {
    await new Promise<void>((r) => (letThrough = r));
    return fake.kind.connect(env);
  },
};

/** A plugin kind that seals every element of an array setting (`keys/*`). */
const arrays: ConnectorKind = {
  ...fake.kind,
  name: "arrays",
  settings: z.strictObject({ upstream: z.string(), keys: z.array(z.string()).optional() }),
  sealed: ["keys/*"],
};

let rt: TestRuntime;
beforeAll(async () => {
  const app = new App();
  app.plugin({ name: "review-kinds", connectors: { fake: fake.kind, gated, hanging, arrays } });
  process.env.REVIEW_TOKEN = SECRET;
  rt = await testRuntime({ app, env: { TAI_CONNECTOR_CONNECT_SECONDS: "2" } });
}, 120_000);
afterAll(async () => rt?.dispose());

const refusal = async (p: Promise<unknown>): Promise<ApiError> => {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(ApiError);
  return e as ApiError;
};

describe("connector review: secrets in upstream listing failures", () => {
  it("refuses a put whose upstream's list error echoes the resolved token without repeating the token", async () => {
    fake.upstream("echoer").failList = new ToolError(`401: token ${SECRET} is not valid`, { kind: "UNAVAILABLE" });
    const e = await refusal(
      rt.connectors.put(as("ADMIN"), {
        name: "echoer",
        kind: "fake",
        settings: { upstream: "echoer", token: "!ENV REVIEW_TOKEN" },
      }),
    );
    expect(e.code).toBe("BAD_USER_INPUT");
    expect(e.issues.map((i) => i.path)).toEqual(["/settings"]);
    expect(JSON.stringify({ message: e.message, issues: e.issues })).not.toContain(SECRET);
    expect(await rt.connectors.get(as("ADMIN"), "echoer")).toBeNull();
    expect(fake.upstream("echoer").open).toBe(0);
  });

  it("records a refresh whose list error echoes the token as refreshError without the token, in no row or log line", async () => {
    const up = fake.upstream("echoer2");
    await rt.connectors.put(as("ADMIN"), {
      name: "echoer2",
      kind: "fake",
      settings: { upstream: "echoer2", token: "!ENV REVIEW_TOKEN" },
    });
    up.failList = new ToolError(`upstream said: bad bearer ${SECRET}`, { kind: "UNAVAILABLE" });
    const { connector } = await rt.connectors.refresh(as("ADMIN"), "echoer2");
    expect(connector.refreshError).toContain("bad bearer");
    expect(JSON.stringify(connector)).not.toContain(SECRET);
    expect(await databaseText(rt.config.databaseUrl)).not.toContain(SECRET);
    expect(rt.logLines.join("\n")).not.toContain(SECRET);
    up.failList = null;
  });
});

describe("connector review: a refresh racing a put", () => {
  it("does not store the listing a refresh took before a put replaced the connector", async () => {
    const up = fake.upstream("race");
    up.tools = [fakeTool("echo"), fakeTool("write_thing", "write")];
    await rt.connectors.put(as("ADMIN"), { name: "race", kind: "gated", settings: { upstream: "race" } });
    up.tools = [fakeTool("echo"), fakeTool("write_thing", "write"), fakeTool("stale_tool", "write")];
    arm();
    const refreshing = rt.connectors.refresh(as("ADMIN"), "race");
    await until("the refresh listed", () => gate.entered);
    up.tools = [fakeTool("echo")];
    const { connector } = await rt.connectors.put(
      as("ADMIN"),
      { name: "race", kind: "gated", description: "v2", settings: { upstream: "race" } },
      1,
    );
    expect(connector.tools.map((t) => t.surfaceName)).toEqual(["race_echo"]);
    gate.release();
    await refreshing;
    const now = await rt.connectors.get(as("ADMIN"), "race");
    expect(now?.tools.map((t) => t.surfaceName)).toEqual(["race_echo"]);
    expect(rt.surface.resolve("race_stale_tool")).toBeUndefined();
    expect(rt.surface.resolve("race_write_thing")).toBeUndefined();
  });
});

describe("connector review: a put whose probe hangs", () => {
  it("refuses the put after its bound, stores nothing, and closes the connection that opens late", async () => {
    const before = await rt.connectors.list(as("ADMIN"));
    const started = Date.now();
    const e = await refusal(
      rt.connectors.put(as("ADMIN"), { name: "hang", kind: "hanging", settings: { upstream: "hang" } }),
    );
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(e.code).toBe("BAD_USER_INPUT");
    expect(e.issues).toEqual([{ path: "/settings", message: expect.stringContaining("did not connect within 2 s") }]);
    expect(await rt.connectors.list(as("ADMIN"))).toHaveLength(before.length);
    letThrough();
    await until("the late connection opened", () => fake.upstream("hang").connects === 1);
    await until("the late connection closed", () => fake.upstream("hang").open === 0);
  });
});

describe("connector review: sealed settings and denied markers", () => {
  it("refuses a literal inside an array at a sealed path, at the element's path, storing nothing", async () => {
    const e = await refusal(
      rt.connectors.put(as("ADMIN"), {
        name: "arr",
        kind: "arrays",
        settings: { upstream: "arr", keys: ["!ENV REVIEW_TOKEN", "literal-key-1"] },
      }),
    );
    expect(e.code).toBe("BAD_USER_INPUT");
    expect(e.issues).toEqual([{ path: "/settings/keys/1", message: expect.stringContaining("!ENV marker") }]);
    expect(await rt.connectors.get(as("ADMIN"), "arr")).toBeNull();
    expect(await databaseText(rt.config.databaseUrl)).not.toContain("literal-key-1");
  });

  it("refuses markers naming TAI_ADMIN_KEY or DATABASE_URL at their paths", async () => {
    const e = await refusal(
      rt.connectors.put(as("ADMIN"), {
        name: "deny",
        kind: "fake",
        settings: { upstream: "deny", token: "!ENV TAI_ADMIN_KEY", headers: { x: "!ENV DATABASE_URL" } },
      }),
    );
    expect(e.code).toBe("BAD_USER_INPUT");
    expect(e.issues.map((i) => i.path).sort()).toEqual(["/settings/headers/x", "/settings/token"]);
    expect(await rt.connectors.get(as("ADMIN"), "deny")).toBeNull();
    expect(fake.upstream("deny").connects).toBe(0);
  });
});

describe("connector review: two puts racing", () => {
  it("lets one of two puts with the same expectedVersion win, refuses the other CONFLICT, and leaves one connection open", async () => {
    await rt.connectors.put(as("ADMIN"), { name: "duo", kind: "fake", settings: { upstream: "duo" } });
    const results = await Promise.allSettled(
      ["a", "b"].map((d) =>
        rt.connectors.put(as("ADMIN"), { name: "duo", kind: "fake", description: d, settings: { upstream: "duo" } }, 1),
      ),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const lost = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
    expect(lost.reason).toBeInstanceOf(ApiError);
    expect((lost.reason as ApiError).code).toBe("CONFLICT");
    expect((await rt.connectors.get(as("ADMIN"), "duo"))?.version).toBe(2);
    await until("the loser's probe closed", () => fake.upstream("duo").open === 1);
  });
});

describe("connector review: an upstream flipping readOnlyHint", () => {
  it("keeps a write tool at write after a refresh proposes read, so a READER is denied without calling the upstream", async () => {
    const up = fake.upstream("flip");
    up.tools = [fakeTool("w", "write")];
    await rt.connectors.put(as("ADMIN"), { name: "flip", kind: "fake", settings: { upstream: "flip" } });
    up.tools = [fakeTool("w", "read")];
    const { connector } = await rt.connectors.refresh(as("ADMIN"), "flip");
    expect(connector.tools.map((t) => [t.surfaceName, t.proposedTier, t.tier])).toEqual([["flip_w", "read", "write"]]);
    const run = await rt.dispatcher.run({
      tool: "flip_w",
      input: { text: "x" },
      caller: as("READER"),
      door: "runtime",
    });
    expect(run.errorKind).toBe("PERMISSION_DENIED");
    expect(up.calls).toHaveLength(0);
  });

  it("keeps the pin of a tool that left the listing: removed, then listed again with readOnlyHint, it is still write", async () => {
    const up = fake.upstream("comeback");
    up.tools = [fakeTool("w", "write"), fakeTool("r", "read")];
    await rt.connectors.put(as("ADMIN"), { name: "comeback", kind: "fake", settings: { upstream: "comeback" } });
    up.tools = [fakeTool("r", "read")];
    await rt.connectors.refresh(as("ADMIN"), "comeback");
    up.tools = [fakeTool("r", "read"), fakeTool("w", "read")];
    const { connector } = await rt.connectors.refresh(as("ADMIN"), "comeback");
    expect(connector.tools.map((t) => [t.surfaceName, t.proposedTier, t.tier])).toEqual([
      ["comeback_r", "read", "read"],
      ["comeback_w", "read", "write"],
    ]);
    const run = await rt.dispatcher.run({
      tool: "comeback_w",
      input: { text: "x" },
      caller: as("READER"),
      door: "runtime",
    });
    expect(run.errorKind).toBe("PERMISSION_DENIED");
    expect(up.calls).toHaveLength(0);
  });
});
