/**
 * Why an MCAP file could not be ingested, naming where: the byte `offset` of the record at fault
 * and the `record` kind (`Chunk`, `Schema`, `summary`, ...); the offset is undefined for records
 * the summary section lists without their place. The file is left as it was and no
 * derived file is kept. Messages never quote the file's bytes, so they stay short.
 */
export class McapIngestError extends Error {
  override readonly name = "McapIngestError";

  constructor(
    readonly record: string,
    readonly offset: bigint | undefined,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super(`${record} record${offset === undefined ? "" : ` at offset ${offset}`}: ${detail}`, options);
  }
}
