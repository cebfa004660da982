import { useState } from "react";
import { OriginBadge, TierBadge } from "../../components/badges.tsx";
import type { Tool } from "../../api/tools.ts";
import { linkTo } from "../../route.ts";
import { Clamped } from "../../components/markdown.tsx";

const ORIGINS = {
  "": "all",
  TOOL: "tools",
  PRESET: "presets",
  BRANCH: "branches",
  AGENT: "agents",
  CONNECTOR: "connectors",
} as const;

/** The surface as a searchable list, with an origin filter. */
export function ToolList({ tools, selected }: { tools: Tool[] | null; selected: string | null }) {
  const [search, setSearch] = useState("");
  const [origin, setOrigin] = useState<string>("");
  const q = search.trim().toLowerCase();
  const shown = (tools ?? []).filter(
    (t) =>
      (!origin || t.origin === origin) &&
      (!q ||
        t.name.toLowerCase().includes(q) ||
        (t.label ?? "").toLowerCase().includes(q) ||
        t.description.toLowerCase().includes(q)),
  );
  return (
    <section className="panel" aria-label="Surface">
      <header>
        <h2>Surface</h2>
        <span className="muted">{tools ? `${shown.length} of ${tools.length}` : "loading…"}</span>
      </header>
      <div className="body">
        <input
          type="search"
          placeholder="Search tools"
          aria-label="Search tools"
          value={search}
          onChange={(e) => setSearch(e.target.value)}
        />
        <div className="chips" role="group" aria-label="Origin">
          {Object.entries(ORIGINS).map(([o, label]) => (
            <button key={o} className={`chip${origin === o ? " active" : ""}`} onClick={() => setOrigin(o)}>
              {label}
            </button>
          ))}
        </div>
      </div>
      <ul className="tool-list" data-testid="tool-list">
        {shown.map((t) => (
          <li key={t.name}>
            <a href={linkTo("tools", t.name)} className={t.name === selected ? "active" : undefined} data-tool={t.name}>
              <span className="spread">
                <strong className="mono">{t.name}</strong>
                <span className="row">
                  <OriginBadge origin={t.origin} />
                  <TierBadge tier={t.tier} />
                </span>
              </span>
              <Clamped source={t.description} />
            </a>
          </li>
        ))}
      </ul>
    </section>
  );
}
