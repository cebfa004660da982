import { useEffect, useState } from "react";
import { Fallback } from "./components/fallback.tsx";
import { ForbiddenNote } from "./components/notes.tsx";
import { ConnectionProvider, useConnection } from "./connection.tsx";
import { IdentityBar } from "./identity-bar.tsx";
import { ADMIN_SCREENS, linkTo, SCREENS, useRoute, type Route, type Screen } from "./route.ts";
import { AgentsScreen } from "./screens/agents/agents-screen.tsx";
import { CompositionScreen } from "./screens/composition/composition-screen.tsx";
import { ConnectorsScreen } from "./screens/connectors/connectors-screen.tsx";
import { InteractionsScreen } from "./screens/interactions/interactions-screen.tsx";
import { RunsScreen } from "./screens/runs/runs-screen.tsx";
import { SpansScreen } from "./screens/spans/spans-screen.tsx";
import { SchedulesScreen } from "./screens/schedules/schedules-screen.tsx";
import { ToolsScreen } from "./screens/tools/tools-screen.tsx";
import { isAdmin } from "./api/viewer.ts";

const TITLES: Record<Screen, { title: string; about: string }> = {
  tools: { title: "Tools", about: "The surface: tools, presets, branches and agents, each with a run form." },
  runs: { title: "Runs", about: "Every run you may see, live, with its attempts, waits, events and output." },
  spans: { title: "Spans", about: "Traced calls of monitored branches, as they open and close." },
  interactions: { title: "Interactions", about: "Questions parked runs wait on; answer them here." },
  agents: {
    title: "Agents",
    about: "Run any agent from the input it declares, watch its answer stream, approve what it wants to do.",
  },
  composition: { title: "Composition", about: "Presets, manifests and the extension catalog." },
  connectors: {
    title: "Connectors",
    about: "MCP servers and OpenAPI services whose tools join the surface, with the tiers you assign them.",
  },
  schedules: {
    title: "Schedules",
    about: "Cron schedules that run a tool or preset in the background on each tick, with their next ticks and runs.",
  },
};

/** The dashboard: navigation, who you are, and the screen the location names. */
export function App() {
  return (
    <ConnectionProvider>
      <Shell />
    </ConnectionProvider>
  );
}

function Shell() {
  const route = useRoute();
  const { viewer, viewerError, signIn } = useConnection();
  const { title, about } = TITLES[route.screen];
  // On a narrow screen the navigation folds behind a Menu button (styles/narrow.css); a chosen screen folds it again.
  const [menu, setMenu] = useState(false);
  useEffect(() => setMenu(false), [route.screen, route.item]);
  return (
    <div className="shell">
      <aside className={`sidebar${menu ? " open" : ""}`}>
        <div className="brand">
          <img src="/dashboard/assets/favicon.svg" alt="" />
          <div>
            tai42
            <br />
            <small>dashboard</small>
          </div>
        </div>
        <button
          className="menu-toggle"
          aria-expanded={menu}
          aria-controls="screens-nav"
          onClick={() => setMenu((m) => !m)}
        >
          <span aria-hidden>{menu ? "✕" : "☰"}</span> Menu
          <span className="muted" aria-hidden>
            · {title}
          </span>
        </button>
        <nav className="nav" id="screens-nav" aria-label="Screens">
          {SCREENS.filter((s) => isAdmin(viewer) || !ADMIN_SCREENS.includes(s)).map((s) => (
            <a
              key={s}
              href={linkTo(s)}
              className={s === route.screen ? "active" : undefined}
              aria-current={s === route.screen ? "page" : undefined}
            >
              {TITLES[s].title}
              {s === "composition" && !isAdmin(viewer) && <span className="faint">admin</span>}
            </a>
          ))}
        </nav>
        <div className="sidebar-foot">
          <a href="/graphql">GraphiQL</a>
          <span>Everything here goes through the same GraphQL API.</span>
        </div>
      </aside>
      <div className="main">
        <header className="topbar">
          <div className="title">
            <h1>{title}</h1>
            <p>{about}</p>
          </div>
          <IdentityBar />
        </header>
        <main className="content">
          {viewerError && (
            <div className="note bad" role="alert">
              {signIn.tokens
                ? `The server refused your sign-in: ${viewerError}. Sign out and in again, or use a key (top right).`
                : `The server refused the key: ${viewerError}. Change it or forget it (top right).`}
            </div>
          )}
          {viewer && !viewer.role && (
            <ForbiddenNote>
              This server gives anonymous callers no access: enter an API key
              {signIn.issuers.length ? " or sign in" : ""} (top right) to use the dashboard.
            </ForbiddenNote>
          )}
          <Fallback key={`${route.screen}/${route.item ?? ""}`} what="This screen">
            <Current route={route} />
          </Fallback>
        </main>
      </div>
    </div>
  );
}

function Current({ route }: { route: Route }) {
  switch (route.screen) {
    case "tools":
      return <ToolsScreen selected={route.item} />;
    case "runs":
      return <RunsScreen selected={route.item} />;
    case "spans":
      return <SpansScreen />;
    case "interactions":
      return <InteractionsScreen />;
    case "agents":
      return <AgentsScreen />;
    case "composition":
      return <CompositionScreen />;
    case "connectors":
      return <ConnectorsScreen selected={route.item} />;
    case "schedules":
      return <SchedulesScreen selected={route.item} />;
  }
}
