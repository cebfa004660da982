/** Values shorter than this are not tracked: scrubbing them would mangle ordinary text and protect nothing. */
export const MIN_SECRET_LENGTH = 4;

/** A base64 core inside a longer text is matched only from this length: a shorter one is found by chance. */
const MIN_CORE_LENGTH = 8;

/** Configured secrets this long are also matched by every substring that reveals half of them or more. */
export const WINDOWED_LENGTH = 8;

/**
 * The longest such substring: a longer secret is matched by every part of it this long (a key file has thousands of
 * characters).
 */
export const WINDOW_MAX = 64;
/** The shortest window: a part of a configured secret shorter than this is not matched on its own. */
export const WINDOW_MIN = 8;

/**
 * Past this length a configured secret is matched whole only: its windows would cost its length times {@link
 * WINDOW_MAX} in memory.
 */
export const WINDOWED_MAX_LENGTH = 16_384;

/** The JSON-escaped form of `value` (a secret inside serialized JSON text). */
const jsonEscaped = (value: string) => JSON.stringify(value).slice(1, -1);

/** `value` reversed by code point. */
const reversed = (value: string) => [...value].reverse().join("");

const base64url = (b64: string) => b64.replace(/\+/g, "-").replace(/\//g, "_");

/** URL-encodings: `encodeURIComponent`, the same with `+` for spaces, and `application/x-www-form-urlencoded`. */
function urlEncoded(value: string): string[] {
  try {
    const component = encodeURIComponent(value);
    return [component, component.replace(/%20/g, "+"), new URLSearchParams({ v: value }).toString().slice(2)];
  } catch {
    return []; // a lone surrogate has no URL encoding
  }
}

/**
 * The base64 characters fully determined by `bytes` when they sit at each of the three
 * byte alignments inside a longer encoded text: the characters that mix in bits of the
 * neighbouring (unknown) bytes are cut off both ends.
 */
function base64Cores(bytes: Buffer): string[] {
  const cores: string[] = [];
  for (const offset of [0, 1, 2]) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes])
      .toString("base64")
      .replace(/=+$/, "");
    const head = [0, 2, 3][offset];
    const tail = (bytes.length + offset) % 3 === 0 ? 0 : 1;
    const core = encoded.slice(head, encoded.length - tail);
    if (core.length >= MIN_CORE_LENGTH) cores.push(core);
  }
  return cores;
}

/** Base64 and base64url of `value`'s UTF-8 bytes: whole (padded and not), and the cores of {@link base64Cores}. */
function base64Forms(value: string): string[] {
  const bytes = Buffer.from(value, "utf8");
  const padded = bytes.toString("base64");
  const plain = [padded, padded.replace(/=+$/, ""), ...base64Cores(bytes)];
  return [...plain, ...plain.map(base64url)];
}

/**
 * Every form `value` is matched in (docs/security-model.md §3), deduplicated, each at least
 * {@link MIN_SECRET_LENGTH} long: as written, JSON-escaped, reversed (and that JSON-escaped),
 * URL-encoded, hex of its UTF-8 bytes, base64 and base64url. Matching is case-folded, so
 * one form stands for every case of it (upper-case hex, `%2f`, an upper-cased secret).
 */
export function formsOf(value: string): string[] {
  const back = reversed(value);
  const forms = [
    value,
    jsonEscaped(value),
    back,
    jsonEscaped(back),
    ...urlEncoded(value),
    Buffer.from(value, "utf8").toString("hex"),
    ...base64Forms(value),
  ];
  return [...new Set(forms)].filter((f) => f.length >= MIN_SECRET_LENGTH);
}

/**
 * The forms of a configured secret (a credential or a resolved `!ENV` value): those of
 * {@link formsOf} and, from {@link WINDOWED_LENGTH} characters, every substring of
 * ceil(n/2) characters of it (at most {@link WINDOW_MAX}) as written and JSON-escaped, so
 * any leaked part that reveals half of it or more is found (the merged matches cover the
 * whole leaked part). Up to {@link WINDOWED_MAX_LENGTH} characters.
 */
export function configuredFormsOf(value: string): string[] {
  const forms = formsOf(value);
  if (value.length < WINDOWED_LENGTH || value.length > WINDOWED_MAX_LENGTH) return forms;
  const windows = [value, jsonEscaped(value)].flatMap((s) => {
    // At least 8 characters: a 4-character piece of an 8-character password ("post" of
    // "postgres") is an ordinary word, and scrubbing it would rewrite every text holding it.
    const size = Math.min(WINDOW_MAX, Math.max(WINDOW_MIN, Math.ceil(s.length / 2)));
    return Array.from({ length: s.length - size + 1 }, (_, i) => s.slice(i, i + size));
  });
  return [...new Set([...forms, ...windows])].filter((f) => f.length >= MIN_SECRET_LENGTH);
}
