export { parsePathTemplate, type PathTemplate, type TemplateSegment, type TemplateVariable } from "./path-template";
export { createRouter, type Router, type RouteMatch, type RouteMiss } from "./router";
export { decodeSegment, decodePlusSegment } from "./decode-segment";
