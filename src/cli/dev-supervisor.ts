import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { existsSync, watch, type FSWatcher } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
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
  } catch {
    // The server is started anyway and says what is wrong; the file is watched for the fix.
    config = process.env.TAI_CONFIG ? resolve(cwd, process.env.TAI_CONFIG) : findProjectConfig(cwd);
  }
  const root = config ? dirname(config) : cwd;
  const refs = [
    ...(env.TAI_MODULES ?? "").split(","),
    env.TAI_EXTENSIONS_DIR ? join(env.TAI_EXTENSIONS_DIR, "x.ts") : "",
  ];
  const dirs = refs
    .map((m) => m.trim())
    .filter((m) => m && !isPackageSpecifier(m))
    .map((m) => dirname(resolve(cwd, m)))
    .filter((d) => d !== root && existsSync(d) && !IGNORED.test(relative(root, d)));
  return [{ path: root, recursive: false }, ...[...new Set(dirs)].map((path) => ({ path, recursive: true }))];
}

/**
 * In a `tai serve --standby` child: tsx loaded, then waits for the supervisor's "go" and reads the config file then
 * (it may have changed while this server waited). The modules are imported after it, fresh.
 */
export async function standBy(): Promise<void> {
  await import("../modules/load-modules.ts").then((m) => m.supportTypeScript("file:///standby.ts"));
  // A supervisor gone (killed) takes its servers with it.
  const gone = () => process.exit(0);
  process.once("disconnect", gone);
  const go = new Promise((resolve) => process.once("message", resolve));
  process.send?.("standby");
  await go;
  process.off("disconnect", gone);
  await applyProjectConfig();
}

/** A `tai serve` child: started ahead as a standby (its imports done), told to serve when its turn comes. */
type Server = ChildProcess & { ready: Promise<void> };
function spawnServer(): Server {
  const c = spawn(process.execPath, [BIN, "serve", "--standby"], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    env: process.env,
  });
  // Ready for "go", or gone (its exit is reported when it is the server).
  const ready = new Promise<void>((resolve) => {
    c.on("message", (m) => m === "standby" && resolve());
    c.once("exit", () => resolve());
  });
  return Object.assign(c, { ready });
}

const alive = (c: ChildProcess | undefined): c is ChildProcess => !!c && c.exitCode === null && c.signalCode === null;

/**
 * `tai dev`: a supervisor of `tai serve` children. ESM modules cannot be re-imported, so a change of a module or of
 * the config file stops the server (SIGTERM, as a deployment would) and hands over to the next one on the same port
 * and database: stored data stays. The next server is started ahead (a standby, its imports done) so that the change
 * is served within a second or two. A server that fails to start (a syntax error) says why; the supervisor waits for
 * the next change and starts again.
 */
export async function runDev(): Promise<void> {
  let child: ChildProcess | undefined;
  let standby: Server | undefined;
  let watchers: FSWatcher[] = [];
  let stopping = false;
  let timer: NodeJS.Timeout | undefined;
  let chain = Promise.resolve();
  let changedAt: number | undefined;

  const nextStandby = () => {
    const s = spawnServer();
    void s.ready.then(() => alive(s) && s === standby && say("ready for the next change"));
    return s;
  };
  const stop = async (c: ChildProcess | undefined) => {
    if (!alive(c)) return;
    const exited = once(c, "exit");
    c.kill("SIGTERM");
    await exited;
  };
  const watchAll = async () => {
    for (const w of watchers) w.close();
    watchers = (await folders()).map(({ path, recursive }) =>
      watch(path, { recursive }, (_event, name) => {
        const file = name ? join(path, name.toString()) : path;
        if (!WATCHED.test(file) || IGNORED.test(name?.toString() ?? "")) return;
        clearTimeout(timer);
        timer = setTimeout(() => schedule(file), DEBOUNCE_MS);
      }),
    );
  };
  const start = async () => {
    await watchAll();
    const c = alive(standby) ? standby : spawnServer();
    standby = undefined;
    child = c;
    c.on("message", (m) => {
      // Served: the next server loads now, not while this one starts.
      if (m !== "listening") return;
      if (changedAt !== undefined) say(`serving the change, ${Math.round(performance.now() - changedAt)} ms after it`);
      changedAt = undefined;
      if (!stopping && !alive(standby)) standby = nextStandby();
    });
    c.once("exit", (code, signal) => {
      if (child !== c || stopping) return;
      child = undefined;
      changedAt = undefined;
      say(`the server stopped (${signal ?? `exit ${code}`}); it starts again when a watched file changes`);
      if (!alive(standby)) standby = nextStandby();
    });
    await c.ready;
    if (alive(c)) c.send("go");
  };
  const schedule = (file: string) => {
    if (stopping) return;
    chain = chain.then(async () => {
      say(`${file} changed: restarting`);
      changedAt ??= performance.now() - DEBOUNCE_MS;
      const old = child;
      child = undefined;
      await stop(old);
      if (!stopping) await start();
    });
  };
  const shutdown = () => {
    stopping = true;
    clearTimeout(timer);
    for (const w of watchers) w.close();
    void chain.then(() => Promise.all([stop(child), stop(standby)])).then(() => process.exit(0));
  };
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
  say("serving, restarting the server when a module or the config file changes (Ctrl-C stops)");
  await start();
  await new Promise<never>(() => {});
}
