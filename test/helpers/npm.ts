import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";

/** What a child process did, and how long it took. */
export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
  seconds: number;
}

/**
 * The environment of a user's shell in their own project: the running Node first on PATH,
 * nothing of this checkout's npm run (`npm test` exports npm_config_local_prefix and the
 * like, which a nested npm would obey) and no tai42 settings. Native addons build against
 * the headers of the running Node, the one that loads them, when its folder ships them
 * (the official builds and scripts/use-node24.sh's Node do).
 */
export function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const keep = Object.entries(process.env).filter(
    ([k]) => !/^(npm_|INIT_CWD$|TAI_|DATABASE_URL$|REDIS_URL$|HOST$|PORT$|NODE_OPTIONS$|VITEST)/i.test(k),
  );
  const env: NodeJS.ProcessEnv = Object.fromEntries(keep);
  env.PATH = [dirname(process.execPath), process.env.PATH].join(delimiter);
  const prefix = dirname(dirname(process.execPath));
  // Under `npm test` or `npx vitest`, npm_config_nodedir is whatever npm's own config said
  // (a user-level .npmrc may name another Node's headers); the running Node's win.
  const nodedir = existsSync(join(prefix, "include", "node", "node.h")) ? prefix : process.env.npm_config_nodedir;
  if (nodedir) env.npm_config_nodedir = nodedir;
  return { ...env, ...extra };
}

/** Spawns `command` in `cwd` with a user's environment and collects its output. */
export function spawnUser(
  command: string,
  args: string[],
  cwd: string,
  extra: Record<string, string> = {},
  options: { detached?: boolean } = {},
): ChildProcess & { output: () => { stdout: string; stderr: string } } {
  const child = spawn(command, args, {
    cwd,
    env: userEnv(extra),
    stdio: ["ignore", "pipe", "pipe"],
    detached: options.detached,
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d) => (stdout += d));
  child.stderr!.on("data", (d) => (stderr += d));
  return Object.assign(child, { output: () => ({ stdout, stderr }) });
}

/** Runs `command` to its end in `cwd` with a user's environment. */
export function runUser(
  command: string,
  args: string[],
  cwd: string,
  extra: Record<string, string> = {},
): Promise<Ran> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawnUser(command, args, cwd, extra);
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, ...child.output(), seconds: (performance.now() - started) / 1000 }));
  });
}
