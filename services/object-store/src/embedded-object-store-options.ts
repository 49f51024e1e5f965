/** The minimal logger the store reports unexpected failures to (a pino logger fits). */
export interface ObjectStoreLogger {
  error(details: object, message: string): void;
}

/** Options of the embedded object store. */
export interface EmbeddedObjectStoreOptions {
  /**
   * Where the store keeps its state: `objects/<bucket>/<key>`, `object-metadata/`, `multipart/`,
   * `object-tmp/` (emptied at start) and `object-credentials.json`.
   */
  dataDir: string;
  /** Port of the S3 endpoint (Hangar's `OBJECT_STORE_PORT`); 0 picks a free one. */
  port: number;
  /** Interface to listen on; default 127.0.0.1 (single-machine mode). */
  host?: string;
  /** The one bucket; default "hangar". */
  bucket?: string;
  /** The region clients sign for; default "us-east-1". */
  region?: string;
  /** The endpoint URL clients are told (for example behind a proxy); default the listening URL. Origin only, no path. */
  publicUrl?: string;
  /**
   * The store's root credential: it signs the presigned URLs and may call STS AssumeRole for scoped
   * session credentials. Default a random one kept in `object-credentials.json` and never handed out;
   * give one when another process uses the store as an S3 client (the standalone server, `main.ts`).
   */
  rootCredential?: { accessKeyId: string; secretAccessKey: string };
  /** The clock, for credential expiry, request time checks and presigning; tests move it. Default the system clock. */
  now?: () => Date;
  /** Where unexpected failures are reported; default stderr. */
  logger?: ObjectStoreLogger;
}

/** The options with their defaults applied. */
export type ResolvedEmbeddedObjectStoreOptions = Required<Omit<EmbeddedObjectStoreOptions, "publicUrl" | "rootCredential">> &
  Pick<EmbeddedObjectStoreOptions, "rootCredential"> & { publicUrl: string | undefined };

/** Checks the options once at start-up and applies the defaults; throws a TypeError naming every bad option. */
export function validateEmbeddedObjectStoreOptions(options: EmbeddedObjectStoreOptions): ResolvedEmbeddedObjectStoreOptions {
  const problems: string[] = [];
  const bucket = options.bucket ?? "hangar";
  if (options.dataDir === "") problems.push("dataDir must not be empty");
  if (!Number.isInteger(options.port) || options.port < 0 || options.port > 65_535) problems.push(`port must be 0-65535, not ${options.port}`);
  // S3's bucket naming rules, path-style subset.
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket) || bucket.includes("..")) problems.push(`bucket '${bucket}' is not a valid S3 bucket name`);
  let publicUrl: string | undefined;
  if (options.publicUrl !== undefined) {
    try {
      const url = new URL(options.publicUrl);
      if (!/^https?:$/.test(url.protocol) || url.pathname !== "/" || url.search !== "") throw new Error("not an origin");
      publicUrl = url.origin;
    } catch {
      problems.push(`publicUrl must be an http(s) origin without a path, not '${options.publicUrl}'`);
    }
  }
  const root = options.rootCredential;
  // As AWS's own limits: keys of 16-128 characters, secrets of at least 16 (AWS's are 40).
  if (root !== undefined && (!/^[A-Za-z0-9]{16,128}$/.test(root.accessKeyId) || root.secretAccessKey.length < 16)) {
    problems.push("rootCredential needs an access key id of 16-128 letters and digits and a secret of at least 16 characters");
  }
  if (problems.length > 0) throw new TypeError(`invalid embedded object store options: ${problems.join("; ")}`);
  return {
    dataDir: options.dataDir,
    port: options.port,
    host: options.host ?? "127.0.0.1",
    bucket,
    region: options.region ?? "us-east-1",
    publicUrl,
    rootCredential: root,
    now: options.now ?? (() => new Date()),
    logger: options.logger ?? { error: (details, message) => console.error(message, details) },
  };
}
