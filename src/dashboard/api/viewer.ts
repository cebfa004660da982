import { graphql, type ResultOf } from "tai42/client";
import { isAdmin as isAdminRole, mayAuthorOver, mayRun } from "../../auth/tiers.ts";
import type { Tier as DomainTier } from "../../auth/roles.ts";

export const ViewerQuery = graphql(`
  query Viewer {
    viewer {
      role
      keyName
      authenticated
      subject
      issuer
    }
  }
`);

/** Who the server sees: `role` null for an anonymous caller without access. */
export type Viewer = ResultOf<typeof ViewerQuery>["viewer"];
export type Role = NonNullable<Viewer["role"]>;
export type Tier = "READ" | "WRITE" | "FENCED" | "SECRET";

const lower = (tier: Tier) => tier.toLowerCase() as DomainTier;

/** Whether the viewer may run a tool of this tier (the server's own tier matrix). */
export function canRun(viewer: Viewer | null, tier: Tier): boolean {
  return !!viewer?.role && mayRun(viewer.role, lower(tier));
}

/** Whether the viewer may author a preset over a base of this tier. */
export function canAuthorOver(viewer: Viewer | null, tier: Tier): boolean {
  return !!viewer?.role && mayAuthorOver(viewer.role, lower(tier));
}

/** Whether the viewer holds ADMIN: composition (manifests, extensions, presets over fenced tools). */
export function isAdmin(viewer: Viewer | null): boolean {
  return !!viewer?.role && isAdminRole(viewer.role);
}
