import { useState } from "react";
import { NO_FILTER, type RunFilter } from "../../api/runs.ts";
import { LiveRunTable } from "./live-run-table.tsx";
import { RunDetail } from "./run-detail.tsx";
import { RunFilters } from "./run-filters.tsx";

/** Runs: the live list with its filters, or one run's detail (`#/runs/<id>`). */
export function RunsScreen({ selected }: { selected: string | null }) {
  const [filter, setFilter] = useState<RunFilter>(NO_FILTER);
  if (selected) return <RunDetail key={selected} id={selected} />;
  return (
    <section className="panel" aria-label="Runs">
      <header>
        <RunFilters filter={filter} onChange={setFilter} />
      </header>
      <div className="body flush">
        <LiveRunTable filter={filter} />
      </div>
    </section>
  );
}
