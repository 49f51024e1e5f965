import { createHash } from "node:crypto";
import { crc32 } from "node:zlib";
import { crc32c } from "./crc32c";
import { Crc64Nvme } from "./crc64nvme";
import { S3Error } from "./s3-error";

/** The flexible checksums S3 clients send (`x-amz-sdk-checksum-algorithm`). */
export const CHECKSUM_ALGORITHMS = ["CRC32", "CRC32C", "CRC64NVME", "SHA1", "SHA256"] as const;

/** One of {@link CHECKSUM_ALGORITHMS}. */
export type ChecksumAlgorithm = (typeof CHECKSUM_ALGORITHMS)[number];

/** A running checksum whose digest is base64, as in the `x-amz-checksum-*` headers. */
export interface Checksum {
  update(chunk: Buffer): void;
  digest(): string;
}

/** Starts a checksum of the given algorithm. */
export function createChecksum(algorithm: ChecksumAlgorithm): Checksum {
  switch (algorithm) {
    case "CRC32":
      return crcChecksum(crc32);
    case "CRC32C":
      return crcChecksum(crc32c);
    case "CRC64NVME": {
      const crc = new Crc64Nvme();
      return { update: (chunk) => crc.update(chunk), digest: () => crc.digest().toString("base64") };
    }
    case "SHA1":
    case "SHA256": {
      const hash = createHash(algorithm === "SHA1" ? "sha1" : "sha256");
      return { update: (chunk) => hash.update(chunk), digest: () => hash.digest("base64") };
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

function crcChecksum(update: (data: Uint8Array, previous?: number) => number): Checksum {
  let value = 0;
  return {
    update: (chunk) => {
      value = update(chunk, value);
    },
    digest: () => {
      const bytes = Buffer.alloc(4);
      bytes.writeUInt32BE(value >>> 0);
      return bytes.toString("base64");
    },
  };
}
