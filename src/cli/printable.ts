/**
 * Control characters a terminal acts on (C0 with ESC, DEL, C1) and the bidirectional
 * overrides that reorder what it shows: a file name or a diagnostic that echoes one would
 * move the cursor, recolour, retitle or hide output.
 */
const UNPRINTABLE = /[\p{Cc}\u202a-\u202e\u2066-\u2069]/gu;

/**
 * `text` with every control character written as its JSON escape (`\u001b`), for a line that echoes a path or a
 * diagnostic.
 */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
