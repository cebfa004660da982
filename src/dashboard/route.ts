import { useEffect, useState } from "react";

/** The dashboard's screens, in the order the navigation lists them. */
export const SCREENS = [
  "tools",
  "runs",
  "spans",
  "interactions",
  "agents",
  "composition",
  "connectors",
  "schedules",
] as const;

/** The screens only an ADMIN is shown (a lower role is refused them by the server too). */
export const ADMIN_SCREENS: readonly Screen[] = ["connectors", "schedules"];
export type Screen = (typeof SCREENS)[number];

/**
 * Where the page is: a screen and, for some, the item it shows (`#/runs/<id>`, `#/tools/<name>`,
 * `#/connectors/<name>`, `#/schedules/<name>`).
 */
export interface Route {
  screen: Screen;
  item: string | null;
}

/** Reads `#/<screen>/<item>`; anything else is the tools screen. */
export function parseRoute(hash: string): Route {
  const [screen, ...rest] = hash.replace(/^#\/?/, "").split("/");
  const item = rest.length ? decodeURIComponent(rest.join("/")) : null;
  return (SCREENS as readonly string[]).includes(screen)
    ? { screen: screen as Screen, item }
    : { screen: "tools", item: null };
}

/** The link of a screen (and item): what `href` and {@link navigate} take. */
export function linkTo(screen: Screen, item?: string | null): string {
  return `#/${screen}${item ? `/${encodeURIComponent(item)}` : ""}`;
}

/** Goes to a screen (and item), as a link would. */
export function navigate(screen: Screen, item?: string | null): void {
  location.hash = linkTo(screen, item);
}

/** The current route, following the location's hash. */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseRoute(location.hash));
    addEventListener("hashchange", onChange);
    return () => removeEventListener("hashchange", onChange);
  }, []);
  return route;
}
