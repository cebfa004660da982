import { afterEach, describe, expect, it } from "vitest";
import { gqlClient } from "../helpers/gql.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { META_SCHEMA, shapedApp } from "./modules/shaped-extension.ts";

const PUT = `mutation($input: ManifestInput!) { putManifest(input: $input) { name version document } }`;
const shapedOn = (schema: unknown) => ({
  name: "shaped",
  document: { extensions: { echo: [{ name: "shaped", config: { schema } }] } },
});

describe("an extension setting declared as a $ref to the draft 2020-12 meta-schema", () => {
  let rt: TestRuntime | undefined;
  afterEach(async () => {
    await rt?.dispose();
    rt = undefined;
  });

  async function serve() {
    rt = await testRuntime({ app: shapedApp() });
    return { gql: gqlClient(rt), admin: await rt.keys.create("ops", "ADMIN") };
  }

  it("should register, and the catalog should serve the $ref as declared", async () => {
    const { gql, admin } = await serve();
    const res = await gql<{ extensions: { name: string; configSchema: Record<string, any> }[] }>(
      `{ extensions { name configSchema } }`,
      {},
      admin,
    );
    expect(res.errors).toBeUndefined();
    const shaped = res.data!.extensions.find((e) => e.name === "shaped");
    expect(shaped?.configSchema.properties.schema.$ref).toBe(META_SCHEMA);
  });

  it("should store a manifest whose setting is a valid JSON Schema, and give it back unchanged", async () => {
    const { gql, admin } = await serve();
    const schema = { type: "object", properties: { city: { type: "string", minLength: 1 } }, required: ["city"] };
    const res = await gql<{ putManifest: { document: any } }>(PUT, { input: shapedOn(schema) }, admin);
    expect(res.errors).toBeUndefined();
    expect(res.data!.putManifest.document.extensions.echo[0].config.schema).toEqual(schema);
  });

  it("should refuse a setting the meta-schema refuses, naming the extension, the tool and the path", async () => {
    const { gql, admin } = await serve();
    const res = await gql(PUT, { input: shapedOn({ type: "object", properties: { city: { type: "town" } } }) }, admin);
    expect(res.errors?.[0]?.extensions?.code).toBe("BAD_USER_INPUT");
    expect(res.errors?.[0]?.extensions?.issues).toEqual([
      {
        path: "/document/extensions/echo/0",
        message: expect.stringMatching(
          /^extension "shaped" on tool "echo": invalid settings: \/schema\/properties\/city\/type: must be one of/,
        ),
      },
    ]);
    expect(await rt!.manifests.get("shaped")).toBeNull();
  });
});
