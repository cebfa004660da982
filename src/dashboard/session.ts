/**
 * The API key the dashboard sends, kept for this browser tab only (sessionStorage: gone
 * when the tab closes, never in localStorage). It is sent to this page's own origin and
 * nowhere else.
 */
const KEY = "tai42.apiKey";

export function storedKey(): string | null {
  return sessionStorage.getItem(KEY);
}

export function storeKey(key: string | null): void {
  if (key) sessionStorage.setItem(KEY, key);
  else sessionStorage.removeItem(KEY);
}

/** The channel the dashboard's tabs of one origin hand the key over on (BroadcastChannel: same origin only). */
const HANDOFF = "tai42.apiKey.handoff";
type Handoff = { ask: true } | { key: string };
/** How long a new tab takes an answer to its question for. */
const HANDOFF_WAIT_MS = 2000;

/**
 * Hands this tab's key to a new tab of the same dashboard that has none (a run opened in a new tab, the dashboard typed
 * again): the new tab asks once as it opens and takes the first key another open tab answers, so it is not silently
 * anonymous. The key stays in each tab's sessionStorage only; nothing is written to localStorage or cookies. Returns
 * the function that stops answering.
 */
export function shareKey(current: () => string | null, adopt: (key: string) => void): () => void {
  if (typeof BroadcastChannel === "undefined") return () => {};
  const channel = new BroadcastChannel(HANDOFF);
  // Only the answer to this tab's own question as it opens: a tab whose key was forgotten stays without one.
  let asking = !current();
  const stopAsking = setTimeout(() => (asking = false), HANDOFF_WAIT_MS);
  channel.onmessage = (e: MessageEvent<Handoff>) => {
    const key = current();
    if ("ask" in e.data && key) channel.postMessage({ key } satisfies Handoff);
    else if ("key" in e.data && asking && !key) {
      asking = false;
      adopt(e.data.key);
    }
  };
  if (asking) channel.postMessage({ ask: true } satisfies Handoff);
  return () => {
    clearTimeout(stopAsking);
    channel.close();
  };
}

/** The GraphQL endpoint of the server that served this page. */
export function endpoint(): string {
  return new URL("/graphql", location.origin).href;
}
