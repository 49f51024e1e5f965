import type { JsonObject } from "@bufbuild/protobuf";
import { MCAP_INGESTION_ACTION, type Principal } from "@hangar/shared";
import type { IngestionRuleRecord } from "./ingestion-rule-records";
import { createRule, parseInvocation, type IngestionRuleDeps } from "./ingestion-rules";

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

/** create_default_rules: creates the `for_new_orgs` defaults the org lacks, as the caller; returns those created. */
export async function createDefaultRules(deps: IngestionRuleDeps, caller: Principal, orgId: string): Promise<IngestionRuleRecord[]> {
  const missing = defaultsFor(await deps.uow.repositories().ingestionRules.ofOrg(orgId)).filter((rule) => rule.forNewOrgs && !rule.alreadyPresent);
  const created: IngestionRuleRecord[] = [];
  for (const rule of missing) {
    created.push(
      await createRule(deps, caller, orgId, {
        name: rule.name,
        description: null,
        includePatterns: rule.includePatterns,
        excludePatterns: rule.excludePatterns,
        invocation: rule.invocation,
        autoIngest: true,
      }),
    );
  }
  return created;
}
