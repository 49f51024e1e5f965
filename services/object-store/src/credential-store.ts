import { randomBytes, randomInt } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { AccessMode } from "./scoped-credentials";

/** A credential the endpoint accepts: one issued to clients, or the internal one that signs presigned URLs. */
export interface StoredCredential {
  accessKeyId: string;
  secretAccessKey: string;
  /** Undefined for the internal credential, which is never handed out. */
  sessionToken: string | undefined;
  /** Every key the credential may touch starts with this; empty for the internal credential. */
  requiredPrefix: string;
  mode: AccessMode;
  /** Undefined for the internal credential, which does not expire. */
  expiration: Date | undefined;
}

/** Issued and internal credentials, kept in memory and in one JSON file. */
export interface CredentialStore {
  readonly internal: StoredCredential;
  issue(scope: { prefix: string; mode: AccessMode; ttlSeconds: number }): Promise<StoredCredential>;
  find(accessKeyId: string): StoredCredential | undefined;
}

/** Options of {@link createCredentialStore}. */
export interface CredentialStoreOptions {
  /** The JSON file (mode 0600) that keeps credentials across restarts, so open uploads keep working. */
  file: string;
  now: () => Date;
  /** The internal credential to use instead of the generated one kept in `file` (never written there). */
  root?: { accessKeyId: string; secretAccessKey: string };
}

/** How long an expired credential is still known, so that clients hear ExpiredToken rather than an unknown key. */
const EXPIRED_GRACE_MS = 60 * 60 * 1000;

const ALPHANUMERIC = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

/** Loads (or creates) the credentials file and returns the store over it. */
export async function createCredentialStore(options: CredentialStoreOptions): Promise<CredentialStore> {
  const loaded = await loadCredentials(options.file);
  const generated = loaded?.internal ?? newCredential("HGRI", "", "ReadWrite", undefined, false);
  const internal: StoredCredential = options.root ? { ...generated, ...options.root } : generated;
  const issued = new Map((loaded?.issued ?? []).map((credential) => [credential.accessKeyId, credential]));
  let writes: Promise<void> = Promise.resolve();

  const prune = (): void => {
    const cutoff = options.now().getTime() - EXPIRED_GRACE_MS;
    for (const [id, credential] of issued) {
      if (credential.expiration !== undefined && credential.expiration.getTime() < cutoff) issued.delete(id);
    }
  };
  // Writes are chained so that the last snapshot always lands last.
  const persist = (): Promise<void> => {
    const snapshot = JSON.stringify({ version: 1, internal: generated, issued: [...issued.values()] });
    writes = writes.catch(() => undefined).then(() => writeAtomically(options.file, snapshot));
    return writes;
  };

  prune();
  await persist();
  return {
    internal,
    async issue({ prefix, mode, ttlSeconds }) {
      const expiration = new Date(options.now().getTime() + ttlSeconds * 1000);
      const credential = newCredential("HGRE", prefix, mode, expiration, true);
      prune();
      issued.set(credential.accessKeyId, credential);
      await persist();
      return credential;
    },
    find: (accessKeyId) => (accessKeyId === internal.accessKeyId ? internal : issued.get(accessKeyId)),
  };
}

function newCredential(
  idPrefix: string,
  requiredPrefix: string,
  mode: AccessMode,
  expiration: Date | undefined,
  withToken: boolean,
): StoredCredential {
  let accessKeyId = idPrefix;
  for (let i = 0; i < 16; i++) accessKeyId += ALPHANUMERIC[randomInt(ALPHANUMERIC.length)];
  return {
    accessKeyId,
    secretAccessKey: randomBytes(30).toString("base64"),
    // base64url: tokens travel in headers and query strings, where '+', '/' and '=' invite encoding mistakes.
    sessionToken: withToken ? randomBytes(96).toString("base64url") : undefined,
    requiredPrefix,
    mode,
    expiration,
  };
}

interface CredentialFile {
  internal: StoredCredential;
  issued: StoredCredential[];
}

async function loadCredentials(file: string): Promise<CredentialFile | undefined> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  try {
    const parsed = JSON.parse(text) as { internal: SerializedCredential; issued: SerializedCredential[] };
    return { internal: revive(parsed.internal), issued: parsed.issued.map(revive) };
  } catch (error) {
    throw new Error(`the object store's credentials file ${file} is unreadable`, { cause: error });
  }
}

type SerializedCredential = Omit<StoredCredential, "expiration" | "sessionToken"> & {
  expiration?: string;
  sessionToken?: string;
};

function revive(credential: SerializedCredential): StoredCredential {
  if (typeof credential.accessKeyId !== "string" || typeof credential.secretAccessKey !== "string") {
    throw new TypeError("a credential lacks its key");
  }
  return {
    ...credential,
    sessionToken: credential.sessionToken,
    expiration: credential.expiration === undefined ? undefined : new Date(credential.expiration),
  };
}

async function writeAtomically(file: string, content: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const temporary = `${file}.${randomBytes(6).toString("hex")}.tmp`;
  await writeFile(temporary, content, { mode: 0o600 });
  await rename(temporary, file);
}
