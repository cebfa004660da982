import { isDefinitionError } from "../definition-error.ts";
import { BIND_RULE, branchName } from "../registry/entries/branch-entry.ts";
import type { Issue } from "../errors.ts";
import type { SurfaceEntry } from "../registry/surface-entry.ts";
import { bakedIssues } from "./baked-issues.ts";
import type { PresetBinding } from "./preset-binding.ts";
import type { Preset } from "./preset.ts";

/**
 * Seed 000: "every manifest or preset write also binds each combo it names once before it
 * is stored, and discards that branch". A preset names the branches along its base chain:
 * each is bound again over its own base, and a refusal is an issue at `/baseTool` naming
 * the branch, the extension and the tool.
 */
export function chainBindIssues(
  baseTool: string,
  lookup: (name: string) => SurfaceEntry | undefined,
  binding: PresetBinding,
): Issue[] {
  const issues: Issue[] = [];
  const seen = new Set<string>();
  for (
    let entry = lookup(baseTool);
    entry && !seen.has(entry.name);
    entry = entry.baseTool ? lookup(entry.baseTool) : undefined
  ) {
    seen.add(entry.name);
    if (entry.origin !== "BRANCH") continue;
    const branch = binding.branch(entry.name);
    const base = branch && lookup(branch.tool);
    if (!branch || !base) continue;
    const problem = bindProblem(() => binding.bind(base, branch.combo));
    if (problem)
      issues.push({ path: "/baseTool", message: `builds on branch "${entry.name}", which does not bind: ${problem}` });
  }
  return issues;
}

/**
 * What a preset's new shape would break among what builds on it: every stored preset over
 * it must still bake valid keys (all the way down, each over its rebuilt base), and every
 * branch the active manifest attaches to it must still bind. Issues are at
 * `/dependants/<name>…` and name the dependant.
 */
export function dependantIssues(changed: SurfaceEntry, presets: readonly Preset[], binding: PresetBinding): Issue[] {
  const issues: Issue[] = [];
  const seen = new Set<string>();
  const walk = (entry: SurfaceEntry) => {
    if (seen.has(entry.name)) return;
    seen.add(entry.name);
    for (const combo of binding.combosOver(entry.name)) {
      const name = branchName(entry.name, combo);
      let branch: SurfaceEntry | undefined;
      const problem = bindProblem(() => void (branch = binding.bind(entry, combo)));
      if (problem)
        issues.push({
          path: `/dependants/${name}`,
          message: `the active manifest's branch "${name}" would no longer bind: ${problem}`,
        });
      else if (branch) walk(branch);
    }
    for (const p of presets.filter((d) => d.baseTool === entry.name)) {
      const problems = bakedIssues(entry, p.fixedKwargs);
      if (problems.length)
        issues.push(
          ...problems.map((i) => ({
            path: `/dependants/${p.name}${i.path}`,
            message: `preset "${p.name}" builds on "${entry.name}" and would break: ${i.path.replace(/^\/fixedKwargs\//, "")} ${i.message}`,
          })),
        );
      else walk(binding.presetEntry(p, entry));
    }
  };
  walk(changed);
  return issues;
}

/** The message of a refused bind, or null when it binds. */
function bindProblem(bind: () => unknown): string | null {
  try {
    bind();
    return null;
  } catch (e) {
    if (isDefinitionError(e, BIND_RULE)) return e.message;
    throw e;
  }
}
