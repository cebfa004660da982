import { useQuery } from "../../api/use-query.ts";
import { ToolsQuery } from "../../api/tools.ts";
import { DOORS, NO_FILTER, RUN_STATUSES, type RunFilter } from "../../api/runs.ts";

/** Tool, status and door selectors of the runs list, and shortcuts to the queued runs and those of unknown outcome. */
export function RunFilters({ filter, onChange }: { filter: RunFilter; onChange(f: RunFilter): void }) {
  const tools = useQuery(ToolsQuery, {});
  const names = (tools.data?.tools ?? []).map((t) => t.name).sort();
  const choose = (k: keyof RunFilter, label: string, any: string, options: readonly string[]) => (
    <label className="field-inline">
      <span>{label}</span>
      <select
        value={filter[k]}
        onChange={(e) => onChange({ ...filter, [k]: e.target.value })}
        aria-label={`Filter by ${label.toLowerCase()}`}
      >
        <option value="">{any}</option>
        {options.map((o) => (
          <option key={o}>{o}</option>
        ))}
      </select>
    </label>
  );
  return (
    <div className="filters" role="search">
      {choose("tool", "Tool", "all tools", names)}
      {choose("status", "Status", "any status", RUN_STATUSES)}
      {choose("door", "Door", "any door", DOORS)}
      <button
        className={filter.status === "QUEUED" ? "primary" : undefined}
        aria-pressed={filter.status === "QUEUED"}
        onClick={() => onChange({ ...filter, status: filter.status === "QUEUED" ? "" : "QUEUED" })}
      >
        Queued
      </button>
      <button
        className={filter.status === "OUTCOME_UNKNOWN" ? "primary" : undefined}
        aria-pressed={filter.status === "OUTCOME_UNKNOWN"}
        onClick={() => onChange({ ...filter, status: filter.status === "OUTCOME_UNKNOWN" ? "" : "OUTCOME_UNKNOWN" })}
      >
        Outcome unknown
      </button>
      {(filter.tool || filter.status || filter.door) && (
        <button className="link" onClick={() => onChange(NO_FILTER)}>
          Clear filters
        </button>
      )}
    </div>
  );
}
