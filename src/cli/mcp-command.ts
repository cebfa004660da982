import type { Command } from "commander";
import { cliCaller, withRuntime } from "./cli-support.ts";

/**
 * `tai mcp`: MCP over stdio for a desktop client (docs/mcp.md), as the `--key` (or
 * `$TAI_KEY`) holder, else the anonymous role. stdout carries the protocol and nothing
 * else: logs go to stderr, and so does anything a loaded module prints with `console`.
 */
export function registerMcpCommand(program: Command): void {
  program
    .command("mcp")
    .description("serve MCP over stdio (for desktop clients) as the --key holder")
    .option("--key <key>", "API key to run as (default: $TAI_KEY, else the anonymous role)")
    .action(async (opts: { key?: string }) => {
      console.log = console.info = console.debug = console.warn = (...args: unknown[]) => console.error(...args);
      const { serveStdio } = await import("../mcp/stdio-door.ts");
      await withRuntime({ duties: "runs" }, async (rt) => {
        const served = await serveStdio(rt, await cliCaller(rt, opts.key ?? process.env.TAI_KEY));
        const stop = () => void served.stop();
        process.once("SIGTERM", stop);
        process.once("SIGINT", stop);
        await served.closed;
      });
    });
}
