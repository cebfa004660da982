import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { App } from "../../src/app.ts";
import { fileConfigProvider } from "../../src/plugins/config-provider.ts";
import { DefinitionError } from "../../src/definition-error.ts";
import { gqlClient } from "../helpers/gql.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";

const FILE_SECRET = "file-secret-7a6b5c4d3e2f";
const ENV_SECRET = "env-secret-1q2w3e4r5t";

let dir: string;
let rt: TestRuntime | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tai42-config-"));
});
afterEach(async () => {
  await rt?.dispose();
  rt = undefined;
  rmSync(dir, { recursive: true, force: true });
  delete process.env.PLUGIN_ENV_ONLY;
  delete process.env.PLUGIN_BOTH;
});

/** A runtime whose app has an echoing tool and the given plugin-registering step. */
async function runtimeWith(register: (app: App) => void) {
  const app = new App();
  app.tool(
    { name: "call_api", description: "Echoes the token it was given.", input: z.object({ token: z.string() }) },
    ({ token }, ctx) => {
      ctx.log.info("calling", { token });
      // Three characters are below the scrubbing threshold: they tell which value arrived.
      return { sent: `Bearer ${token}`, last3: token.slice(-3) };
    },
  );
  register(app);
  rt = await testRuntime({ app });
  const gql = gqlClient(rt);
  const admin = await rt.keys.create("admin", "ADMIN");
  const responses: string[] = [];
  const call = async (query: string) => {
    const r = await gql(query, {}, admin);
    responses.push(r.text);
    return r;
  };
  return { rt, call, responses };
}

const preset = (name: string, variable: string) =>
  `mutation { createPreset(input: { name: "${name}", description: "x", baseTool: "call_api", fixedKwargs: { token: "!ENV ${variable}" } }) { name } }`;
const dispatch = (name: string) =>
  `mutation { dispatch(input: { tool: "${name}", input: {} }) { id status data errorKind errorMessage } }`;

describe("seed 000: a plugin — a config provider — extends the whole platform", () => {
  it("should resolve !ENV from the process environment by default", async () => {
    process.env.PLUGIN_ENV_ONLY = ENV_SECRET;
    const { call } = await runtimeWith(() => {});
    await call(preset("p", "PLUGIN_ENV_ONLY"));
    const run = await call(dispatch("p"));
    expect(run.data!.dispatch).toMatchObject({
      status: "SUCCEEDED",
      data: { sent: "Bearer [redacted]", last3: ENV_SECRET.slice(-3) },
    });
  });

  it("should resolve !ENV through a JSON file config provider, with the same secrecy: never in a response, stored row or log line", async () => {
    const path = join(dir, "secrets.json");
    writeFileSync(path, JSON.stringify({ FILE_TOKEN: FILE_SECRET }));
    const { call, responses, rt } = await runtimeWith((app) =>
      app.plugin({ name: "vault-file", configProvider: fileConfigProvider(path) }),
    );
    await call(preset("from_file", "FILE_TOKEN"));
    const run = await call(dispatch("from_file"));
    // The body received the file's value; every record of it is scrubbed.
    expect(run.data!.dispatch).toMatchObject({
      status: "SUCCEEDED",
      data: { sent: "Bearer [redacted]", last3: FILE_SECRET.slice(-3) },
    });
    await call(
      `{ presets { fixedKwargs } run(id: "${run.data!.dispatch.id}") { input data content { text } events { type } } }`,
    );
    const everywhere = {
      "stored rows": JSON.stringify([
        await rt.db.run.findMany(),
        await rt.db.runEvent.findMany(),
        await rt.db.preset.findMany(),
        await rt.db.attempt.findMany(),
        await rt.db.span.findMany(),
      ]),
      responses: responses.join("\n"),
      "log lines": rt.logLines.join("\n"),
    };
    for (const [where, text] of Object.entries(everywhere)) expect(text, where).not.toContain(FILE_SECRET);
    expect(everywhere["stored rows"]).toContain("!ENV FILE_TOKEN");
    expect(everywhere["log lines"]).toContain("[redacted]");
  });

  it("should read a dotenv file, consult plugins before the process environment, and fall back to the environment for names the file lacks", async () => {
    const path = join(dir, "app.env");
    writeFileSync(path, `# comment\nPLUGIN_BOTH="${FILE_SECRET}"\nexport OTHER=x-value\n`);
    process.env.PLUGIN_BOTH = "env-value-not-used";
    process.env.PLUGIN_ENV_ONLY = ENV_SECRET;
    const { call } = await runtimeWith((app) =>
      app.plugin({ name: "dotenv", configProvider: fileConfigProvider(path) }),
    );
    await call(preset("both", "PLUGIN_BOTH"));
    await call(preset("env_only", "PLUGIN_ENV_ONLY"));
    expect((await call(dispatch("both"))).data!.dispatch).toMatchObject({
      status: "SUCCEEDED",
      data: { sent: "Bearer [redacted]", last3: FILE_SECRET.slice(-3) },
    });
    expect((await call(dispatch("env_only"))).data!.dispatch).toMatchObject({
      status: "SUCCEEDED",
      data: { sent: "Bearer [redacted]", last3: ENV_SECRET.slice(-3) },
    });
  });

  it("should fail the run naming the file (and line), never its content, when the file is malformed", async () => {
    const json = join(dir, "broken.json");
    writeFileSync(json, `{"FILE_TOKEN": "${FILE_SECRET}",,}`);
    const env = join(dir, "broken.env");
    writeFileSync(env, `GOOD=1\n${FILE_SECRET} no equals sign\n`);
    const { call, responses, rt } = await runtimeWith((app) => {
      app.plugin({ name: "broken-json", configProvider: fileConfigProvider(json) });
      app.plugin({ name: "broken-env", configProvider: fileConfigProvider(env) });
    });
    await call(preset("p", "FILE_TOKEN"));
    const run = await call(dispatch("p"));
    expect(run.data!.dispatch).toMatchObject({
      status: "FAILED",
      errorKind: "INTERNAL",
      errorMessage: `preset "p": config provider file:${json}: the file is not valid JSON`,
    });
    writeFileSync(json, "{}");
    const again = await call(dispatch("p"));
    expect(again.data!.dispatch.errorMessage).toBe(`preset "p": config provider file:${env}: line 2 is not NAME=value`);
    expect(responses.join("\n")).not.toContain(FILE_SECRET);
    expect(rt.logLines.join("\n")).not.toContain(FILE_SECRET);
  });

  it("should refuse a malformed plugin, a second plugin of the same name and a strategy or provider name already taken, naming the rule", () => {
    const app = new App();
    expect(() => app.plugin({ name: "bad name!" } as never)).toThrow(DefinitionError);
    expect(() => app.plugin({ name: "x", configProvider: { name: "c" } } as never)).toThrow(
      /configProvider.lookup must be a function/,
    );
    expect(() => app.plugin({ name: "x", unknownKind: {} } as never)).toThrow(DefinitionError);
    app.plugin({
      name: "one",
      storeProviders: {
        kv: { get: async () => undefined, put: async () => {}, delete: async () => {}, list: async () => [] },
      },
    });
    expect(() => app.plugin({ name: "one" })).toThrow('a plugin named "one" is already registered on this app');
    expect(() =>
      app.plugin({
        name: "two",
        storeProviders: {
          kv: { get: async () => undefined, put: async () => {}, delete: async () => {}, list: async () => [] },
        },
      }),
    ).toThrow('plugin "two": a store provider named "kv" is already registered on this app');
    expect([...app.plugins.keys()]).toEqual(["one"]);
    app.strategy("mine", async function* () {});
    expect(() => app.strategy("mine", async function* () {})).toThrow(
      'a strategy named "mine" is already registered on this app',
    );
    expect(() => app.plugin({ name: "three", strategies: { mine: async function* () {} } })).toThrow(
      'plugin "three": a strategy named "mine" is already registered on this app',
    );
    expect(() => app.strategy("bad name", async function* () {})).toThrow(DefinitionError);
    expect(() => app.strategy("ok", "not a function" as never)).toThrow("the strategy must be a function");
  });
});
