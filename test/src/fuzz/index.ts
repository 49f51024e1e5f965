export { generateFuzzCases, type FuzzCase, type FuzzOptions } from "./cases";
export type { FixtureValues, FuzzRequest } from "./requests";
export { routeSites, type FieldSite } from "./sites";
export { sendFuzzCases, type FuzzOutcome, type SendOptions } from "./send";
export { judgeOutcome, summarizeOutcomes, formatOffences, type FuzzOffence } from "./judge";
