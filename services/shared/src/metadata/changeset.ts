import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import { invalidArgument, quoteValue } from "../errors";

/** The edits of a metadata (or custom-field) changeset, as the wire carries them. */
export interface FieldChanges {
  putFields?: JsonObject | undefined;
  removeFields: readonly string[];
  replaceAll: boolean;
}

/** A changeset that also edits tags. */
export interface MetadataChanges extends FieldChanges {
  putTags: readonly string[];
  removeTags: readonly string[];
}

/**
 * Applies field edits: `replace_all` starts from an empty object, then each `put_fields` dot path
 * is set (creating nested objects; numeric segments index existing lists), then each
 * `remove_fields` path is removed, and with it every object or list on the path that the removal
 * left empty (as the client SDK's changeset applies). Returns a new object; the input is not modified.
 */
export function applyFieldChanges(current: JsonObject, changes: FieldChanges, field: string): JsonObject {
  const result: JsonObject = changes.replaceAll ? {} : structuredClone(current);
  for (const [path, value] of Object.entries(changes.putFields ?? {})) {
    setPath(result, splitPath(path, `${field}.put_fields`), value, `${field}.put_fields.${path}`);
  }
  for (const path of changes.removeFields) removePath(result, splitPath(path, `${field}.remove_fields`));
  return result;
}

/** Custom-field edits: the tagless changeset's fields, or the client SDK's `set_fields` and `clear_fields`. */
export interface CustomFieldChanges extends FieldChanges {
  setFields?: JsonObject | undefined;
  clearFields: readonly string[];
}

/**
 * Applies custom-field edits: the field edits first, then each `set_fields` name is set and each
 * `clear_fields` name is set to null (names, not dot paths, as the client SDK applies them).
 */
export function applyCustomFieldChanges(current: JsonObject, changes: CustomFieldChanges, field: string): JsonObject {
  const result = applyFieldChanges(current, changes, field);
  for (const [name, value] of Object.entries(changes.setFields ?? {})) setOwnValue(result, name, value);
  for (const name of changes.clearFields) setOwnValue(result, name, null);
  return result;
}

/** Applies tag edits: `put_tags` adds without duplicates, `remove_tags` removes; `replace_all` clears first. */
export function applyTagChanges(current: readonly string[], changes: MetadataChanges): string[] {
  const tags = changes.replaceAll ? [] : [...current];
  for (const tag of changes.putTags) if (!tags.includes(tag)) tags.push(tag);
  return tags.filter((tag) => !changes.removeTags.includes(tag));
}

/** Removes duplicate tags, keeping first occurrences in order. */
export function uniqueTags(tags: readonly string[]): string[] {
  return [...new Set(tags)];
}

/**
 * Deepest dot path a changeset may write. Metadata nested deeper than the gateway accepts in a
 * request body (32 levels) could be stored but never read back through protobuf's recursion limit.
 */
export const MAX_PATH_SEGMENTS = 30;

function splitPath(path: string, field: string): string[] {
  const segments = path.split(".");
  if (segments.some((s) => s.length === 0)) throw invalidArgument(field, `${quoteValue(path)} is not a valid dot path`);
  if (segments.length > MAX_PATH_SEGMENTS) throw invalidArgument(field, `'${path.slice(0, 60)}...' is deeper than ${MAX_PATH_SEGMENTS} segments`);
  return segments;
}

function setPath(root: JsonObject, segments: string[], value: JsonValue, field: string): void {
  let node: JsonValue = root;
  for (let i = 0; i < segments.length; i++) {
    const last = i === segments.length - 1;
    const segment = segments[i]!;
    if (Array.isArray(node)) {
      const index = listIndex(segment, node.length, field);
      if (last) node[index] = value;
      else node = node[index] = isContainer(node[index]) ? node[index]! : {};
    } else {
      const object = node as JsonObject;
      const child = ownValue(object, segment);
      const next = last ? value : isContainer(child) ? child : {};
      setOwnValue(object, segment, next);
      node = next;
    }
  }
}

function removePath(root: JsonObject, segments: string[]): void {
  // The containers from the root down to the removed value's parent: `containers[i + 1]` is
  // `containers[i]`'s child at `segments[i]`.
  const containers: JsonValue[] = [root];
  for (const segment of segments.slice(0, -1)) {
    const child = childOf(containers[containers.length - 1]!, segment);
    if (child === undefined) return;
    containers.push(child);
  }
  removeChild(containers[containers.length - 1]!, segments[segments.length - 1]!);
  for (let i = containers.length - 1; i > 0 && isEmptyContainer(containers[i]!); i--) removeChild(containers[i - 1]!, segments[i - 1]!);
}

function childOf(node: JsonValue, segment: string): JsonValue | undefined {
  return Array.isArray(node) ? node[Number(segment)] : isObject(node) ? ownValue(node, segment) : undefined;
}

function removeChild(node: JsonValue, segment: string): void {
  if (Array.isArray(node)) {
    const index = Number(segment);
    if (Number.isInteger(index) && index >= 0 && index < node.length) node.splice(index, 1);
  } else if (isObject(node) && Object.hasOwn(node, segment)) {
    delete node[segment];
  }
}

function isEmptyContainer(value: JsonValue): boolean {
  return Array.isArray(value) ? value.length === 0 : isObject(value) && Object.keys(value).length === 0;
}

// Keys are user data: reading or writing `obj[key]` for a key like `__proto__` would reach the
// prototype (and could pollute Object.prototype), so only own properties are read and defined.
function ownValue(object: JsonObject, key: string): JsonValue | undefined {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

function setOwnValue(object: JsonObject, key: string, value: JsonValue): void {
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
}

function listIndex(segment: string, length: number, field: string): number {
  const index = Number(segment);
  // Setting one past the end appends; anything further would leave holes.
  if (!/^\d+$/.test(segment) || index > length) throw invalidArgument(field, `list index ${quoteValue(segment)} is out of range`);
  return index;
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isContainer(value: JsonValue | undefined): value is JsonObject | JsonValue[] {
  return typeof value === "object" && value !== null;
}
