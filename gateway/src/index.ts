export { startGateway, type Gateway, type GatewayOptions } from "./gateway";
export { buildRouteTable, type Route } from "./routes";
export { OWN_ROUTES, type OwnRoute } from "./own-routes";
export { SERVICES, type Upstream } from "./upstreams";
export { API_VERSIONS, DATED_CHANGES, type DatedChange } from "./transcode-version";
export { buildOpenApiDocument, gatewayOpenApiDocument } from "./openapi";
