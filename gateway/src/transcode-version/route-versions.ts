import type { Message } from "@bufbuild/protobuf";
import type { Route } from "../routes";
import { versionOf, type ApiVersion } from "./api-version";
import { hideProjection, pluckProjection, unwrapProjection, type Projection } from "./projections";
import { requestFieldsCheck, type RequestCheck } from "./request-checks";
import type { DatedChange } from "./version-table";

/** What a route does for callers older than the dated changes that touch it (see `DATED_CHANGES`). */
export interface RouteVersions {
  /** Callers below `before` reach `route` instead: the same binding on the RPC that keeps the older shape. */
  readonly reroute?: { readonly before: ApiVersion; readonly route: Route };
  /** Rewrites of the response for callers below each `before`, newest change first. */
  readonly projections: readonly { readonly before: ApiVersion; readonly project: Projection }[];
  /** Checks of the request for the caller's version (dated `request` changes), in table order. */
  readonly requests?: readonly RequestCheck[];
}

/** The full name of a route's RPC, as the table names it: `hangar.data.v1.DataService.GetFile`. */
export function rpcName(route: Route): string {
  return `${route.service.typeName}.${route.method.name}`;
}

const bindingKey = (route: Route) => `${route.httpMethod} ${route.template.template}`;

/**
 * Attaches each dated change to the routes it touches (`versions`, left unset on the others) and
 * returns the routes the router serves: a `reroute`'s older twin is reached only through its
 * successor, so the two may share a binding. Throws at start-up on a row that does not fit.
 */
export function applyDatedChanges(routes: readonly Route[], changes: readonly DatedChange[]): Route[] {
  const versions = new Map<Route, { reroute?: RouteVersions["reroute"]; projections: RouteVersions["projections"][number][]; requests: RequestCheck[] }>();
  const entry = (route: Route) => versions.get(route) ?? versions.set(route, { projections: [], requests: [] }).get(route)!;
  const folded = new Set<Route>();
  for (const change of changes) {
    const before = versionOf(change.since);
    if (change.change === "reroute") {
      for (const [route, older] of twins(routes, change.rpc, change.olderRpc)) {
        entry(route).reroute = { before, route: older };
        folded.add(older);
      }
      continue;
    }
    if (change.change === "request") {
      for (const route of routes.filter((r) => rpcName(r) === change.rpc)) entry(route).requests.push(requestFieldsCheck(route.method.input, { ...change, before }));
      continue;
    }
    for (const route of routes) {
      const project = projectionOf(route, change);
      if (project) entry(route).projections.push({ before, project });
    }
  }
  for (const [route, { reroute, projections, requests }] of versions) {
    projections.sort((a, b) => b.before - a.before);
    route.versions = { projections, ...(reroute ? { reroute } : {}), ...(requests.length > 0 ? { requests } : {}) };
  }
  return routes.filter((route) => !folded.has(route));
}

function projectionOf(route: Route, change: Exclude<DatedChange, { change: "reroute" | "request" }>): Projection | undefined {
  if (change.change === "pluck") return rpcName(route) === change.rpc ? pluckProjection(route.method.output, route.responseBody, change.field) : undefined;
  if (change.change === "unwrap") return rpcName(route) === change.rpc ? unwrapProjection(route.method.output, change.field) : undefined;
  return hideProjection(route.method.output, change, change.since);
}

/** Pairs each binding of `rpc` with the binding of `olderRpc` at the same method and path. */
function twins(routes: readonly Route[], rpc: string, olderRpc: string): [Route, Route][] {
  const older = new Map(routes.filter((route) => rpcName(route) === olderRpc).map((route) => [bindingKey(route), route]));
  const pairs: [Route, Route][] = [];
  for (const route of routes) {
    const twin = rpcName(route) === rpc ? older.get(bindingKey(route)) : undefined;
    if (twin) pairs.push([route, twin]);
  }
  return pairs;
}

/** A served route and the older routes its reroutes reach, newest first. */
export function withRerouteTwins(route: Route): Route[] {
  const chain = [route];
  for (let older = route.versions?.reroute?.route; older; older = older.versions?.reroute?.route) chain.push(older);
  return chain;
}

/** The route a caller of `version` reaches on a matched binding (itself, unless a reroute applies). */
export function routeForVersion(route: Route, version: ApiVersion): Route {
  let served = route;
  while (served.versions?.reroute && version < served.versions.reroute.before) served = served.versions.reroute.route;
  return served;
}

/**
 * Applies the route's projections for a caller of `version` to a response: the `data` JSON text
 * to send instead, or undefined to write the message as usual. Free for routes no change touches.
 */
export function projectResponse(route: Route, version: ApiVersion, message: Message): string | undefined {
  const projections = route.versions?.projections;
  if (projections === undefined) return undefined;
  let data: string | undefined;
  for (const { before, project } of projections) {
    if (version >= before) break;
    data = project(message) ?? data;
  }
  return data;
}

/** Refuses a request the caller's version may not send (dated `request` changes): a 400 naming the field. Free for routes no such change touches. */
export function checkRequest(route: Route, version: ApiVersion, message: Message): void {
  const checks = route.versions?.requests;
  if (checks === undefined) return;
  for (const check of checks) check(message, version);
}
