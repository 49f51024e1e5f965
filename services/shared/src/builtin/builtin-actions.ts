/**
 * The actions the platform itself provides, by the reference an ingestion rule's `invocation`
 * names them with (`action: {name, owner}`). They are published to the Action Hub by their owner
 * org, so every org's rules and invocations can run them; the compute service keeps them present.
 */
export const BUILTIN_ACTION_OWNER_ORG = "og_hangar_builtin";

/** Reads an uploaded `.mcap` file and registers its topics, message paths and per-topic representations. */
export const MCAP_INGESTION_ACTION = { name: "ingest-mcap", owner: BUILTIN_ACTION_OWNER_ORG } as const;
