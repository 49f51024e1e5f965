import type { DescField, DescMessage } from "@bufbuild/protobuf";
import type { Route } from "@hangar/gateway";
import { shapeOf, elementShape } from "./field-shape";

/** Where a request carries a field: a path variable, a query parameter or the JSON body. */
export type SiteLocation = "path" | "query" | "body";

/** One place in an operation's request that the fuzzer puts bad values into. */
export interface FieldSite {
  readonly location: SiteLocation;
  /** The field; undefined for the body as a whole. */
  readonly field: DescField | undefined;
  /**
   * The message fields around the field, outermost first (a list stands for its first item); for a
   * body site they are relative to the body, for a query site they make the dotted parameter name.
   */
  readonly parents: readonly DescField[];
  /** For reports: `query.limit`, `operations[0].src_path`, `(body)`. */
  readonly label: string;
}

/** How deep the fuzzer follows message fields: deep enough for `create_request.association.association_id`. */
const MAX_NESTING = 3;

/**
 * Every site of a route: each path variable, each field of the body (with the fields of nested
 * messages, and of the first item of lists of messages), the body as a whole, and for bindings
 * whose body is not `*`, each field the query string can set.
 */
export function routeSites(route: Route): FieldSite[] {
  const input = route.method.input;
  const bound = new Set(route.template.variables.map((v) => v.fieldPath[0]!));
  const sites: FieldSite[] = route.template.variables.map((v) => pathSite(input, v.fieldPath));
  if (route.body === "*") {
    sites.push(wholeBody(), ...messageSites("body", input, [], bound));
    return sites;
  }
  const bodyField = route.body ? input.fields.find((f) => f.name === route.body) : undefined;
  if (bodyField) {
    sites.push(wholeBody());
    if (shapeOf(bodyField) === "object") sites.push(...messageSites("body", bodyField.message!, [], new Set()));
    else sites.push({ location: "body", field: bodyField, parents: [], label: bodyField.name });
    bound.add(bodyField.name);
  }
  sites.push(...messageSites("query", input, [], bound).filter(settableFromQuery));
  return sites;
}

/** The path-variable name or dotted query parameter name of a site: its parents' names and its own. */
export function dottedName(site: FieldSite): string {
  return [...site.parents, site.field!].map((f) => f.name).join(".");
}

function pathSite(input: DescMessage, fieldPath: readonly string[]): FieldSite {
  const parents: DescField[] = [];
  let desc: DescMessage | undefined = input;
  let field: DescField | undefined;
  for (const name of fieldPath) {
    field = desc?.fields.find((f) => f.name === name);
    if (field === undefined) throw new Error(`${input.typeName}: path variable ${fieldPath.join(".")} names no field`);
    parents.push(field);
    desc = field.message;
  }
  parents.pop();
  return { location: "path", field, parents, label: `{${fieldPath.join(".")}}` };
}

function wholeBody(): FieldSite {
  return { location: "body", field: undefined, parents: [], label: "(body)" };
}

function messageSites(location: SiteLocation, desc: DescMessage, parents: readonly DescField[], skip: ReadonlySet<string>): FieldSite[] {
  const sites: FieldSite[] = [];
  for (const field of desc.fields) {
    if (skip.has(field.name)) continue;
    sites.push({ location, field, parents, label: labelOf([...parents, field]) });
    const nested = nestedMessage(field);
    const recursive = parents.some((p) => p.message === nested) || nested === desc;
    if (nested && parents.length + 1 < MAX_NESTING && !recursive) sites.push(...messageSites(location, nested, [...parents, field], new Set()));
  }
  return sites;
}

/** The message whose fields are sites too: of a message field, or of a list of messages' items (not of maps). */
function nestedMessage(field: DescField): DescMessage | undefined {
  if (field.fieldKind === "message" && shapeOf(field) === "object") return field.message;
  if (field.fieldKind === "list" && field.listKind === "message" && elementShape(field) === "object") return field.message;
  return undefined;
}

function labelOf(fields: readonly DescField[]): string {
  return fields.map((f, i) => (f.fieldKind === "list" && i < fields.length - 1 ? `${f.name}[0]` : f.name)).join(".");
}

/** The gateway sets scalars, enums and repeated scalars or enums from query parameters, through singular messages. */
function settableFromQuery(site: FieldSite): boolean {
  const field = site.field!;
  if (site.parents.some((p) => p.fieldKind !== "message")) return false;
  if (field.fieldKind === "scalar" || field.fieldKind === "enum") return true;
  return field.fieldKind === "list" && field.listKind !== "message";
}
