import { writeJson } from "./errors";
import type { HealthEndpoint } from "./health";
import { anonymousPrincipal } from "./anonymous";

/** Where clients look for the deployment's services (the SDK's `SERVICE_DISCOVERY_PATH`). */
export const SERVICE_DISCOVERY_PATH = "/.well-known/roboto.json";

/**
 * The service discovery document (sdk-0.62-routes.md row 68): bare JSON, no envelope, no token.
 * `credential_requests.v1` names the base URL of the CLI's browser sign-in (`/v1/tokens/requests`),
 * which this gateway serves itself: `publicUrl` when configured, else the URL the client used.
 */
export function serviceDiscovery(publicUrl: string | undefined): HealthEndpoint {
  return async (res, _traceContext, _query, req) => {
    const base = anonymousPrincipal(req, publicUrl).publicUrl ?? null;
    writeJson(res, 200, JSON.stringify({ "credential_requests.v1": base }));
  };
}
