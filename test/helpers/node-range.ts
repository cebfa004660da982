/**
 * The subset of npm's semver ranges that `engines.node` fields use, evaluated on release
 * versions: `||` unions of space-separated comparators (`>=`, `>`, `<=`, `<`, `=`, `^`,
 * `~`, with or without a space after the operator), x-ranges (`20.x`, `10.*`, `12`) and
 * `*`. Anything else (hyphen ranges, prereleases) throws, so that a new form in the
 * lockfile fails loudly instead of being misread.
 */
export type Version = readonly [number, number, number];

type Bound = { v: Version; inclusive: boolean };
type Interval = { lo?: Bound; hi?: Bound };

export function compare(a: Version, b: Version): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/** A partial version: `22`, `22.12`, `22.12.0`, with `x`/`*` for a missing part. */
function partial(text: string, range: string): (number | undefined)[] {
  if (!/^v?\d+(\.(\d+|x|X|\*))?(\.(\d+|x|X|\*))?$/.test(text))
    throw new Error(`unsupported version "${text}" in range "${range}"`);
  return text
    .replace(/^v/, "")
    .split(".")
    .map((p) => (/^\d+$/.test(p) ? Number(p) : undefined))
    .concat([undefined, undefined])
    .slice(0, 3);
}

/** The interval one comparator admits. */
function comparator(token: string, range: string): Interval {
  const [, op = "", rest] = /^(>=|<=|>|<|=|\^|~)?(.*)$/.exec(token)!;
  const [a, b, c] = partial(rest, range);
  if (a === undefined) return {};
  const floor: Version = [a, b ?? 0, c ?? 0];
  // The first version past the partial: 22 → 23.0.0, 22.12 → 22.13.0, 22.12.3 → 22.12.4.
  const next: Version = b === undefined ? [a + 1, 0, 0] : c === undefined ? [a, b + 1, 0] : [a, b, c + 1];
  const ge = (v: Version) => ({ v, inclusive: true });
  const lt = (v: Version) => ({ v, inclusive: false });
  switch (op) {
    case ">=":
      return { lo: ge(floor) };
    case ">":
      return c === undefined ? { lo: ge(next) } : { lo: { v: floor, inclusive: false } };
    case "<":
      return { hi: lt(floor) };
    case "<=":
      return c === undefined ? { hi: lt(next) } : { hi: ge(floor) };
    case "~":
      return { lo: ge(floor), hi: lt(b === undefined ? [a + 1, 0, 0] : [a, b + 1, 0]) };
    case "^": {
      const hi: Version =
        a > 0 || b === undefined ? [a + 1, 0, 0] : b > 0 || c === undefined ? [0, b + 1, 0] : [0, 0, c + 1];
      return { lo: ge(floor), hi: lt(hi) };
    }
    default:
      return { lo: ge(floor), hi: lt(next) };
  }
}

function within(v: Version, i: Interval): boolean {
  if (i.lo && (i.lo.inclusive ? compare(v, i.lo.v) < 0 : compare(v, i.lo.v) <= 0)) return false;
  if (i.hi && (i.hi.inclusive ? compare(v, i.hi.v) > 0 : compare(v, i.hi.v) >= 0)) return false;
  return true;
}

/** Whether `range` admits `version`. */
export function satisfies(range: string, version: Version): boolean {
  return range.split("||").some((set) => {
    const tokens = set
      .trim()
      .replace(/(>=|<=|>|<|=|\^|~)\s+/g, "$1")
      .split(/\s+/)
      .filter(Boolean);
    if (tokens.includes("-")) throw new Error(`unsupported hyphen range "${range}"`);
    return tokens.every((t) => t === "*" || within(version, comparator(t, range)));
  });
}

/** Every version mentioned in `ranges`, with its neighbours: where any of them can change its answer. */
export function boundaries(ranges: string[]): Version[] {
  const out: Version[] = [];
  const before = ([a, b, c]: Version): Version =>
    c > 0 ? [a, b, c - 1] : b > 0 ? [a, b - 1, 999] : [Math.max(a - 1, 0), 999, 999];
  for (const range of ranges)
    for (const m of range.matchAll(/\d+(\.(\d+|x|X|\*))?(\.(\d+|x|X|\*))?/g)) {
      const [a = 0, b = 0, c = 0] = partial(m[0], range);
      for (const v of [
        [a, b, c],
        [a, b, c + 1],
        [a, b + 1, 0],
        [a + 1, 0, 0],
      ] as Version[])
        out.push(v, before(v));
    }
  for (let major = 0; major <= 40; major++) out.push([major, 0, 0]);
  return out;
}
