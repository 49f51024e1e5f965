import { createHash } from "node:crypto";
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import type { Value } from "@bufbuild/protobuf/wkt";
import { invalidArgument, notFound, uniqueTags, quoteValue } from "@hangar/shared";
import { checkTimeout, resolveComputeRequirements } from "./compute-defaults";

/** The longest action name (the spec's limit for trigger names, which name actions). */
export const MAX_ACTION_NAME_LENGTH = 256;

/**
 * Action names are path segments (`/v1/actions/{name}`), so they keep to characters that need no
 * encoding; the first may not be `.` or `-`, which rules out the unaddressable `.` and `..`.
 */
const ACTION_NAME_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

/** The longest short description (the client SDK refuses longer ones before sending). */
export const MAX_SHORT_DESCRIPTION_LENGTH = 140;

/** Who may query for and invoke an action: the owning org's members, or everyone (the Action Hub). */
export const ACCESSIBILITIES = ["organization", "action_hub"] as const;
export type Accessibility = (typeof ACCESSIBILITIES)[number];

/** A parameter an invocation may (or must) give a value for; `default` is kept as a string. */
export interface ActionParameterDef {
  name: string;
  required: boolean;
  description: string | null;
  default: string | null;
}

/** A reference to an action, optionally at a digest and in an owner org. */
export interface ActionReferenceDef {
  name: string;
  digest: string | null;
  owner: string | null;
}

/**
 * The part of an action that its digest covers, stored as the `definition` JSON with exactly
 * these keys. Compute requirements use the SDK's keys (`vCPU`, `memory`, `gpu`, `storage`).
 */
export interface ActionDefinitionFields {
  compute_requirements: JsonObject | null;
  container_parameters: JsonObject | null;
  description: string | null;
  short_description: string | null;
  inherits: ActionReferenceDef | null;
  parameters: ActionParameterDef[];
  requires_downloaded_inputs: boolean | null;
  timeout: number | null;
  uri: string | null;
}

/** Definition edits as a request carries them: an absent key leaves the field alone, null clears it. */
export type DefinitionChanges = { [K in Exclude<keyof ActionDefinitionFields, "inherits">]?: ActionDefinitionFields[K] | null };

/** An action another one inherits from: the reference as resolved (digest and owner filled in) and its definition. */
export interface ParentAction {
  reference: ActionReferenceDef;
  definition: ActionDefinitionFields;
}

/** put_parameters adds or replaces by name; remove_parameters names existing parameters. */
export interface ParameterChanges {
  put: ActionParameterDef[];
  remove: readonly string[];
}

/** A definition with every field unset. */
export const EMPTY_DEFINITION: ActionDefinitionFields = {
  compute_requirements: null,
  container_parameters: null,
  description: null,
  short_description: null,
  inherits: null,
  parameters: [],
  requires_downloaded_inputs: null,
  timeout: null,
  uri: null,
};

/** Validates an action name from a request. */
export function checkActionName(name: string): string {
  if (name.length === 0) throw invalidArgument("name", "must not be empty");
  if (name.length > MAX_ACTION_NAME_LENGTH) throw invalidArgument("name", `must be at most ${MAX_ACTION_NAME_LENGTH} characters (got ${name.length})`);
  if (!ACTION_NAME_PATTERN.test(name)) {
    throw invalidArgument("name", "may contain only letters, digits, '_', '.' and '-', and must not start with '.' or '-'");
  }
  return name;
}

/** Validates a requested accessibility. */
export function checkAccessibility(value: string): Accessibility {
  const known = ACCESSIBILITIES.find((a) => a === value);
  if (!known) throw invalidArgument("accessibility", `must be one of ${ACCESSIBILITIES.join(", ")} (got ${quoteValue(value)})`);
  return known;
}

/** Validates tags from a request: non-empty strings, duplicates dropped. */
export function checkActionTags(tags: readonly string[], field: string): string[] {
  const empty = tags.findIndex((tag) => tag.length === 0);
  if (empty >= 0) throw invalidArgument(`${field}[${empty}]`, "must not be empty");
  return uniqueTags(tags);
}

/**
 * The definition a request produces from `base`: the changes applied and checked, then, when the
 * request names a parent, the reference recorded and every field still unset (null, or no
 * parameters) taken from the parent's definition at its digest. A null `parent` clears the reference.
 */
export function composeDefinition(base: ActionDefinitionFields, changes: DefinitionChanges, parent?: ParentAction | null): ActionDefinitionFields {
  const result: ActionDefinitionFields = { ...base, ...checkChanges(changes) };
  if (parent === null) result.inherits = null;
  if (!parent) return result;
  result.inherits = parent.reference;
  for (const key of INHERITABLE) {
    if (isUnset(result[key])) Object.assign(result, { [key]: parent.definition[key] });
  }
  return result;
}

const INHERITABLE = (Object.keys(EMPTY_DEFINITION) as (keyof ActionDefinitionFields)[]).filter((key) => key !== "inherits");

function isUnset(value: unknown): boolean {
  return value === null || (Array.isArray(value) && value.length === 0);
}

// Only the keys present are returned, so spreading the result leaves the other fields alone.
function checkChanges(changes: DefinitionChanges): Partial<ActionDefinitionFields> {
  const checked: Partial<ActionDefinitionFields> = {};
  for (const [key, value] of Object.entries(changes) as [keyof DefinitionChanges, unknown][]) {
    if (value !== undefined) Object.assign(checked, { [key]: value === null ? EMPTY_DEFINITION[key] : checkField(key, value) });
  }
  return checked;
}

function checkField(key: keyof DefinitionChanges, value: unknown): unknown {
  switch (key) {
    case "compute_requirements":
      return resolveComputeRequirements(null, value as JsonObject, "compute_requirements");
    case "parameters":
      return checkParameters(value as ActionParameterDef[], "parameters");
    case "timeout":
      return checkTimeout(value as number, "timeout");
    case "uri":
      if ((value as string).trim() === "") throw invalidArgument("uri", "must not be empty");
      return value;
    case "short_description":
      if ((value as string).length > MAX_SHORT_DESCRIPTION_LENGTH) {
        throw invalidArgument("short_description", `must be at most ${MAX_SHORT_DESCRIPTION_LENGTH} characters`);
      }
      return value;
    default:
      return value;
  }
}

/** Checks parameter names: non-empty and unique. `field` names the list in errors. */
export function checkParameters(parameters: ActionParameterDef[], field: string): ActionParameterDef[] {
  const seen = new Set<string>();
  parameters.forEach((parameter, i) => {
    if (parameter.name.length === 0) throw invalidArgument(`${field}[${i}].name`, "must not be empty");
    if (seen.has(parameter.name)) throw invalidArgument(`${field}[${i}].name`, `${quoteValue(parameter.name)} is given more than once`);
    seen.add(parameter.name);
  });
  return parameters;
}

/**
 * Applies a parameter changeset: removals first (each must name a current parameter), then puts,
 * which replace a parameter of the same name in place or append a new one.
 */
export function applyParameterChanges(current: readonly ActionParameterDef[], changes: ParameterChanges): ActionParameterDef[] {
  const field = "parameter_changeset";
  changes.remove.forEach((name, i) => {
    if (!current.some((p) => p.name === name)) throw invalidArgument(`${field}.remove_parameters[${i}]`, `${quoteValue(name)} is not a parameter of this action`);
  });
  const result = current.filter((p) => !changes.remove.includes(p.name));
  for (const parameter of checkParameters(changes.put, `${field}.put_parameters`)) {
    const at = result.findIndex((p) => p.name === parameter.name);
    if (at >= 0) result[at] = parameter;
    else result.push(parameter);
  }
  return result;
}

/** A parameter default as stored: strings as they are, other JSON values as their JSON text, null as null. */
export function parameterDefault(value: JsonValue | undefined): string | null {
  if (value === undefined || value === null) return null;
  return typeof value === "string" ? value : JSON.stringify(value);
}

/**
 * The digest of a definition: sha256 over the canonical JSON (keys sorted) of the org, the name
 * and the definition, as 32 hex digits. Equal definitions give equal digests whatever the key order.
 */
export function actionDigest(orgId: string, name: string, definition: ActionDefinitionFields | JsonObject): string {
  const text = JSON.stringify({ org_id: orgId, name, definition }, sortedKeys);
  return createHash("sha256").update(text).digest("hex").slice(0, 32);
}

function sortedKeys(_key: string, value: unknown): unknown {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Reads a stored definition; keys missing from it read as unset. */
export function definitionFields(stored: JsonObject): ActionDefinitionFields {
  return { ...EMPTY_DEFINITION, ...(stored as Partial<ActionDefinitionFields>) };
}

/** The definition in its stored (JSON) form. */
export function definitionJson(fields: ActionDefinitionFields): JsonObject {
  return { ...fields } as unknown as JsonObject;
}

/** When an action counts as published: set when it moves onto the Action Hub, kept while there, cleared when it leaves. */
export function publishedAt(current: { accessibility: string; published: Date | null }, next: Accessibility, now: Date): Date | null {
  if (next !== "action_hub") return null;
  return current.accessibility === "action_hub" && current.published ? current.published : now;
}

/**
 * Who may read an action: members of its org, and anyone when it is on the Action Hub. Returns
 * the action, or throws not found, so that a private action's existence does not leak.
 */
export function checkReadable<T extends { accessibility: string }>(action: T | null, member: boolean, name: string): T {
  if (!action || (!member && action.accessibility !== "action_hub")) throw notFound("action", name);
  return action;
}

/** Reads an update field carried as a google.protobuf.Value: undefined when omitted, null when cleared, else an integer. */
export function nullableInteger(value: Value | undefined, field: string): number | null | undefined {
  if (value === undefined) return undefined;
  if (value.kind.case === "nullValue" || value.kind.case === undefined) return null;
  if (value.kind.case === "numberValue" && Number.isInteger(value.kind.value)) return value.kind.value;
  throw invalidArgument(field, "expected an integer or null");
}

/** Reads an update field carried as a google.protobuf.Value: undefined when omitted, null when cleared, else a boolean. */
export function nullableBoolean(value: Value | undefined, field: string): boolean | null | undefined {
  if (value === undefined) return undefined;
  if (value.kind.case === "nullValue" || value.kind.case === undefined) return null;
  if (value.kind.case === "boolValue") return value.kind.value;
  throw invalidArgument(field, "expected true, false or null");
}
