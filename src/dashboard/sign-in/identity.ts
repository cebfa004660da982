/** `GET /dashboard/identity.json` (src/server/dashboard.ts): the issuers this dashboard signs in through. */
export interface IdentityJson {
  /** This server as an OAuth resource (RFC 8707): what every token is asked for. */
  resource?: string;
  issuers: { issuer: string; clientId: string; scope: string }[];
}

export type SignInIssuer = IdentityJson["issuers"][number] & { resource: string };

/** The issuers of identity.json; none when the server has none or cannot say. */
export async function loadIssuers(): Promise<SignInIssuer[]> {
  try {
    const res = await fetch(new URL("/dashboard/identity.json", location.origin));
    if (!res.ok) return [];
    const body = (await res.json()) as IdentityJson;
    const resource = body.resource ?? location.origin;
    return (body.issuers ?? []).map((i) => ({ ...i, resource }));
  } catch {
    return [];
  }
}

/** The host an issuer is named by on its button ("Sign in with login.example.com"). */
export function issuerHost(issuer: string): string {
  try {
    return new URL(issuer).host;
  } catch {
    return issuer;
  }
}
