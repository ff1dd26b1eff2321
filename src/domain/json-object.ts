// Request bodies arrive as parsed JSON of unknown shape. These checks are the only
// way domain code looks into them, and echoText the only way it quotes one back.

export type JsonObject = Readonly<Record<string, unknown>>;

/** A JSON object: not null, not an array, not a class instance. */
export function isJsonObject(value: unknown): value is JsonObject {
  if (typeof value !== 'object' || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Own properties only: a polluted prototype must never supply a field. */
export function ownField(obj: JsonObject, key: string): unknown {
  return Object.hasOwn(obj, key) ? obj[key] : undefined;
}

/**
 * A value of a body as text for an error message. Never String() alone on untrusted
 * values: `{"toString": 1}` and objects without a prototype make it throw.
 */
export function echoText(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}
