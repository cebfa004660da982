import { createContext, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { createTaiClient, type TaiClient } from "tai42/client";
import { ViewerQuery, type Viewer } from "./api/viewer.ts";
import { endpoint, shareKey, storeKey, storedKey } from "./session.ts";
import { messageOf } from "./api/errors.ts";

/** What every screen reads: the client (for the key in use) and who the server sees. */
export interface Connection {
  client: TaiClient;
  apiKey: string | null;
  /** Changes the key (null: anonymous); the client is rebuilt and every screen reloads. */
  setApiKey(key: string | null): void;
  /** Null until the server answered. */
  viewer: Viewer | null;
  /** Why the server refused the key, if it did. */
  viewerError: string | null;
}

const ConnectionContext = createContext<Connection | null>(null);

/** Holds one client per key: the old one is closed when the key changes. */
export function ConnectionProvider({ children }: { children: ReactNode }) {
  const [apiKey, setKey] = useState<string | null>(storedKey);
  const client = useMemo(() => createTaiClient({ url: endpoint(), apiKey: apiKey ?? undefined }), [apiKey]);

  // A new tab with no key of its own takes one from an open tab of this dashboard (session.ts).
  const keyRef = useRef(apiKey);
  keyRef.current = apiKey;
  useEffect(
    () =>
      shareKey(
        () => keyRef.current,
        (key) => {
          storeKey(key);
          setKey(key);
        },
      ),
    [],
  );

  const [viewer, setViewer] = useState<Viewer | null>(null);
  const [viewerError, setViewerError] = useState<string | null>(null);
  useEffect(() => {
    let current = true;
    setViewer(null);
    setViewerError(null);
    client.request(ViewerQuery, {}).then(
      (d) => current && setViewer(d.viewer),
      (e: unknown) => current && setViewerError(messageOf(e)),
    );
    return () => {
      current = false;
    };
  }, [client]);

  const value = useMemo<Connection>(
    () => ({
      client,
      apiKey,
      viewer,
      viewerError,
      setApiKey(key) {
        if (key === apiKey) return;
        void client.close();
        storeKey(key);
        setKey(key);
      },
    }),
    [client, apiKey, viewer, viewerError],
  );
  // Keyed by the key: a screen's state (forms, streams) never outlives the identity it was made with.
  return (
    <ConnectionContext.Provider value={value} key={apiKey ?? "anonymous"}>
      {children}
    </ConnectionContext.Provider>
  );
}

export function useConnection(): Connection {
  const c = useContext(ConnectionContext);
  if (!c) throw new Error("useConnection outside ConnectionProvider");
  return c;
}

/** The client for the key in use. */
export function useClient(): TaiClient {
  return useConnection().client;
}
