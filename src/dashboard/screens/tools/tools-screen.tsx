import { useCallback, useMemo, useState } from "react";
import { ErrorNote } from "../../components/notes.tsx";
import { useClient, useConnection } from "../../connection.tsx";
import { canRun, type Tier } from "../../api/viewer.ts";
import { sortTools, ToolsChangedSubscription, type Tool } from "../../api/tools.ts";
import { useStream } from "../../api/use-stream.ts";
import { ToolDetail } from "./tool-detail.tsx";
import { ToolList } from "./tool-list.tsx";

/**
 * The surface, live: `toolsChanged(current: true)` sends it as it is once listening, then
 * after every change, so a reopened stream (after a lost connection) misses nothing.
 */
export function useSurface(): { tools: Tool[] | null; error: string | null; live: boolean } {
  const client = useClient();
  const [tools, setTools] = useState<Tool[] | null>(null);
  const stream = useStream(
    () => client.subscribe(ToolsChangedSubscription),
    useCallback((d: { toolsChanged: Tool[] }) => setTools(sortTools(d.toolsChanged)), []),
    [client],
  );
  return { tools, error: stream.error, live: stream.live };
}

/** Tools: the surface on the left, the selected entry (facts and run form) on the right. */
export function ToolsScreen({ selected }: { selected: string | null }) {
  const { tools, error } = useSurface();
  const { viewer } = useConnection();
  // With nothing chosen, the first entry this viewer may run.
  const current = useMemo(
    () =>
      (tools && selected ? tools.find((t) => t.name === selected) : undefined) ??
      tools?.find((t) => canRun(viewer, t.tier as Tier)) ??
      tools?.[0],
    [tools, selected, viewer],
  );
  return (
    <>
      <ErrorNote error={error} />
      <div className="split">
        <ToolList tools={tools} selected={current?.name ?? null} />
        {current ? (
          <ToolDetail key={current.name} tool={current} />
        ) : (
          tools && <div className="panel empty">No tool is on the surface.</div>
        )}
      </div>
    </>
  );
}
