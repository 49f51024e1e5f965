import type { JsonValue } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import { callerOf, decodeCursorToken, encodeCursorToken, fitPage, invalidArgument, readableOrg, requireOrg, resolveLimit } from "@hangar/shared";
import { IngestionRuleSchema, type ComputeService } from "@hangar/shared/proto/compute";
import { existingFiles, ingestExistingFiles, reportOf, type BackgroundJobs, type UningestedFiles } from "../domain/existing-files";
import { createDefaultRules, defaultsFor } from "../domain/ingestion-rule-defaults";
import { rulePathMatches } from "../domain/ingestion-rule-paths";
import { createRule, deleteRule, getRule, updateRule, type IngestionRuleDeps, type RuleChanges } from "../domain/ingestion-rules";
import { checkCount, ingestFilesNow, latestRuns, MAX_MATCH_PATHS, type RuleFiringDeps } from "../domain/ingestion-runs";
import { defaultToProto, ingestResultToProto, reportToProto, ruleJson, ruleToProto, runToProto } from "./ingestion-rule-mappers";
import { valueJson } from "./wire-json";

type IngestionRuleHandlers = Pick<
  ServiceImpl<typeof ComputeService>,
  | "listIngestionRules"
  | "createIngestionRule"
  | "getIngestionRule"
  | "updateIngestionRule"
  | "deleteIngestionRule"
  | "existingFilesReport"
  | "ingestExistingFiles"
  | "listDefaultIngestionRules"
  | "createDefaultIngestionRules"
  | "ingestFilesNow"
  | "matchIngestionRules"
  | "latestIngestionRuns"
>;

/**
 * What the ingestion-rule operations run on: the rule use cases, firing by hand, the org's files,
 * the background jobs, and the outbox relay's wake-up (removing a rule's trigger records an event).
 */
export type IngestionRuleHandlerDeps = IngestionRuleDeps & RuleFiringDeps & { files: UningestedFiles; jobs: BackgroundJobs; eventsWritten(): void };

const PAGE = "ingestion-rules";

/** Implements the `ingestion rules` operations of hangar.compute.v1.ComputeService. */
export function createIngestionRuleHandlers(deps: IngestionRuleHandlerDeps): IngestionRuleHandlers {
  const { uow } = deps;
  return {
    async listIngestionRules(req, ctx) {
      const limit = resolveLimit(req.limit);
      const cursor = decodeCursorToken(req.pageToken, PAGE, "page_token");
      const orgId = readableOrg(callerOf(ctx));
      if (!orgId) return { items: [], totalCount: 0n };
      const after = cursor ? { created: checkCursorDate(cursor.key), ruleId: cursor.id } : undefined;
      // One row past the page says whether another page follows.
      const { rows, total } = await uow.repositories().ingestionRules.page(orgId, limit + 1, after);
      const items = fitPage(IngestionRuleSchema, rows.slice(0, limit).map(ruleToProto));
      const last = rows[items.length - 1];
      const more = items.length < rows.length;
      const nextToken = more && last ? encodeCursorToken({ key: last.created.toISOString(), id: last.ruleId }, PAGE) : undefined;
      return { items, totalCount: BigInt(total), ...(nextToken ? { nextToken } : {}) };
    },

    async createIngestionRule(req, ctx) {
      const caller = callerOf(ctx);
      const rule = await createRule(deps, caller, requireOrg(caller), {
        name: req.name,
        description: req.description ?? null,
        includePatterns: req.includePatterns,
        excludePatterns: req.excludePatterns,
        invocation: valueJson(req.invocation),
        autoIngest: req.autoIngest ?? true,
      });
      return { rule: ruleToProto(rule) };
    },

    async getIngestionRule(req, ctx) {
      return { rule: ruleToProto(await getRule(uow, readableOrg(callerOf(ctx)), req.ruleId)) };
    },

    async updateIngestionRule(req, ctx) {
      const caller = callerOf(ctx);
      const rule = await updateRule(deps, caller, readableOrg(caller), req.ruleId, ruleChanges(req));
      // Clearing the invocation removes the rule's trigger, whose deletion event is in the outbox.
      deps.eventsWritten();
      return { rule: ruleToProto(rule) };
    },

    async deleteIngestionRule(req, ctx) {
      await deleteRule(deps, readableOrg(callerOf(ctx)), req.ruleId);
      deps.eventsWritten();
      return {};
    },

    async existingFilesReport(req, ctx) {
      const caller = callerOf(ctx);
      const rule = await getRule(uow, readableOrg(caller), req.ruleId);
      return { report: reportToProto(await reportOf(deps.files, await existingFiles(uow, deps.files, rule), caller, rule.orgId)) };
    },

    async ingestExistingFiles(req, ctx) {
      const caller = callerOf(ctx);
      const rule = await getRule(uow, readableOrg(caller), req.ruleId);
      return { report: reportToProto(await ingestExistingFiles(deps, deps.files, deps.jobs, caller, rule)) };
    },

    async listDefaultIngestionRules(_req, ctx) {
      const orgId = readableOrg(callerOf(ctx));
      const rules = orgId ? await uow.repositories().ingestionRules.ofOrg(orgId) : [];
      const items = defaultsFor(rules).map(defaultToProto);
      return { items, totalCount: BigInt(items.length) };
    },

    async createDefaultIngestionRules(_req, ctx) {
      const caller = callerOf(ctx);
      const items = (await createDefaultRules(deps, caller, requireOrg(caller))).map(ruleToProto);
      return { items, totalCount: BigInt(items.length) };
    },

    async ingestFilesNow(req, ctx) {
      return { results: (await ingestFilesNow(deps, readableOrg(callerOf(ctx)), req.fileIds)).map(ingestResultToProto) };
    },

    async matchIngestionRules(req, ctx) {
      if (req.paths.length > MAX_MATCH_PATHS) throw invalidArgument("paths", `must list at most ${MAX_MATCH_PATHS} paths`);
      const orgId = readableOrg(callerOf(ctx));
      const rules = orgId ? await uow.repositories().ingestionRules.ofOrg(orgId) : [];
      const matches = Object.fromEntries(req.paths.map((path) => [path, rules.filter((rule) => rulePathMatches(rule, path)).map(ruleJson)]));
      return { matches };
    },

    async latestIngestionRuns(req, ctx) {
      checkCount(req.fileIds, "file_ids", MAX_MATCH_PATHS);
      const runs = await latestRuns(uow, readableOrg(callerOf(ctx)), req.fileIds);
      return { runs: Object.fromEntries(runs.map((run) => [run.fileId, runToProto(run)])) };
    },
  };
}

function checkCursorDate(key: string | null): string {
  if (key === null || Number.isNaN(Date.parse(key))) throw invalidArgument("page_token", "is not a valid page token");
  return key;
}

/** update_rule's JSON fields read strictly: null leaves a field unchanged, except description and invocation, which it clears. */
function ruleChanges(req: Parameters<IngestionRuleHandlers["updateIngestionRule"]>[0]): RuleChanges {
  const name = valueJson(req.name);
  const description = valueJson(req.description);
  const autoIngest = valueJson(req.autoIngest);
  if (name !== undefined && name !== null && typeof name !== "string") throw invalidArgument("name", "must be a string");
  if (description !== undefined && description !== null && typeof description !== "string") throw invalidArgument("description", "must be a string or null");
  if (autoIngest !== undefined && autoIngest !== null && typeof autoIngest !== "boolean") throw invalidArgument("auto_ingest", "must be a boolean");
  return {
    name: name ?? undefined,
    description,
    includePatterns: stringList(valueJson(req.includePatterns), "include_patterns"),
    excludePatterns: stringList(valueJson(req.excludePatterns), "exclude_patterns"),
    invocation: valueJson(req.invocation),
    autoIngest: autoIngest ?? undefined,
  };
}

function stringList(json: JsonValue | undefined, field: string): string[] | undefined {
  if (json === undefined || json === null) return undefined;
  if (!Array.isArray(json)) throw invalidArgument(field, "must be a list of strings");
  if (json.length > 100) throw invalidArgument(field, "must list at most 100 patterns");
  return json.map((value, i) => {
    if (typeof value !== "string") throw invalidArgument(`${field}[${i}]`, "must be a string");
    return value;
  });
}
