import { writeJson } from "./errors";
import type { HealthEndpoint } from "./health";

/** Where clients look for the deployment's services (the SDK's `SERVICE_DISCOVERY_PATH`). */
export const SERVICE_DISCOVERY_PATH = "/.well-known/roboto.json";

/**
 * The service discovery document (sdk-0.62-routes.md row 68): bare JSON, no envelope, no token.
 * It names no credential request service, since Hangar has no browser sign-in yet: the newest CLI's
 * `roboto auth login` then says so and points the user at an access token, instead of failing on a
 * 404. When browser sign-in lands, `credential_requests.v1` names its base URL.
 */
export const serviceDiscovery: HealthEndpoint = async (res) => writeJson(res, 200, JSON.stringify({ "credential_requests.v1": null }));
