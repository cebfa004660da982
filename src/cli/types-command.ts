import { writeFileSync } from "node:fs";
import { InvalidArgumentError, type Command } from "commander";
import { ApiError, type ApiErrorCode } from "../errors.ts";
import { keyOf, READ_KEY, type KeyOpt } from "./admin-io.ts";
import { cliCaller, withRuntime } from "./cli-support.ts";
import type { ToolSchemas } from "./tool-types.ts";

type TypesOpts = KeyOpt & { out?: string; url?: string };

/**
 * `tai types`: TypeScript types of the surface's tool inputs and outputs, from their JSON
 * Schemas, for `createTaiClient<TaiTools>()` (docs/client.md, "Typed tool calls"). The
 * surface is the local runtime's, as `tai tools list` builds it (modules, demo tools,
 * stored presets, the active manifest, connectors), or with `--url` a running server's,
 * read over GraphQL.
 */
export function registerTypesCommand(program: Command): void {
  program
    .command("types")
    .description("write TypeScript types of the surface's tool inputs and outputs (for createTaiClient<TaiTools>)")
    .option("--out <file>", "write the module to this file (default: stdout)")
    .option(
      "--url <url>",
      "read the surface of the server whose /graphql is at this URL, not the local runtime",
      parseUrl,
    )
    .option(...READ_KEY)
    .action(async (opts: TypesOpts) => {
      const key = keyOf(opts);
      const tools = opts.url ? await remoteTools(opts.url, key) : await localTools(key);
      const { renderToolTypes } = await import("./tool-types.ts");
      const text = await renderToolTypes(tools, opts.url ? shownUrl(opts.url) : "the local runtime");
      if (!opts.out) return void process.stdout.write(text);
      writeFileSync(opts.out, text);
      process.stderr.write(`wrote the types of ${tools.length} tools to ${opts.out}\n`);
    });
}

/** The tools `tai tools list` lists, with their schemas. */
async function localTools(key: string | undefined): Promise<ToolSchemas[]> {
  return withRuntime({ duties: "none", publishes: false }, async (rt) => {
    await cliCaller(rt, key);
    return rt.surface.list().map((e) => ({ name: e.name, inputSchema: e.inputSchema, outputSchema: e.outputSchema }));
  });
}

/** The tools a running server serves (`Query.tools`), read with tai42's own client as the `key` holder. */
async function remoteTools(url: string, key: string | undefined): Promise<ToolSchemas[]> {
  const { createTaiClient, graphql, TaiGraphQLError } = await import("../client/index.ts");
  const tai = createTaiClient({ url, apiKey: key });
  try {
    const { tools } = await tai.request(
      graphql(`
        query TaiTypes {
          tools {
            name
            inputSchema
            outputSchema
          }
        }
      `),
    );
    return tools;
  } catch (e) {
    if (e instanceof TaiGraphQLError)
      throw new ApiError(apiCode(e.code), `${shownUrl(url)} refused to list its tools: ${e.message}`);
    throw new ApiError("UNAVAILABLE", `cannot read the tools of ${shownUrl(url)}: ${(e as Error).message}`);
  } finally {
    await tai.close();
  }
}

const CODES: readonly ApiErrorCode[] = ["UNAUTHENTICATED", "FORBIDDEN", "BAD_USER_INPUT", "NOT_FOUND", "UNAVAILABLE"];

/** The server's error code as the CLI reports it (exit 2 either way). */
const apiCode = (code: string | undefined): ApiErrorCode => CODES.find((c) => c === code) ?? "UNAVAILABLE";

/** `--url`: an absolute http(s) URL. */
function parseUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgumentError("must be an absolute URL of a server's /graphql (http://host:port/graphql)");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new InvalidArgumentError("must be http(s)");
  return url.href;
}

/** The URL as the generated header names it: no credentials, no query. */
function shownUrl(url: string): string {
  const u = new URL(url);
  return `${u.origin}${u.pathname}`;
}
