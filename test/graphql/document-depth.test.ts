import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp, type TaiServer } from "../../src/server/build-app.ts";
import { MAX_JSON_DEPTH } from "../../src/tools/json-depth.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { collect, wsClient } from "./support.ts";

/**
 * A GraphQL document nested too deep is refused before graphql-js parses it (its parser
 * recurses on object and list literals and on selection sets; thousands of levels
 * overflowed the stack as "Unexpected error."), on every transport, and the server goes on
 * (docs/security-model.md §6).
 */
const objectLiteral = (n: number) => "{a: ".repeat(n) + "1" + "}".repeat(n);
const listLiteral = (n: number) => "[".repeat(n) + "1" + "]".repeat(n);
const dispatchWith = (literal: string) =>
  `mutation { dispatch(input: { tool: "echo", input: { text: ${literal} } }) { status } }`;
const selections = (n: number) => "{ a ".repeat(n) + "}".repeat(n);
const VALUE_LIMIT = `an input value in the document is nested deeper than ${MAX_JSON_DEPTH} levels`;

let rt: TestRuntime;
let server: TaiServer;
let url = "";
beforeAll(async () => {
  rt = await testRuntime();
  server = buildApp(rt);
  url = await server.start(0, "127.0.0.1");
});
afterAll(async () => {
  await server?.stop();
  await rt?.dispose();
});

const post = async (query: string) =>
  (
    await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query }),
    })
  ).json();

async function expectAlive(): Promise<void> {
  expect(
    await post(`mutation { dispatch(input: { tool: "echo", input: { text: "still here" } }) { status } }`),
  ).toEqual({ data: { dispatch: { status: "SUCCEEDED" } } });
}

describe("a GraphQL document nested too deep is BAD_USER_INPUT naming the limit, before it is parsed", () => {
  for (const depth of [2_400, 100_000])
    for (const [kind, literal] of [
      ["object", objectLiteral(depth)],
      ["list", listLiteral(depth)],
    ] as const)
      it(`should refuse a ${depth}-deep ${kind} literal over HTTP POST, and go on`, async () => {
        const body = await post(dispatchWith(literal));
        expect(body).toEqual({
          errors: [
            { message: `the operation exceeds a server limit: ${VALUE_LIMIT}`, extensions: { code: "BAD_USER_INPUT" } },
          ],
        });
        await expectAlive();
      });

  it("should refuse a 100000-deep selection set, naming its limit", async () => {
    const body = await post(selections(100_000));
    expect(body.errors).toMatchObject([
      {
        message: expect.stringContaining("selection sets are nested deeper than 64 levels"),
        extensions: { code: "BAD_USER_INPUT" },
      },
    ]);
    await expectAlive();
  });

  it("should refuse a 2400-deep literal over SSE and over graphql-ws, the socket staying open", async () => {
    const document = `subscription { toolsChanged(filter: ${objectLiteral(2_400)}) { at } }`;
    const sse = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({ query: document }),
    });
    const text = await sse.text();
    expect(text).toContain(VALUE_LIMIT);
    expect(text).not.toContain("Unexpected error");

    const client = wsClient(url);
    try {
      const refused = collect(client, document);
      await refused.waitForEnd();
      expect(refused.errors).toMatchObject([
        { message: `the operation exceeds a server limit: ${VALUE_LIMIT}`, extensions: { code: "BAD_USER_INPUT" } },
      ]);
      // The same socket still serves.
      const next = collect<{ __typename: string }>(client, `query { __typename }`);
      await next.waitForEnd();
      expect(next.data).toEqual([{ __typename: "Query" }]);
    } finally {
      await client.dispose();
    }
  });

  it(`should still parse and run a literal ${MAX_JSON_DEPTH} levels deep counted from its argument`, async () => {
    // dispatch's input object, its input field and `text` are three of the levels.
    const body = await post(
      dispatchWith(listLiteral(MAX_JSON_DEPTH - 3)).replace("{ status }", "{ status errorKind errorMessage }"),
    );
    // The run itself refuses it: echo's text is a string, not a list (the depth is within bounds).
    expect(body).toEqual({
      data: {
        dispatch: {
          status: "FAILED",
          errorKind: "INVALID_INPUT",
          errorMessage: expect.stringContaining("must be string"),
        },
      },
    });
  });
});
