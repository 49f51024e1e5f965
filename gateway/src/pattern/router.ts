import { decodeSegment } from "./decode-segment";
import { parsePathTemplate, type PathTemplate } from "./path-template";

/** A matched route: its value, the variables percent-decoded once, and the same variables raw. */
export interface RouteMatch<T> {
  readonly value: T;
  readonly template: PathTemplate;
  /** Variable values keyed by their name (`dataset_id`, `query.id`), each segment decoded once. */
  readonly params: Record<string, string>;
  /** The same values as they arrived, for variables that need another decoding (see `decodePlusSegment`). */
  readonly rawParams: Record<string, string>;
}

/** No route: no template matches the path, or templates match it only under other methods. */
export type RouteMiss =
  | { readonly error: "not_found" }
  | { readonly error: "method_not_allowed"; readonly allowed: readonly string[] };

/** A route table over google.api.http path templates; see `createRouter`. */
export interface Router<T> {
  /** Adds a route; throws on a malformed template or a second route of the same method and shape. */
  add(method: string, template: string | PathTemplate, value: T): void;
  /** Matches a raw (still percent-encoded) path without its query string; throws a 400 on a bad escape. */
  match(method: string, rawPath: string): RouteMatch<T> | RouteMiss;
}

interface Entry<T> {
  readonly value: T;
  readonly template: PathTemplate;
}

interface Node<T> {
  readonly literals: Map<string, Node<T>>;
  wildcard: Node<T> | undefined;
  /** Routes whose template ends with `**` right here. */
  readonly rest: Map<string, Entry<T>>;
  /** Routes whose template ends exactly here. */
  readonly routes: Map<string, Entry<T>>;
}

const notFound: RouteMiss = { error: "not_found" };

/**
 * Creates a route table. Matching walks a segment trie on the raw path and backtracks, so at each
 * position a literal beats `*`, which beats `**`, whatever the insertion order; a trailing slash is
 * ignored. A path that matches only under other methods is `method_not_allowed` with those methods.
 */
export function createRouter<T>(): Router<T> {
  const root = newNode<T>();
  return {
    add(method, template, value) {
      const parsed = typeof template === "string" ? parsePathTemplate(template) : template;
      insert(root, method.toUpperCase(), { value, template: parsed });
    },
    match(method, rawPath) {
      const segments = splitPath(rawPath);
      if (segments === undefined) return notFound;
      const entry = find(root, segments, 0, method.toUpperCase());
      if (entry !== undefined) return toMatch(entry, segments);
      const allowed = new Set<string>();
      collectMethods(root, segments, 0, allowed);
      return allowed.size === 0 ? notFound : { error: "method_not_allowed", allowed: [...allowed].sort() };
    },
  };
}

function newNode<T>(): Node<T> {
  return { literals: new Map(), wildcard: undefined, rest: new Map(), routes: new Map() };
}

function insert<T>(root: Node<T>, method: string, entry: Entry<T>): void {
  let node = root;
  let table = node.routes;
  for (const segment of entry.template.segments) {
    if (segment.kind === "literal") {
      let next = node.literals.get(segment.text);
      if (next === undefined) node.literals.set(segment.text, (next = newNode()));
      node = next;
      table = node.routes;
    } else if (segment.kind === "wildcard") {
      node = node.wildcard ??= newNode();
      table = node.routes;
    } else {
      table = node.rest;
    }
  }
  const existing = table.get(method);
  if (existing !== undefined) {
    throw new Error(`route ${method} ${entry.template.template} clashes with ${existing.template.template}`);
  }
  table.set(method, entry);
}

/** Splits after the leading slash, dropping one trailing slash; undefined when there is no leading slash. */
function splitPath(rawPath: string): string[] | undefined {
  if (!rawPath.startsWith("/")) return undefined;
  let body = rawPath.slice(1);
  if (body.endsWith("/")) body = body.slice(0, -1);
  return body === "" ? [] : body.split("/");
}

function find<T>(node: Node<T>, segments: string[], i: number, method: string): Entry<T> | undefined {
  if (i === segments.length) {
    const entry = node.routes.get(method);
    if (entry !== undefined) return entry;
  } else {
    const segment = segments[i];
    const literal = node.literals.get(segment);
    const viaLiteral = literal && find(literal, segments, i + 1, method);
    if (viaLiteral) return viaLiteral;
    const viaWildcard = node.wildcard && segment !== "" && find(node.wildcard, segments, i + 1, method);
    if (viaWildcard) return viaWildcard;
  }
  return node.rest.get(method);
}

function collectMethods<T>(node: Node<T>, segments: string[], i: number, out: Set<string>): void {
  for (const method of node.rest.keys()) out.add(method);
  if (i === segments.length) {
    for (const method of node.routes.keys()) out.add(method);
    return;
  }
  const segment = segments[i];
  const literal = node.literals.get(segment);
  if (literal !== undefined) collectMethods(literal, segments, i + 1, out);
  if (node.wildcard !== undefined && segment !== "") collectMethods(node.wildcard, segments, i + 1, out);
}

function toMatch<T>(entry: Entry<T>, segments: string[]): RouteMatch<T> {
  const params: Record<string, string> = {};
  const rawParams: Record<string, string> = {};
  for (const variable of entry.template.variables) {
    const covered = segments.slice(variable.start, variable.end ?? segments.length);
    rawParams[variable.name] = covered.join("/");
    params[variable.name] = covered.length === 1 ? decodeSegment(covered[0]) : covered.map(decodeSegment).join("/");
  }
  return { value: entry.value, template: entry.template, params, rawParams };
}
