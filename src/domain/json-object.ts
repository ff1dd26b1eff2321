// Request bodies arrive as parsed JSON of unknown shape. These two checks are the
// only way domain code looks into them.

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
