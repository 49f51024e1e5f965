import { getOption, type DescMethod, type DescService } from "@bufbuild/protobuf";
import { http, type HttpRule } from "@hangar/shared/proto/google-api";
import { anonymousAccessOf, type AnonymousAccess } from "./anonymous";
import { createRouter, parsePathTemplate, type PathTemplate, type Router } from "./pattern";
import { applyDatedChanges, DATED_CHANGES, type DatedChange, type RouteVersions } from "./transcode-version";

/** One HTTP binding of an RPC, as declared by its google.api.http option. */
export interface Route {
  service: DescService;
  method: DescMethod;
  httpMethod: string;
  template: PathTemplate;
  /** `*` (the whole body), a top-level field name, or undefined (no body). */
  body: string | undefined;
  /** The response field that becomes `data`; undefined means the whole response message. */
  responseBody: string | undefined;
  /** Set when the operation is served without a token, with its bounds (`hangar.common.v1.anonymous`). */
  anonymous?: AnonymousAccess;
  /** What the route does for callers of older API versions; unset on routes no dated change touches. */
  versions?: RouteVersions;
}

/**
 * Builds the route table from the services' descriptors: every RPC with a google.api.http option
 * (and its additional bindings) becomes a route. There is no hand-written route list. The dated
 * API changes (default `DATED_CHANGES`) are attached to the routes they touch; `routes` are the
 * routes served, one a binding (an RPC kept for older callers hangs off its successor's `versions`).
 */
export function buildRouteTable(services: readonly DescService[], changes: readonly DatedChange[] = DATED_CHANGES): { router: Router<Route>; routes: Route[] } {
  const router = createRouter<Route>();
  const routes: Route[] = [];
  for (const service of services) {
    for (const method of service.methods) {
      if (method.methodKind !== "unary") continue;
      const rule = getOption(method, http);
      if (!rule.pattern.case) continue;
      for (const binding of [rule, ...rule.additionalBindings]) {
        routes.push(toRoute(service, method, binding));
      }
    }
  }
  // A reroute's older twin shares its successor's binding and is reached only through it, so the
  // table (and what reads it: OpenAPI, metrics, the fuzz and authorization suites) lists one route a binding.
  const served = applyDatedChanges(routes, changes);
  for (const route of served) router.add(route.httpMethod, route.template, route);
  return { router, routes: served };
}

function toRoute(service: DescService, method: DescMethod, rule: HttpRule): Route {
  const { case: verb, value } = rule.pattern;
  if (verb === undefined) throw new Error(`${method.name}: additional binding without a pattern`);
  const httpMethod = verb === "custom" ? value.kind.toUpperCase() : verb.toUpperCase();
  const path = verb === "custom" ? value.path : value;
  const anonymous = anonymousAccessOf(method);
  return {
    ...(anonymous ? { anonymous } : {}),
    service,
    method,
    httpMethod,
    template: parsePathTemplate(path),
    body: rule.body || undefined,
    responseBody: rule.responseBody || undefined,
  };
}
