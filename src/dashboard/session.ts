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

/** The GraphQL endpoint of the server that served this page. */
export function endpoint(): string {
  return new URL("/graphql", location.origin).href;
}
