export { API_VERSIONS, API_VERSION_HEADER, LATEST_API_VERSION, readApiVersion, versionOf, type ApiVersion, type ApiVersionDate } from "./api-version";
export { DATED_CHANGES, type DatedChange } from "./version-table";
export { applyDatedChanges, checkRequest, projectResponse, routeForVersion, rpcName, withRerouteTwins, type RouteVersions } from "./route-versions";
