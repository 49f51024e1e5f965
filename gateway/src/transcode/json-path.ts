/** Joins a field name onto an error path: `metadata_changeset` + `put_tags` is `metadata_changeset.put_tags`. */
export function fieldPath(prefix: string, name: string): string {
  return prefix === "" ? name : `${prefix}.${name}`;
}

/** The path of a list element, for example `put_tags[2]`. */
export function indexPath(prefix: string, index: number): string {
  return `${prefix}[${index}]`;
}

/** The path of a map entry or Struct key, for example `labels["a.b"]`. */
export function keyPath(prefix: string, key: string): string {
  return `${prefix}[${JSON.stringify(key)}]`;
}

/** Sets a property as an own data property, so a `__proto__` key from JSON cannot change a prototype. */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    target[key] = value;
  }
}

/** True for a JSON object: not null, not an array. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
