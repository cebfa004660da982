import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { watch, type FSWatcher } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { isPackageSpecifier } from "../modules/load-modules.ts";
import { applyProjectConfig, findProjectConfig } from "./project-file.ts";

const BIN = fileURLToPath(new URL("../../bin/tai.mjs", import.meta.url));
/** The files whose change restarts the server: modules, and the config file (and data files they read). */
const WATCHED = /\.(ts|mts|cts|js|mjs|cjs|json|ya?ml)$/;
const IGNORED = /(^|[\\/])(node_modules|data|\.git)([\\/]|$)/;
const DEBOUNCE_MS = 60;

const say = (line: string) => process.stdout.write(`tai dev: ${line}\n`);

/** The folders to watch: the config file's (or the working directory), and those of the modules beside it. */
async function folders(): Promise<{ path: string; recursive: boolean }[]> {
  const cwd = process.cwd();
  const env = { ...process.env };
  let config: string | undefined;
  try {
    config = await applyProjectConfig(env, cwd);
  } catch (e) {
    // The server is started anyway and says what is wrong; the file is watched for the fix.
    config = process.env.TAI_CONFIG ? resolve(cwd, process.env.TAI_CONFIG) : findProjectConfig(cwd);
    void e;
  }
  const root = config ? dirname(config) : cwd;
  const refs = [...(env.TAI_MODULES ?? "").split(","), env.TAI_EXTENSIONS_DIR ? join(env.TAI_EXTENSIONS_DIR, "x.ts") : ""];
  const dirs = refs
    .map((m) => m.trim())
    .filter((m) => m && !isPackageSpecifier(m))
    .map((m) => dirname(resolve(cwd, m)))
    .filter((d) => d !== root && !IGNORED.test(d));
  return [{ path: root, recursive: false }, ...[...new Set(dirs)].map((path) => ({ path, recursive: true }))];
}

/**
 * `tai dev`: a supervisor of `tai serve` children. ESM modules cannot be re-imported, so a change of a module or of
 * the config file stops the server (SIGTERM, as a deployment would) and starts a new one on the same port and database:
 * stored data stays. A server that fails to start (a syntax error) is reported by itself; the supervisor waits for
 * the next change and starts it again.
 */
export async function runDev(): Promise<void> {
  let child: ChildProcess | undefined;
  let watchers: FSWatcher[] = [];
  let stopping = false;
  let timer: NodeJS.Timeout | undefined;
  let chain = Promise.resolve();

  const stopChild = async () => {
    const c = child;
    child = undefined;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const exited = once(c, "exit");
    c.kill("SIGTERM");
    await exited;
  };
  const start = async () => {
    for (const w of watchers) w.close();
    watchers = (await folders()).map(({ path, recursive }) =>
      watch(path, { recursive }, (_event, name) => {
        const file = name ? join(path, name.toString()) : path;
        if (!WATCHED.test(file) || IGNORED.test(name?.toString() ?? "")) return;
        clearTimeout(timer);
        timer = setTimeout(() => schedule(file), DEBOUNCE_MS);
      }),
    );
    const c = spawn(process.execPath, [BIN, "serve"], { stdio: "inherit", env: process.env });
    child = c;
    c.once("exit", (code, signal) => {
      if (child !== c || stopping) return;
      child = undefined;
      say(`the server stopped (${signal ?? `exit ${code}`}); it starts again when a watched file changes`);
    });
  };
  const schedule = (file: string) => {
    if (stopping) return;
    chain = chain.then(async () => {
      say(`${file} changed: restarting`);
      await stopChild();
      if (!stopping) await start();
    });
  };
  const shutdown = () => {
    stopping = true;
    clearTimeout(timer);
    for (const w of watchers) w.close();
    void chain.then(stopChild).then(() => process.exit(0));
  };
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
  say("serving, restarting the server when a module or the config file changes (Ctrl-C stops)");
  await start();
  await new Promise<never>(() => {});
}
