import { createContext, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { createTaiClient, type TaiClient } from "tai42/client";
import { ViewerQuery, type Viewer } from "./api/viewer.ts";
import { endpoint, shareKey, storeKey, storedKey } from "./session.ts";
import { messageOf } from "./api/errors.ts";
import { useSignIn, type SignIn } from "./sign-in/use-sign-in.ts";

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
  /** The sign-in through an issuer (identity.json): its tokens are sent instead of a key. */
  signIn: SignIn;
}

const ConnectionContext = createContext<Connection | null>(null);

/**
 * Holds one client per identity (a key, a sign-in, anonymous): the old one is closed when it changes. A signed-in
 * client asks for the access token at each request and connection; a refreshed token reconnects its socket, and the
 * streams on it resume.
 */
export function ConnectionProvider({ children }: { children: ReactNode }) {
  const [apiKey, setKey] = useState<string | null>(storedKey);
  const clientRef = useRef<TaiClient | null>(null);
  const signIn = useSignIn(() => clientRef.current?.reconnect());
  const signedInWith = signIn.tokens?.issuer ?? null;
  const identity = signedInWith ? `signed-in:${signedInWith}` : (apiKey ?? "anonymous");
  const client = useMemo(
    () =>
      createTaiClient({
        url: endpoint(),
        apiKey: signedInWith ? signIn.accessToken : (apiKey ?? undefined),
      }),
    // signIn.accessToken reads a ref: the identity is what changes the client.
    [identity],
  );
  clientRef.current = client;
  // A sign-in replaces the key: signing out later leaves the tab anonymous, not back on a key.
  useEffect(() => {
    if (signedInWith && apiKey) {
      storeKey(null);
      setKey(null);
    }
  }, [signedInWith, apiKey]);
  const previous = useRef(client);
  useEffect(() => {
    if (previous.current !== client) void previous.current.close();
    previous.current = client;
  }, [client]);

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

  const { viewer, viewerError } = useViewer(client);

  const value = useMemo<Connection>(
    () => ({
      client,
      apiKey,
      viewer,
      viewerError,
      signIn,
      setApiKey(key) {
        if (key === apiKey && !signedInWith) return;
        // A key entered replaces a sign-in (the tokens are dropped here; the issuer's session stays).
        if (key) signIn.drop();
        storeKey(key);
        setKey(key);
      },
    }),
    [client, apiKey, viewer, viewerError, signIn, signedInWith],
  );
  // Keyed by the identity: a screen's state (forms, streams) never outlives the identity it was made with.
  return (
    <ConnectionContext.Provider value={value} key={identity}>
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

/** Who the server sees through `client` (null until it answered), or why it refused. */
function useViewer(client: TaiClient): { viewer: Viewer | null; viewerError: string | null } {
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

  return { viewer, viewerError };
}
