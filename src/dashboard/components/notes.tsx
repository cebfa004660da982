import type { ReactNode } from "react";

/** A failure to show where it happened (a refused request, a stream that ended in error). */
export function ErrorNote({ error }: { error: string | null | undefined }) {
  if (!error) return null;
  return (
    <div className="note bad" role="alert">
      {error}
    </div>
  );
}

/** Why something is not offered to this viewer. */
export function ForbiddenNote({ children }: { children: ReactNode }) {
  return (
    <div className="note warn" data-testid="forbidden-note">
      {children}
    </div>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <div className="empty">{children}</div>;
}
