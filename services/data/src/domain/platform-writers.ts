import { actsForInvocation } from "@hangar/shared";
import { namesPlatformPath } from "./paths";

/** The compute service's knowledge of which invocations run the platform's own (built-in) actions. */
export interface BuiltinInvocations {
  /** Whether the org's invocation runs a built-in action; false when the org has no such invocation. */
  runsBuiltinAction(orgId: string, invocationId: string): Promise<boolean>;
}

/**
 * Whether a caller writing `paths` into an org's association writes as the platform, and so may
 * write the platform's own files (`.hangar/`): only an invocation of one of the platform's built-in
 * actions (the MCAP ingestion) in that org. Any other action's invocation token is an ordinary
 * writer: its user's action must not plant or replace files the platform hides and owns. The
 * compute service is asked only when a path is the platform's, so ordinary uploads cost nothing.
 */
export async function writesAsPlatform(
  invocations: BuiltinInvocations,
  caller: { invocationId?: string | undefined },
  orgId: string,
  paths: Iterable<string>,
): Promise<boolean> {
  if (!actsForInvocation(caller)) return false;
  if (![...paths].some(namesPlatformPath)) return false;
  return invocations.runsBuiltinAction(orgId, caller.invocationId!);
}
