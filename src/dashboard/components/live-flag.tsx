/** Whether a view follows the server live (its subscription is open), as a dot and a word. */
export function LiveFlag({ live, text }: { live: boolean; text?: string }) {
  return <span className={`conn${live ? " live" : ""}`}>{text ?? (live ? "live" : "not live")}</span>;
}
