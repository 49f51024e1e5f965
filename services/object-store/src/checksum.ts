import { createHash } from "node:crypto";
import { crc32 } from "node:zlib";
import { Crc32c, Crc64Nvme } from "@aws-sdk/checksums/crc";
import { S3Error } from "./s3-error";

/** The flexible checksums S3 clients send (`x-amz-sdk-checksum-algorithm`). */
export const CHECKSUM_ALGORITHMS = ["CRC32", "CRC32C", "CRC64NVME", "SHA1", "SHA256"] as const;

/** One of {@link CHECKSUM_ALGORITHMS}. */
export type ChecksumAlgorithm = (typeof CHECKSUM_ALGORITHMS)[number];

/** A running checksum whose digest is base64, as in the `x-amz-checksum-*` headers. */
export interface Checksum {
  update(chunk: Buffer): void;
  digest(): Promise<string>;
}

/**
 * Starts a checksum of the given algorithm: CRC-32 from Node's zlib, CRC-32C and CRC-64/NVME from the
 * AWS SDK's own checksum package (what its clients compute them with), SHA-1 and SHA-256 from Node.
 */
export function createChecksum(algorithm: ChecksumAlgorithm): Checksum {
  switch (algorithm) {
    case "CRC32":
      return crc32Checksum();
    case "CRC32C":
      return sdkChecksum(new Crc32c());
    case "CRC64NVME":
      return sdkChecksum(new Crc64Nvme());
    case "SHA1":
    case "SHA256": {
      const hash = createHash(algorithm === "SHA1" ? "sha1" : "sha256");
      return { update: (chunk) => hash.update(chunk), digest: async () => hash.digest("base64") };
    }
  }
}

/** The header (and trailer) that carries a checksum: `x-amz-checksum-crc32` and so on. */
export function checksumHeaderName(algorithm: ChecksumAlgorithm): string {
  return `x-amz-checksum-${algorithm.toLowerCase()}`;
}

/** Reads an algorithm name in any case; unknown names are a 400 InvalidRequest. */
export function parseChecksumAlgorithm(value: string): ChecksumAlgorithm {
  const upper = value.trim().toUpperCase();
  const found = CHECKSUM_ALGORITHMS.find((algorithm) => algorithm === upper);
  if (found === undefined) throw new S3Error("InvalidRequest", `Checksum algorithm '${value}' is not supported.`);
  return found;
}

function crc32Checksum(): Checksum {
  let value = 0;
  return {
    update: (chunk) => {
      value = crc32(chunk, value);
    },
    digest: async () => {
      const bytes = Buffer.alloc(4);
      bytes.writeUInt32BE(value >>> 0);
      return bytes.toString("base64");
    },
  };
}

function sdkChecksum(checksum: { update(data: Uint8Array): void; digest(): Promise<Uint8Array> }): Checksum {
  return {
    update: (chunk) => checksum.update(chunk),
    digest: async () => Buffer.from(await checksum.digest()).toString("base64"),
  };
}
