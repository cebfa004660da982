import { useEffect, useRef, useState } from "react";
import { loadIssuers, type SignInIssuer } from "./identity.ts";
import { endSessionUrl, finishSignIn, reasonOf, refreshTokens, startSignIn } from "./oidc.ts";
import { refreshDelay, storedTokens, storeTokens, type SignedIn } from "./tokens.ts";

/** The dashboard's sign-in through an issuer: its state, and what the identity bar does with it. */
export interface SignIn {
  /** The issuers identity.json lists (none: only keys). */
  issuers: SignInIssuer[];
  /** The tokens in use; null when not signed in. */
  tokens: SignedIn | null;
  /** The access token in use now (read at each request and connection). */
  accessToken(): string | undefined;
  /** Why the last sign-in, refresh or sign-out failed; cleared by the next success. */
  notice: string | null;
  /** Whether the way back from the issuer is being read. */
  finishing: boolean;
  signIn(issuer: SignInIssuer): void;
  /** Drops the tokens, and leaves for the issuer's end_session_endpoint when it offers one. */
  signOut(): void;
  /** Drops the tokens here only (a key was entered instead). */
  drop(): void;
}

/**
 * Holds the tab's sign-in: reads identity.json, finishes a sign-in coming back from the issuer, refreshes the access
 * token before it expires (a minute before, or at half its life when shorter) and calls `onRefreshed` with the new one
 * (the caller reconnects its socket); a failed refresh signs out with a notice.
 */
export function useSignIn(onRefreshed: () => void): SignIn {
  const [issuers, setIssuers] = useState<SignInIssuer[]>([]);
  const [tokens, setTokens] = useState<SignedIn | null>(storedTokens);
  const [notice, setNotice] = useState<string | null>(null);
  const [finishing, setFinishing] = useState(() => new URLSearchParams(location.search).has("state"));
  const current = useRef(tokens);
  current.current = tokens;
  const refreshed = useRef(onRefreshed);
  refreshed.current = onRefreshed;

  const keep = (t: SignedIn | null) => {
    storeTokens(t);
    current.current = t;
    setTokens(t);
  };

  useEffect(() => {
    let live = true;
    void loadIssuers().then(async (list) => {
      if (!live) return;
      setIssuers(list);
      try {
        const t = await finishSignIn(list);
        if (t && live) {
          keep(t);
          setNotice(null);
        }
      } catch (e) {
        if (live) setNotice(`Sign-in failed: ${reasonOf(e)}`);
      } finally {
        if (live) setFinishing(false);
      }
    });
    return () => {
      live = false;
    };
  }, []);

  const issuer = tokens && issuers.find((i) => i.issuer === tokens.issuer);
  useRefresh(tokens, issuer ?? null, (t, why) => {
    keep(t);
    if (t) refreshed.current();
    else setNotice(`Signed out: the sign-in could not be renewed (${why}). Sign in again.`);
  });

  return {
    issuers,
    tokens,
    accessToken: () => current.current?.accessToken,
    notice,
    finishing,
    signIn(i) {
      setNotice(null);
      startSignIn(i).catch((e: unknown) => setNotice(`Sign-in failed: ${reasonOf(e)}`));
    },
    signOut() {
      const t = current.current;
      const from = t && issuers.find((i) => i.issuer === t.issuer);
      keep(null);
      setNotice(null);
      if (t && from) void endSessionUrl(from, t).then((url) => url && location.assign(url));
    },
    drop: () => keep(null),
  };
}

/**
 * Refreshes `tokens` when {@link refreshDelay} says, and hands over the new tokens, or null with the reason when the
 * refresh failed. A change of tokens (the refresh itself, a sign-out) cancels the pending one.
 */
function useRefresh(
  tokens: SignedIn | null,
  issuer: SignInIssuer | null,
  done: (tokens: SignedIn | null, why?: string) => void,
): void {
  const latest = useRef(done);
  latest.current = done;
  useEffect(() => {
    if (!tokens || !issuer) return;
    const wait = refreshDelay(tokens);
    if (wait === null) return;
    let live = true;
    const timer = setTimeout(() => {
      refreshTokens(issuer, tokens).then(
        (t) => live && latest.current(t),
        (e: unknown) => live && latest.current(null, reasonOf(e)),
      );
    }, wait);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [tokens, issuer]);
}
