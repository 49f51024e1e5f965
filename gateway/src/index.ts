export { startGateway, type Gateway, type GatewayOptions } from "./gateway";
export { buildRouteTable, type Route } from "./routes";
export { SERVICES, type Upstream } from "./upstreams";
export { buildOpenApiDocument, gatewayOpenApiDocument } from "./openapi";
