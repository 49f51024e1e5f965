import type { DescField } from "@bufbuild/protobuf";
import type { Route } from "@hangar/gateway";
import { bodyMutations, jsonMutations, MUTATION_CLASSES, textMutations, type Mutation, type MutationClass } from "./mutations";
import { buildFuzzRequest, type FixtureValues, type FuzzRequest } from "./requests";
import { routeSites, type FieldSite } from "./sites";

/** Options of `generateFuzzCases`. */
export interface FuzzOptions {
  /** Real ids and well-formed domain values by field; see `FixtureValues`. Default: none. */
  readonly fixtures?: FixtureValues;
  /** Seed of the sampling of mutations; the same seed gives the same cases. Default 9. */
  readonly seed?: number;
  /** Mutations sent per site and class (of those that apply), default 1; a MiB-sized class always sends one. */
  readonly perClass?: number;
  /** Field names that carry page tokens, which get the bad-page-token class. Default: page_token, after, last_read. */
  readonly pageTokenFields?: readonly string[];
}

/** One request of the fuzz suite: which operation, where the bad value sits, what it is, and the request. */
export interface FuzzCase {
  /** `GET /v1/datasets/{dataset_id}`. */
  readonly operation: string;
  readonly route: Route;
  /** The site's label (`query.limit`, `{dataset_id}`, `(body)`), or `(baseline)` for the unmutated request. */
  readonly target: string;
  /** The mutation's class, or `baseline`. */
  readonly mutationClass: MutationClass | "baseline";
  readonly mutation: string;
  /** Builds the request; on demand, because some bodies are a MiB. */
  readonly request: () => FuzzRequest;
}

/** The classes whose values are a MiB or so: one sample per site is enough. */
const COSTLY = new Set<MutationClass>(["huge-string", "huge-array", "deep-json"]);

/**
 * Generates the fuzz cases of every route: per route its baseline request, then per site (path
 * variable, body field, nested field, query parameter, the whole body) and per mutation class that
 * applies, a deterministic sample of that class's mutations. New operations are covered as soon as
 * the route table has them.
 */
export function generateFuzzCases(routes: readonly Route[], options: FuzzOptions = {}): FuzzCase[] {
  const fixtures = options.fixtures ?? (() => undefined);
  const pageTokens = new Set(options.pageTokenFields ?? ["page_token", "after", "last_read"]);
  const cases: FuzzCase[] = [];
  for (const route of routes) {
    const operation = `${route.httpMethod} ${route.template.template}`;
    cases.push({ operation, route, target: "(baseline)", mutationClass: "baseline", mutation: "none", request: () => buildFuzzRequest(route, fixtures) });
    for (const site of routeSites(route)) {
      const isPageToken = site.field !== undefined && pageTokens.has(site.field.name);
      for (const mutationClass of MUTATION_CLASSES) {
        const all = mutationsAt(site, mutationClass, isPageToken);
        const random = rng(hash(`${options.seed ?? 9}|${operation}|${site.label}|${mutationClass}`));
        for (const mutation of sample(all, COSTLY.has(mutationClass) ? 1 : (options.perClass ?? 1), random)) {
          cases.push({
            operation,
            route,
            target: site.label,
            mutationClass,
            mutation: mutation.name,
            request: () => buildFuzzRequest(route, fixtures, site, mutation),
          });
        }
      }
    }
  }
  return cases;
}

/** Every mutation of a class that applies at a site. */
export function mutationsAt(site: FieldSite, mutationClass: MutationClass, isPageToken: boolean): Mutation[] {
  const field: DescField | undefined = site.field;
  if (field === undefined) return bodyMutations(mutationClass);
  if (site.location === "body") return jsonMutations(mutationClass, field, isPageToken);
  return textMutations(mutationClass, field, site.location, isPageToken);
}

function sample<T>(items: readonly T[], count: number, random: () => number): T[] {
  const pool = [...items];
  const picked: T[] = [];
  while (picked.length < count && pool.length > 0) picked.push(pool.splice(Math.floor(random() * pool.length), 1)[0]!);
  return picked;
}

/** FNV-1a, to derive a per-site seed from text. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** mulberry32: a small seeded generator, so a run can be repeated exactly. */
function rng(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
