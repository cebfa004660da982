/**
 * The form's data as the JSON value it stands for, which is what cfworker validates (it
 * throws on `undefined`). rjsf keeps a cleared field as a key holding `undefined`; ajv
 * counts such a key as absent (so `required` still fails), and so does this: the key
 * goes. An `undefined` array item or root becomes `null` (still the wrong type, as ajv
 * would say of `undefined`).
 */
export function jsonInstance(value: unknown): unknown {
  if (value === undefined) return null;
  if (Array.isArray(value)) return value.map(jsonInstance);
  if (value === null || typeof value !== "object" || !isPlain(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = jsonInstance(v);
  return out;
}

function isPlain(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
