import type { ToolError } from "../../errors.ts";

/**
 * Reads a response body as UTF-8 text, at most `maxBytes` of it (docs/connectors.md §9): a
 * body announced or found larger is cancelled as soon as the limit is passed (the rest is
 * never read) and rejects with `tooLarge()`. A stream error (an abort, a
 * dropped connection) rejects as the stream's own error, for the caller to classify.
 */
export async function readBounded(response: Response, maxBytes: number, tooLarge: () => ToolError): Promise<string> {
  const refuse = async (): Promise<never> => {
    await response.body?.cancel().catch(() => undefined);
    throw tooLarge();
  };
  const announced = Number(response.headers.get("content-length") ?? Number.NaN);
  if (Number.isFinite(announced) && announced > maxBytes) return refuse();
  if (!response.body) return "";
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let read = 0;
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    read += value.byteLength;
    if (read > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    text += decoder.decode(value, { stream: true });
  }
}
