import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp, type TaiServer } from "../../src/server/build-app.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { sseReader, until } from "../graphql/support.ts";

const ADMIN_KEY = "tai_StreamOracleAdminKey_0123456789";
const QUERY = `subscription($input: AgentRunInput!) { agentStream(input: $input) { __typename ... on MessageDelta { text } } }`;

describe("agent message deltas and the secrets they are scrubbed of", () => {
  let rt: TestRuntime;
  let server: TaiServer;
  beforeAll(async () => {
    rt = await testRuntime({ env: { TAI_ADMIN_KEY: ADMIN_KEY } });
    server = buildApp(rt);
  });
  afterAll(async () => {
    await rt?.dispose();
  });

  /** The MessageDelta texts an anonymous caller sees when the scripted model echoes `text`. */
  async function deltas(text: string): Promise<string[]> {
    const res = await server.yoga.fetch("http://localhost/graphql", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({
        query: QUERY,
        variables: { input: { userMessage: `echo ${text}`, toolNames: ["echo"] } },
      }),
    });
    const reader = sseReader(res);
    await until("the stream to end", () => reader.ended(), 15_000);
    return reader
      .nexts<{ agentStream: { __typename: string; text?: string } }>()
      .map((n) => n.data?.agentStream)
      .filter((e) => e?.__typename === "MessageDelta")
      .map((e) => e!.text!);
  }

  it("should cut the deltas the same way whether or not the text starts a secret, so their cuts tell nothing of it", async () => {
    const starts = await deltas(`#${ADMIN_KEY.slice(0, 8)}`);
    const other = await deltas(`#${"tai_Xtre"}`);
    expect(starts.map((d) => d.length)).toEqual(other.map((d) => d.length));
    expect(starts.join("")).toContain(ADMIN_KEY.slice(0, 8));
  });

  it("should still stream a whole secret as [redacted]", async () => {
    const text = (await deltas(`#${ADMIN_KEY}`)).join("");
    expect(text).not.toContain(ADMIN_KEY);
    expect(text).toContain("[redacted]");
  });
});
