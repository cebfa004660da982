import type { Issue } from "../api/errors.ts";

/** The issues at `path` or under it (`/settings` takes `/settings/url`). */
export function issuesAt(issues: readonly Issue[], path: string): Issue[] {
  return issues.filter((i) => i.path === path || i.path.startsWith(`${path}/`));
}

/** A refusal's issues, each at its path. */
export function IssueList({ issues }: { issues: readonly Issue[] }) {
  if (!issues.length) return null;
  return (
    <ul className="issues bad-text" data-testid="issues">
      {issues.map((i, n) => (
        <li key={n} data-issue-path={i.path}>
          <code>{i.path || "/"}</code> {i.message}
        </li>
      ))}
    </ul>
  );
}
