import type { JsonObject } from "@bufbuild/protobuf";
import { ConnectError } from "@connectrpc/connect";
import { MCAP_INGESTION_ACTION, type Logger } from "@hangar/shared";
import { sendRulePaths } from "./ingestable-files";
import type { IngestionRuleRecord } from "./ingestion-rule-records";
import { insertRule, parseInvocation, type Actor, type IngestionRuleDeps } from "./ingestion-rules";
import type { IngestionRuleRepositories } from "./repositories";

/** A rule the platform offers every org (the SDK's DefaultIngestionRuleRecord without `already_present`). */
export interface DefaultRule {
  name: string;
  category: string;
  includePatterns: string[];
  excludePatterns: string[];
  invocation: JsonObject;
  forNewOrgs: boolean;
  needsSettings: boolean;
}

/**
 * The defaults: MCAP files ingested by the platform's built-in MCAP action (issue 12: a team
 * that uploads an `.mcap` sees its topics without writing an action; an org may delete or
 * disable the rule).
 */
export const DEFAULT_RULES: readonly DefaultRule[] = [
  {
    name: "MCAP files",
    category: "Other",
    includePatterns: ["**/*.mcap"],
    excludePatterns: [],
    invocation: parseInvocation({ action: { name: MCAP_INGESTION_ACTION.name, owner: MCAP_INGESTION_ACTION.owner } })!,
    forNewOrgs: true,
    needsSettings: false,
  },
];

/** A default as list_default_rules shows it to an org: present when it has a rule of that name or one of its include patterns. */
export function defaultsFor(rules: readonly IngestionRuleRecord[]): (DefaultRule & { alreadyPresent: boolean })[] {
  return DEFAULT_RULES.map((rule) => ({
    ...rule,
    alreadyPresent: rules.some((r) => r.name === rule.name || r.includePatterns.some((p) => rule.includePatterns.includes(p))),
  }));
}

/** create_default_rules: creates the `for_new_orgs` defaults the org lacks, as the caller, in one transaction; returns those created. */
export async function createDefaultRules(deps: IngestionRuleDeps, caller: Actor, orgId: string): Promise<IngestionRuleRecord[]> {
  const created = await deps.uow.transaction((repositories) => insertDefaults(deps, repositories, caller, orgId));
  if (created.length > 0) await sendRulePaths(deps.uow, deps.rulePaths, orgId);
  return created;
}

async function insertDefaults(deps: IngestionRuleDeps, repositories: IngestionRuleRepositories, caller: Actor, orgId: string): Promise<IngestionRuleRecord[]> {
  const missing = defaultsFor(await repositories.ingestionRules.ofOrg(orgId)).filter((rule) => rule.forNewOrgs && !rule.alreadyPresent);
  const created: IngestionRuleRecord[] = [];
  for (const rule of missing) {
    const { name, includePatterns, excludePatterns, invocation } = rule;
    created.push(await insertRule(deps, repositories, caller, orgId, { name, description: null, includePatterns, excludePatterns, invocation, autoIngest: true }));
  }
  return created;
}

/**
 * Gives an org the `for_new_orgs` defaults once: on its first upload (the compute service hears
 * of an org first there), before that upload's rules fire, so a new org's first `.mcap` is
 * ingested. The org is marked in the same transaction, so a default it deletes or disables later
 * stays so. The rules' triggers run as the uploader. When a default cannot be created (its action
 * is not installed), nothing is marked and the next upload tries again.
 */
export async function seedDefaultRules(deps: IngestionRuleDeps & { logger: Logger }, orgId: string, uploader: string): Promise<void> {
  if (await deps.uow.repositories().ingestionRules.seeded(orgId)) return;
  try {
    const created = await deps.uow.transaction(async (repositories) =>
      (await repositories.ingestionRules.markSeeded(orgId)) ? insertDefaults(deps, repositories, { subject: uploader }, orgId) : [],
    );
    if (created.length > 0) await sendRulePaths(deps.uow, deps.rulePaths, orgId);
  } catch (error) {
    if (!(error instanceof ConnectError)) throw error;
    deps.logger.debug({ orgId, detail: error.rawMessage }, "default ingestion rules not created");
  }
}
