/**
 * Every run of base64 or base64url characters left in `text` around "[redacted]", decoded at each of the 4 character
 * offsets.
 */
export function decodedBase64Runs(text: string): string[] {
  const runs = text.split("[redacted]").flatMap((piece) => piece.match(/[A-Za-z0-9+/_-]{4,}/g) ?? []);
  return runs.flatMap((run) =>
    [0, 1, 2, 3].map((off) =>
      Buffer.from(run.slice(off).replace(/-/g, "+").replace(/_/g, "/"), "base64").toString("latin1"),
    ),
  );
}
