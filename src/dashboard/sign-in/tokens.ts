/**
 * What the dashboard keeps of a sign-in, in this tab's sessionStorage only (gone when the tab closes; never
 * localStorage, never a cookie): the tokens the issuer gave, and while the browser is at the issuer, the PKCE verifier
 * and state the way back is checked with.
 */
const TOKENS = "tai42.signIn";
const PENDING = "tai42.signIn.pending";

/** The tokens of a signed-in tab. */
export interface SignedIn {
  issuer: string;
  accessToken: string;
  refreshToken?: string | undefined;
  idToken?: string | undefined;
  /** When the access token was issued and when it expires (ms since the epoch); expiresAt null: the issuer said not. */
  issuedAt: number;
  expiresAt: number | null;
}

/** A sign-in under way: what the browser left for the issuer with. */
export interface Pending {
  issuer: string;
  verifier: string;
  state: string;
  /** The dashboard route (`#/runs/…`) to land on again. */
  hash: string;
}

function read<T>(name: string): T | null {
  try {
    return JSON.parse(sessionStorage.getItem(name) ?? "null") as T | null;
  } catch {
    return null;
  }
}

function write(name: string, value: unknown): void {
  if (value) sessionStorage.setItem(name, JSON.stringify(value));
  else sessionStorage.removeItem(name);
}

export const storedTokens = (): SignedIn | null => read<SignedIn>(TOKENS);
export const storeTokens = (tokens: SignedIn | null): void => write(TOKENS, tokens);
export const pendingSignIn = (): Pending | null => read<Pending>(PENDING);
export const storePending = (pending: Pending | null): void => write(PENDING, pending);

/** How long the refresh before expiry is at most: a minute, or half the token's life for a short one. */
const REFRESH_LEAD_MS = 60_000;

/** The longest delay a timer takes: a longer one (2^31 ms, about 24.8 days) fires at once, in a refresh loop. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Milliseconds from `now` until the access token is to be refreshed (0: now); null when it never expires. At most
 * {@link MAX_TIMER_MS}: a token living longer is refreshed early rather than at once over and over.
 */
export function refreshDelay(tokens: SignedIn, now = Date.now()): number | null {
  if (tokens.expiresAt === null) return null;
  const life = tokens.expiresAt - tokens.issuedAt;
  const lead = Math.min(REFRESH_LEAD_MS, life / 2);
  return Math.min(MAX_TIMER_MS, Math.max(0, tokens.expiresAt - lead - now));
}
