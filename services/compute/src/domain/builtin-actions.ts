import { BUILTIN_ACTION_OWNER_ORG, MCAP_INGESTION_ACTION, type UnitOfWork } from "@hangar/shared";
import { actionDigest, composeDefinition, definitionJson, EMPTY_DEFINITION, publishedAt, type DefinitionChanges } from "./actions";
import type { ActionRecord } from "./records";
import type { ActionRepositories } from "./repositories";

/** A platform-provided action: its name (in BUILTIN_ACTION_OWNER_ORG) and its definition. */
export interface BuiltinAction {
  name: string;
  definition: DefinitionChanges;
}

/** Who the built-in actions' records name as their creator and last editor. */
const PLATFORM = "hangar-platform";

/**
 * The built-in MCAP ingestion action, run as a process by `node` (`nodePath`) on `actionScript`
 * (ingest/dist/action.js where the runner runs). Two hours: ingestion streams at tens of MB/s,
 * so that covers files of tens of GiB on a loaded runner.
 */
export function mcapIngestionAction(nodePath: string, actionScript: string): BuiltinAction {
  return {
    name: MCAP_INGESTION_ACTION.name,
    definition: {
      short_description: "Registers an MCAP file's topics, message paths and per-topic representations",
      description:
        "Splits an uploaded .mcap file into one derived MCAP per channel (kept by the platform beside the file), registers a topic per channel " +
        "with its message paths, time range and an mcap representation, and marks the file ingestion_complete. Runs on process runners.",
      container_parameters: { entry_point: [nodePath], command: [actionScript] },
      timeout: 120,
    },
  };
}

/**
 * Keeps each built-in action present in BUILTIN_ACTION_OWNER_ORG on the Action Hub, so that every
 * org can invoke it: created when missing, its definition brought up to date (a new digest, the
 * old ones staying invocable) when the platform's changed, and left alone otherwise, so a restart
 * writes nothing. Replicas starting at once are safe: the row lock orders them, and an insert
 * that loses the race means another replica created it.
 */
export async function ensureBuiltinActions(uow: UnitOfWork<ActionRepositories>, builtins: readonly BuiltinAction[]): Promise<void> {
  for (const builtin of builtins) {
    await uow.transaction(async ({ actions }) => {
      const definition = composeDefinition(EMPTY_DEFINITION, builtin.definition);
      const digest = actionDigest(BUILTIN_ACTION_OWNER_ORG, builtin.name, definition);
      const now = new Date();
      const current = await actions.find(BUILTIN_ACTION_OWNER_ORG, builtin.name, true);
      if (!current) {
        const record = newBuiltinRecord(builtin.name, definitionJson(definition), digest, now);
        if (await actions.insert(record)) await actions.saveVersion(record);
        return;
      }
      if (current.digest === digest && current.accessibility === "action_hub") return;
      current.published = publishedAt(current, "action_hub", now);
      current.accessibility = "action_hub";
      current.definition = definitionJson(definition);
      current.digest = digest;
      current.modified = now;
      current.modifiedBy = PLATFORM;
      await actions.update(current);
      await actions.saveVersion(current);
    });
  }
}

function newBuiltinRecord(name: string, definition: ActionRecord["definition"], digest: string, now: Date): ActionRecord {
  return {
    orgId: BUILTIN_ACTION_OWNER_ORG,
    name,
    accessibility: "action_hub",
    definition,
    digest,
    metadata: {},
    tags: ["builtin"],
    published: now,
    created: now,
    createdBy: PLATFORM,
    modified: now,
    modifiedBy: PLATFORM,
  };
}
