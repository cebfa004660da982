import { useState } from "react";
import { ForbiddenNote } from "../../components/notes.tsx";
import { useConnection } from "../../connection.tsx";
import { isAdmin } from "../../api/viewer.ts";
import { ExtensionsPanel } from "./extensions-panel.tsx";
import { ManifestsPanel } from "./manifests-panel.tsx";
import { PresetsPanel } from "./presets-panel.tsx";

const TABS = { presets: "Presets", manifests: "Manifests", extensions: "Extension catalog" } as const;
type Tab = keyof typeof TABS;

/** Composition, for ADMIN keys: presets, manifests and the extension catalog. */
export function CompositionScreen() {
  const { viewer } = useConnection();
  const [tab, setTab] = useState<Tab>("presets");
  if (!viewer) return <div className="panel empty">Connecting…</div>;
  if (!isAdmin(viewer)) {
    return (
      <ForbiddenNote>
        Composition is for ADMIN keys: writing manifests and activating them, attaching extensions and authoring presets
        over fenced and secret tools are refused to other roles. You are{" "}
        {viewer.role ? `${viewer.role}` : "without access"}; enter an ADMIN key (top right) to compose the surface.
      </ForbiddenNote>
    );
  }
  return (
    <div className="stack">
      <div className="tabs" role="tablist">
        {(Object.keys(TABS) as Tab[]).map((t) => (
          <button
            key={t}
            role="tab"
            aria-selected={t === tab}
            className={t === tab ? "active" : undefined}
            onClick={() => setTab(t)}
          >
            {TABS[t]}
          </button>
        ))}
      </div>
      {tab === "presets" && <PresetsPanel />}
      {tab === "manifests" && <ManifestsPanel />}
      {tab === "extensions" && <ExtensionsPanel />}
    </div>
  );
}
