import { readFileSync } from "node:fs";
import { relative } from "node:path";

/** The parts of V8's .cpuprofile format read here. */
interface Profile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
}

/** A window of the profile, in the profiled process's monotonic microseconds (`process.hrtime`). */
export interface Window {
  fromUs: number;
  toUs: number;
}

/** One row of a profile summary: where the CPU went, in % of the profiled time. */
export interface CostRow {
  name: string;
  selfPct: number;
  totalPct: number;
}

/** A profile summarised by function, by package/file, and by the tai42 source files. */
export interface ProfileSummary {
  sampledMs: number;
  /** Share of samples the process was idle (waiting for I/O). */
  idlePct: number;
  gcPct: number;
  topSelf: CostRow[];
  topTotal: CostRow[];
  byPackage: CostRow[];
}

/** Where a frame's code lives: a package, a tai42 source file, node internals, or V8 itself. */
export function packageOf(url: string, root: string): string {
  if (!url) return "(v8/native)";
  if (url.startsWith("node:")) return "node (internals)";
  const path = url.replace(/^file:\/\//, "");
  const nm = path.lastIndexOf("node_modules/");
  if (nm >= 0) {
    const rest = path.slice(nm + "node_modules/".length).split("/");
    return rest[0].startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  return relative(root, path);
}

/**
 * Summarises a .cpuprofile: self and inclusive time per function and per package (inclusive time counts a function once
 * per stack).
 */
export function summarise(file: string, root: string, window?: Window, top = 25): ProfileSummary {
  const p = JSON.parse(readFileSync(file, "utf8")) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const selfTime = new Map<number, number>();
  let total = 0;
  let at = p.startTime;
  p.samples.forEach((id, i) => {
    const dt = p.timeDeltas[i] ?? 0;
    at += dt;
    if (window && (at < window.fromUs || at > window.toUs)) return;
    selfTime.set(id, (selfTime.get(id) ?? 0) + dt);
    total += dt;
  });

  const fnKey = (id: number) => {
    const f = byId.get(id)!.callFrame;
    const where = packageOf(f.url, root);
    return `${f.functionName || "(anonymous)"} ${where}${f.url && !where.startsWith("(") ? `:${f.lineNumber + 1}` : ""}`;
  };
  const pkgKey = (id: number) => {
    const f = byId.get(id)!.callFrame;
    if (["(idle)", "(garbage collector)", "(program)", "(root)"].includes(f.functionName)) return f.functionName;
    return packageOf(f.url, root);
  };
  const self = new Map<string, number>();
  const incl = new Map<string, number>();
  const pkgSelf = new Map<string, number>();
  const pkgIncl = new Map<string, number>();
  for (const [id, t] of selfTime) {
    const k = fnKey(id);
    self.set(k, (self.get(k) ?? 0) + t);
    pkgSelf.set(pkgKey(id), (pkgSelf.get(pkgKey(id)) ?? 0) + t);
    const seen = new Set<string>();
    const seenPkg = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const fk = fnKey(cur);
      if (!seen.has(fk)) {
        seen.add(fk);
        incl.set(fk, (incl.get(fk) ?? 0) + t);
      }
      const pk = pkgKey(cur);
      if (!seenPkg.has(pk)) {
        seenPkg.add(pk);
        pkgIncl.set(pk, (pkgIncl.get(pk) ?? 0) + t);
      }
    }
  }
  const pct = (t: number) => Math.round((t / total) * 1000) / 10;
  const rows = (m: Map<string, number>, other: Map<string, number>, sortBySelf: boolean) =>
    [...m.keys()]
      .map((name) => ({
        name,
        selfPct: pct((sortBySelf ? m : other).get(name) ?? 0),
        totalPct: pct((sortBySelf ? other : m).get(name) ?? 0),
      }))
      .sort((a, b) => (sortBySelf ? b.selfPct - a.selfPct : b.totalPct - a.totalPct))
      .filter((r) => !["(root)"].includes(r.name.split(" ")[0]))
      .slice(0, top);
  return {
    sampledMs: Math.round(total / 1000),
    idlePct: pct(pkgSelf.get("(idle)") ?? 0),
    gcPct: pct(pkgSelf.get("(garbage collector)") ?? 0),
    topSelf: rows(self, incl, true),
    topTotal: rows(incl, self, false),
    byPackage: rows(pkgSelf, pkgIncl, true),
  };
}
