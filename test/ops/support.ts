import { until } from "../graphql/support.ts";

/** Shared by the operations tests (docs/deploy.md): condition waits that report how long they took, and plain GETs. */

/** Waits for `check` and resolves with the milliseconds it took. */
export async function timed(what: string, check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<number> {
  const started = Date.now();
  await until(what, check, timeoutMs);
  return Date.now() - started;
}

/** GETs `url` and resolves with the status and body text, or null when the connection is refused. */
export async function get(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string } | null> {
  try {
    const res = await fetch(url, { headers });
    return { status: res.status, text: await res.text() };
  } catch {
    return null;
  }
}

/** The value of one sample line (`name{labels} value`), or undefined when absent. */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const want = Object.entries(labels);
  for (const line of text.split("\n")) {
    const m = /^([a-zA-Z0-9_:]+)(?:\{([^}]*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? "").matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (want.every(([k, v]) => have[k] === v)) return Number(m[3]);
  }
  return undefined;
}
