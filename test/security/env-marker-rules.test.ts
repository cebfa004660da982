import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { gqlClient } from "../helpers/gql.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";

const VALUE = "marker-rules-value-4d3c2b1a";

const createPreset = (name: string, marker: string) =>
  `mutation { createPreset(input: { name: "${name}", description: "x", baseTool: "echo", fixedKwargs: { text: "${marker}" } }) { name } }`;

describe("who may reference the environment (security model §4)", () => {
  let rt: TestRuntime;
  let gql: ReturnType<typeof gqlClient>;
  let admin: string;
  let user: string;
  beforeEach(async () => {
    for (const n of ["EXT_RULES_OK", "DATABASE_URL_COPY", "INTERNAL_TOKEN", "VAULT_ROOT", "VAULT_ADDR"])
      process.env[n] = VALUE;
    rt = await testRuntime({ env: { TAI_ENV_DENY: "INTERNAL_TOKEN, VAULT_*" } });
    gql = gqlClient(rt);
    admin = await rt.keys.create("admin", "ADMIN");
    user = await rt.keys.create("user", "USER");
  });
  afterEach(async () => {
    for (const n of ["EXT_RULES_OK", "DATABASE_URL_COPY", "INTERNAL_TOKEN", "VAULT_ROOT", "VAULT_ADDR"])
      delete process.env[n];
    await rt.dispose();
  });

  it("should let an ADMIN write a marker and run it", async () => {
    expect((await gql(createPreset("ok", "!ENV EXT_RULES_OK"), {}, admin)).errors).toBeUndefined();
    const r = await gql(`mutation { dispatch(input: { tool: "ok", input: {} }) { status data } }`, {}, admin);
    expect(r.data!.dispatch).toEqual({ status: "SUCCEEDED", data: null });
    expect(r.text).not.toContain(VALUE);
  });

  it("should refuse a USER's marker with FORBIDDEN naming the path, on create and on update, storing nothing", async () => {
    const created = await gql(createPreset("mine", "!ENV EXT_RULES_OK"), {}, user);
    expect(created.errors?.[0].extensions).toMatchObject({
      code: "FORBIDDEN",
      issues: [{ path: "/fixedKwargs/text" }],
    });
    expect(await rt.db.preset.count()).toBe(0);
    await gql(createPreset("mine", "plain"), {}, user);
    const updated = await gql(
      `mutation { updatePreset(name: "mine", expectedVersion: 1, input: { name: "mine", description: "x", baseTool: "echo", fixedKwargs: { text: "!ENV EXT_RULES_OK" } }) { version } }`,
      {},
      user,
    );
    expect(updated.errors?.[0].extensions?.code).toBe("FORBIDDEN");
    expect((await rt.db.preset.findUnique({ where: { name: "mine" } }))!.fixedKwargs).toEqual({ text: "plain" });
  });

  it("should let only an ADMIN rewrite or delete a preset an ADMIN wrote with a marker", async () => {
    await gql(createPreset("vault", "!ENV EXT_RULES_OK"), {}, admin);
    const updated = await gql(
      `mutation { updatePreset(name: "vault", expectedVersion: 1, input: { name: "vault", description: "x", baseTool: "echo", fixedKwargs: { text: "plain" } }) { version } }`,
      {},
      user,
    );
    expect(updated.errors?.[0].extensions?.code).toBe("FORBIDDEN");
    const deleted = await gql(`mutation { deletePreset(name: "vault") }`, {}, user);
    expect(deleted.errors?.[0].extensions?.code).toBe("FORBIDDEN");
    expect((await rt.db.preset.findUnique({ where: { name: "vault" } }))!.fixedKwargs).toEqual({
      text: "!ENV EXT_RULES_OK",
    });
  });

  it("should refuse, even for an ADMIN, a marker naming TAI_*, DATABASE_URL, REDIS_URL or a TAI_ENV_DENY name, with INVALID_INPUT naming the variable", async () => {
    for (const name of ["TAI_ANYTHING", "DATABASE_URL", "REDIS_URL", "INTERNAL_TOKEN", "VAULT_ROOT", "VAULT_ADDR"]) {
      const r = await gql(createPreset(`p_${name.toLowerCase()}`, `!ENV ${name}`), {}, admin);
      expect(r.errors?.[0].extensions?.code, name).toBe("INVALID_INPUT");
      expect(r.errors?.[0].message).toContain(name);
    }
    expect(await rt.db.preset.count()).toBe(0);
    // Only the listed names and prefixes are denied.
    expect((await gql(createPreset("copy", "!ENV DATABASE_URL_COPY"), {}, admin)).errors).toBeUndefined();
  });

  it("should refuse a manifest whose extension settings name server configuration", async () => {
    const r = await gql(
      `mutation($i: ManifestInput!) { putManifest(input: $i) { name } }`,
      {
        i: {
          name: "m",
          document: {
            extensionsModules: ["tai42/contrib"],
            extensions: { echo: [{ name: "label", config: { label: "!ENV TAI_ADMIN_KEY" } }] },
          },
        },
      },
      admin,
    );
    expect(r.errors?.[0].extensions?.code).toBe("INVALID_INPUT");
    expect(r.errors?.[0].message).toContain("TAI_ADMIN_KEY");
    expect(await rt.db.manifest.count()).toBe(0);
  });

  it("should refuse a marker in an agent's inline preset", async () => {
    const r = await gql(
      `mutation($i: AgentRunInput!) { runAgent(input: $i) { runId } }`,
      {
        i: {
          userMessage: "hi",
          presets: [{ name: "p", description: "x", baseTool: "echo", fixedKwargs: { text: "!ENV EXT_RULES_OK" } }],
        },
      },
      admin,
    );
    expect(JSON.stringify(r.errors)).toContain("!ENV markers are not allowed in inline presets");
  });
});
