export { generateFuzzCases, mutationsAt, type FuzzCase, type FuzzOptions } from "./cases";
export { MUTATION_CLASSES, HUGE_STRING_CHARS, DEEP_JSON_LEVELS, HUGE_ARRAY_ITEMS, BAD_PAGE_TOKENS, type Mutation, type MutationClass } from "./mutations";
export { buildFuzzRequest, type FixtureValues, type FuzzRequest } from "./requests";
export { routeSites, dottedName, type FieldSite, type SiteLocation } from "./sites";
export { sendFuzzCases, type FuzzOutcome, type SendOptions } from "./send";
export { judgeOutcome, summarizeOutcomes, formatOffences, type FuzzOffence } from "./judge";
