import { useState } from "react";
import { ErrorNote, ForbiddenNote } from "../../components/notes.tsx";
import { useClient, useConnection } from "../../connection.tsx";
import { ConnectorChangedSubscription, ConnectorsQuery } from "../../api/connectors.ts";
import { useStream } from "../../api/use-stream.ts";
import { useQuery } from "../../api/use-query.ts";
import { isAdmin } from "../../api/viewer.ts";
import { navigate } from "../../route.ts";
import { ConnectorDetail } from "./connector-detail.tsx";
import { ConnectorEditor } from "./connector-editor.tsx";
import { ConnectorList } from "./connector-list.tsx";

/** Connectors, for ADMIN keys only: a lower role is told so and nothing is asked of the server. */
export function ConnectorsScreen({ selected }: { selected: string | null }) {
  const { viewer } = useConnection();
  if (!viewer) return <div className="panel empty">Connecting…</div>;
  if (!isAdmin(viewer)) {
    return (
      <ForbiddenNote>
        Connectors are for ADMIN keys: only an ADMIN reads or writes them, and assigns their tools' tiers. You are{" "}
        {viewer.role ? `${viewer.role}` : "without access"}; enter an ADMIN key (top right) to manage connectors.
      </ForbiddenNote>
    );
  }
  return <Connectors selected={selected} />;
}

function Connectors({ selected }: { selected: string | null }) {
  const client = useClient();
  const connectors = useQuery(ConnectorsQuery, {});
  // A new listing version anywhere (a refresh elsewhere, the upstream's list_changed, the periodic refresh) reloads the
  // list.
  const stream = useStream(() => client.subscribe(ConnectorChangedSubscription, {}), connectors.reload, [client], {
    onReopen: connectors.reload,
  });
  const [editing, setEditing] = useState<"new" | "edit" | null>(null);
  const list = connectors.data?.connectors ?? [];
  const current = list.find((c) => c.name === selected) ?? (selected ? undefined : list[0]);
  const saved = (name: string) => {
    setEditing(null);
    connectors.reload();
    navigate("connectors", name);
  };
  return (
    <>
      <ErrorNote error={connectors.error ?? stream.error} />
      <div className="split">
        <ConnectorList
          connectors={connectors.data?.connectors ?? null}
          selected={current?.name ?? null}
          live={stream.live}
          onAdd={() => setEditing("new")}
        />
        {editing === "new" ? (
          <ConnectorEditor key="new" connector={null} onSaved={saved} onCancel={() => setEditing(null)} />
        ) : editing === "edit" && current ? (
          <ConnectorEditor
            key={`${current.name}@${current.version}`}
            connector={current}
            onSaved={saved}
            onCancel={() => setEditing(null)}
          />
        ) : current ? (
          <ConnectorDetail
            key={current.name}
            connector={current}
            onChanged={connectors.reload}
            onEdit={() => setEditing("edit")}
            onDeleted={() => {
              connectors.reload();
              navigate("connectors");
            }}
          />
        ) : (
          connectors.data && (
            <div className="panel empty">
              {selected
                ? `No connector is named ${selected}.`
                : "No connector yet: add one to bring an upstream's tools onto the surface."}
            </div>
          )
        )}
      </div>
    </>
  );
}
