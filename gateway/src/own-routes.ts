import { SERVICE_DISCOVERY_PATH } from "./service-discovery";

/** An operation of the spec the gateway answers itself, before route matching: no proto binding, no RPC. */
export interface OwnRoute {
  httpMethod: "GET";
  template: string;
  /** What tooling shows in place of an RPC name. */
  name: string;
}

/**
 * The spec's operations served outside the protos (the probes, `/openapi.json` and `/metrics` are
 * the gateway's own, in no spec). Kept here so the coverage table and the route log know them: a
 * route added to the gateway's own endpoints that the spec lists belongs in this list.
 */
export const OWN_ROUTES: readonly OwnRoute[] = [{ httpMethod: "GET", template: SERVICE_DISCOVERY_PATH, name: "service discovery document" }];

/** The own route a request path names, if any (they have no path parameters). */
export function ownRouteAt(method: string | undefined, path: string): OwnRoute | undefined {
  return OWN_ROUTES.find((route) => route.httpMethod === method && route.template === path);
}
