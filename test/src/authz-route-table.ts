import { buildRouteTable, SERVICES } from "@hangar/gateway";

/**
 * The authorization suite's view of one gateway route: its HTTP method, path template, RPC and
 * the path variables that name resources. (The authz engineer's own small enumerator; the fuzz
 * suite has a richer generator.)
 */
export interface AuthzRoute {
  httpMethod: string;
  template: string;
  /** `Service.Method`, for messages and tables keyed by RPC. */
  rpc: string;
  /** The path variables, in path order. */
  variables: string[];
  /** Whether the route takes a request body. */
  hasBody: boolean;
}

/**
 * Every route of the gateway's table, built the way the gateway builds it (from the protos'
 * google.api.http bindings), so the suite grows with the API.
 */
export function authzRoutes(): AuthzRoute[] {
  return buildRouteTable(Object.values(SERVICES)).routes.map((route) => ({
    httpMethod: route.httpMethod,
    template: route.template.template,
    rpc: `${route.service.name}.${route.method.name}`,
    variables: route.template.variables.map((v) => v.fieldPath.join(".")),
    hasBody: route.body !== undefined,
  }));
}

/**
 * The fixture a path variable needs: its name, qualified by the route's first path segment when
 * the name alone is ambiguous (`name` is an action's in /v1/actions and a trigger's in /v1/triggers).
 */
export function fixtureKey(route: AuthzRoute, variable: string): string {
  return variable === "name" ? `${route.template.split("/")[2]}.${variable}` : variable;
}

/** The route's path with each variable replaced by its value, percent-encoded as one segment. */
export function fillTemplate(template: string, valueOf: (variable: string) => string): string {
  return template.replace(/\{([^}=]+)(=[^}]*)?\}/g, (_match, name: string) => encodeURIComponent(valueOf(name)));
}
