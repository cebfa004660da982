import { Command, Option } from "commander";
import { ApiError } from "../errors.ts";
import { scrubRun } from "../secrets/value-fields.ts";
import { keyOf, READ_KEY, type KeyOpt } from "./admin-io.ts";
import { cliCaller, EXIT, parseJsonObject, withRuntime } from "./cli-support.ts";
import { callerAnswer } from "../dispatch/caller-answer.ts";
import { registerCheckCommand } from "./check-command.ts";
import { registerKeysCommands } from "./keys-commands.ts";
import { registerCompositionCommands } from "./composition-commands.ts";
import { registerConnectorCommands } from "./connector-commands.ts";
import { registerScheduleCommands } from "./schedule-commands.ts";
import { registerMcpCommand } from "./mcp-command.ts";
import { registerRunCommands } from "./run-commands.ts";
import { registerTypesCommand } from "./types-command.ts";
import { registerProjectCommands, SKIPS_PROJECT_CONFIG } from "./project-commands.ts";
import { DefinitionError } from "../definition-error.ts";

type RunOptions = { input: Record<string, unknown>; key?: string; idempotencyKey?: string; background?: boolean };

const program = new Command("tai")
  .description("tai42: the OS for AI tools")
  .showHelpAfterError()
  // Commander exits 1 on a usage error, but 1 means "the run FAILED" here; usage is 2.
  .exitOverride((err) => process.exit(err.exitCode === 0 ? EXIT.ok : EXIT.usage))
  // Every command reads the project config file (tai42.config.*), the environment overriding it; `init` and `dev`
  // read it their own way (project-commands.ts).
  .hook("preAction", async (_program, action) => {
    const own = SKIPS_PROJECT_CONFIG.has(action.name()) || action.opts().standby === true;
    if (!own || action.parent !== program) await (await import("./project-file.ts")).applyProjectConfig();
  });

program
  .command("serve")
  .description("serve GraphQL (HTTP, GraphiQL, graphql-ws, SSE) on HOST:PORT")
  // `tai dev`'s next server, loaded and waiting for its turn (dev-supervisor.ts).
  .addOption(new Option("--standby").hideHelp())
  .action(async (opts: { standby?: boolean }) => {
    // The server loads only for `serve` (cli-support.ts says why).
    const { serve } = await import("../server/serve.ts");
    if (opts.standby) await (await import("./dev-supervisor.ts")).standBy();
    const s = await serve();
    const shutdown = (signal: string) => {
      process.stdout.write(`${signal}: draining runs in flight…\n`);
      s.stop().then(
        () => process.exit(0),
        (e) => {
          console.error(e);
          process.exit(1);
        },
      );
    };
    // Installed before "listening" is printed: stdout to a pipe is synchronous, so a
    // supervisor may send SIGTERM as soon as it reads that line.
    process.once("SIGTERM", () => shutdown("SIGTERM"));
    process.once("SIGINT", () => shutdown("SIGINT"));
    // A child of `tai dev`: its supervisor gone, it stops too.
    if (process.send) process.once("disconnect", () => shutdown("disconnect"));
    if (s.firstAdminKey) {
      process.stdout.write(
        `\nFirst start: created the admin API key (shown once, stored hashed):\n\n  ${s.firstAdminKey}\n\n`,
      );
    }
    const config = (await import("./project-file.ts")).usedProjectConfig();
    process.stdout.write(config ? `config: ${config}\n` : "config: none found (environment and defaults)\n");
    const { unknownDefaultProvider } = await import("../agent/providers/registry.ts");
    const unknownDefault = unknownDefaultProvider(s.runtime.agents.providers);
    if (unknownDefault) process.stderr.write(`warning: ${unknownDefault}\n`);
    process.stdout.write(
      `tai42 listening on ${s.url} (GraphiQL: open it in a browser; dashboard: ${new URL("/dashboard", s.url).href}) — database ${s.runtime.provider}, ${s.runtime.surface.list().length} tools\n`,
    );
    process.send?.("listening");
  });

const tools = program.command("tools").description("list and run tools");
tools
  .command("list")
  .description("list the tool surface (what the API serves)")
  .option("--json", "print JSON")
  .option("--all", "also the tools curated off the API, which `tai tools run` and agents still run (marked curated)")
  .option(...READ_KEY)
  .action(async (opts: KeyOpt & { json?: boolean; all?: boolean }) => {
    await withRuntime({ duties: "none", publishes: false }, async (rt) => {
      await cliCaller(rt, keyOf(opts));
      const list = rt.surface.list({ includeCurated: opts.all === true });
      const curated = (e: (typeof list)[number]) => (rt.surface.exposes(e) ? {} : { curated: true });
      if (opts.json) {
        process.stdout.write(
          JSON.stringify(
            list.map((e) => ({
              name: e.name,
              origin: e.origin,
              tier: e.tier,
              description: e.description,
              inputSchema: e.inputSchema,
              ...curated(e),
            })),
            null,
            2,
          ) + "\n",
        );
        return;
      }
      for (const e of list)
        process.stdout.write(
          `${e.name.padEnd(24)} ${e.origin.padEnd(7)} ${e.tier.padEnd(7)} ${rt.surface.exposes(e) ? "" : "(curated) "}${e.description}\n`,
        );
    });
  });

tools
  .command("run")
  .description("run a tool through the chokepoint; exit 0 when it SUCCEEDED, 1 when it FAILED")
  .argument("<name>", "tool name")
  .requiredOption("--input <json>", "input object as JSON", parseJsonObject)
  .option("--key <key>", "API key to run as (default: $TAI_KEY, else the anonymous role)")
  .option("--idempotency-key <key>", "return the first run for a re-issued request")
  .option("--background", "store the run QUEUED for a server to execute, print it and return (`tai runs wait ID`)")
  .action(async (name: string, opts: RunOptions) => {
    await withRuntime({ duties: "runs" }, async (rt) => {
      const caller = await cliCaller(rt, opts.key ?? process.env.TAI_KEY);
      // A secret-tier run's result reaches its caller here, once (`callerAnswer`).
      const run = callerAnswer(
        await rt.dispatcher.runDetailed({
          tool: name,
          input: opts.input,
          caller,
          door: "cli",
          idempotencyKey: opts.idempotencyKey,
          background: opts.background === true,
        }),
      );
      process.stdout.write(JSON.stringify(scrubRun(rt.secrets, run), null, 2) + "\n");
      if (run.status !== "SUCCEEDED" && !(opts.background && run.status === "QUEUED")) {
        process.stderr.write(`${run.status}: ${run.errorKind ?? ""} ${rt.secrets.scrubText(run.errorMessage ?? "")}\n`);
        process.exitCode = EXIT.runFailed;
      }
    });
  });

registerCheckCommand(program);

registerKeysCommands(program);
registerCompositionCommands(program);
registerConnectorCommands(program);
registerScheduleCommands(program);
registerMcpCommand(program);
registerRunCommands(program);
registerTypesCommand(program);
registerProjectCommands(program);

// A reader that stops early (`tai tools list | head`) ends the output, not with a stack trace.
process.stdout.on("error", (e: NodeJS.ErrnoException) => {
  if (e.code !== "EPIPE") throw e;
  process.exit(0);
});

program.parseAsync(process.argv).catch((e: unknown) => {
  // Errors from inside a runtime were scrubbed of its secrets by withRuntime.
  if (e instanceof ApiError) {
    process.stderr.write(`error (${e.code}): ${e.message}\n`);
    for (const i of e.issues) process.stderr.write(`  ${i.path || "/"}: ${i.message}\n`);
  } else if (e instanceof DefinitionError) {
    process.stderr.write(`error (${e.rule}): ${e.message}\n`);
  } else process.stderr.write(`error: ${(e as Error).message ?? e}\n`);
  process.exitCode = EXIT.usage;
});
