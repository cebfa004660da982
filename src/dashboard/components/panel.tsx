import type { ReactNode } from "react";

/**
 * A titled panel of a screen: `title` names it (also for assistive technology and
 * tests), `aside` sits at the header's right, `flush` drops the body's padding (tables,
 * lists).
 */
export function Panel({
  title,
  heading,
  aside,
  flush = false,
  children,
  testId,
}: {
  title: string;
  heading?: ReactNode;
  aside?: ReactNode;
  flush?: boolean;
  children: ReactNode;
  testId?: string;
}) {
  return (
    <section className="panel" aria-label={title} data-testid={testId}>
      <header>
        {heading ?? <h2>{title}</h2>}
        {aside}
      </header>
      <div className={flush ? "body flush" : "body"}>{children}</div>
    </section>
  );
}
