import { Command, InvalidArgumentError } from "commander";
import { cliCaller, EXIT, withRuntime } from "./cli-support.ts";
import { isFinal, type RunRecord } from "../dispatch/run-record.ts";
import type { Runtime } from "../runtime.ts";
import { scrubRun } from "../secrets/value-fields.ts";
import { SETTLED_STATUSES, type SettledStatus } from "../dispatch/run-operator.ts";

/** Prints a run as `tai tools run` does: JSON on stdout; not SUCCEEDED, a line on stderr and exit 1. */
export function printRun(rt: Runtime, run: RunRecord): void {
  process.stdout.write(JSON.stringify(scrubRun(rt.secrets, run), null, 2) + "\n");
  if (run.status !== "SUCCEEDED" && run.status !== "QUEUED") {
    process.stderr.write(`${run.status}: ${run.errorKind ?? ""} ${rt.secrets.scrubText(run.errorMessage ?? "")}\n`);
    process.exitCode = EXIT.runFailed;
  }
}

function parseSeconds(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError("must be a number of seconds > 0");
  return n;
}

function parseSettled(value: string): SettledStatus {
  const s = value.toUpperCase();
  if (!(SETTLED_STATUSES as readonly string[]).includes(s))
    throw new InvalidArgumentError(`must be one of ${SETTLED_STATUSES.join(", ")}`);
  return s as SettledStatus;
}

/** A run the caller may see, else NOT_FOUND. */
async function visibleRun(rt: Runtime, key: string | undefined, id: string): Promise<RunRecord> {
  const { requireVisibleRun } = await import("../auth/visibility.ts");
  return requireVisibleRun(await cliCaller(rt, key), await rt.runs.get(id), id);
}

/**
 * Waits for `id` to end (any status but QUEUED and RUNNING), reading the stored run (this
 * process hears no other instance's events without Redis), or `timeoutS` seconds: exit 3
 * with the run printed as it stands.
 */
async function waitRun(rt: Runtime, id: string, key: string | undefined, timeoutS?: number): Promise<void> {
  const deadline = timeoutS === undefined ? Infinity : Date.now() + timeoutS * 1000;
  for (let delay = 50; ; delay = Math.min(delay * 2, 1000)) {
    const run = await visibleRun(rt, key, id);
    if (isFinal(run.status)) return printRun(rt, run);
    if (Date.now() >= deadline) {
      process.stdout.write(JSON.stringify(scrubRun(rt.secrets, run), null, 2) + "\n");
      process.stderr.write(`timed out after ${timeoutS}s: the run is ${run.status}\n`);
      process.exitCode = EXIT.timedOut;
      return;
    }
    await new Promise((r) => setTimeout(r, Math.min(delay, Math.max(0, deadline - Date.now()))));
  }
}

/** `tai runs wait|retry|settle`: follow a background run, and operate on an OUTCOME_UNKNOWN one. */
export function registerRunCommands(program: Command): void {
  const runs = program.command("runs").description("follow background runs; retry or settle OUTCOME_UNKNOWN ones");
  const keyOption = ["--key <key>", "API key to act as (default: $TAI_KEY, else the anonymous role)"] as const;
  runs
    .command("wait")
    .description("wait until a run ends and print it; exit 0 SUCCEEDED, 1 otherwise, 3 on --timeout")
    .argument("<id>", "run id")
    .option("--timeout <seconds>", "give up after this many seconds", parseSeconds)
    .option(...keyOption)
    .action(async (id: string, opts: { timeout?: number; key?: string }) => {
      await withRuntime({ duties: "none", publishes: false }, (rt) =>
        waitRun(rt, id, opts.key ?? process.env.TAI_KEY, opts.timeout),
      );
    });
  runs
    .command("retry")
    .description("queue an OUTCOME_UNKNOWN run to run again (its owner or an ADMIN); prints it QUEUED")
    .argument("<id>", "run id")
    .option(...keyOption)
    .action(async (id: string, opts: { key?: string }) => {
      await withRuntime({ duties: "none" }, async (rt) => {
        const caller = await cliCaller(rt, opts.key ?? process.env.TAI_KEY);
        printRun(rt, await rt.dispatcher.retryUnknown(caller, id));
      });
    });
  runs
    .command("settle")
    .description("end an OUTCOME_UNKNOWN run with the outcome an operator established (its owner or an ADMIN)")
    .argument("<id>", "run id")
    .requiredOption("--status <status>", SETTLED_STATUSES.join(", "), parseSettled)
    .option("--message <message>", "why; stored on the run")
    .option(...keyOption)
    .action(async (id: string, opts: { status: SettledStatus; message?: string; key?: string }) => {
      await withRuntime({ duties: "none" }, async (rt) => {
        const caller = await cliCaller(rt, opts.key ?? process.env.TAI_KEY);
        const run = await rt.dispatcher.settleUnknown(caller, id, opts.status, opts.message ?? null);
        process.stdout.write(JSON.stringify(scrubRun(rt.secrets, run), null, 2) + "\n");
      });
    });
}
