import { createChecksum, parseChecksumAlgorithm } from "./checksum";

// The "check" values of the CRC catalogue and the digests of "123456789".
const expected = {
  CRC32: "cbf43926",
  CRC32C: "e3069283",
  CRC64NVME: "ae8b14860a799888",
  SHA1: "f7c3bc1d808e04732adf679965ccc34ca7ae3441",
  SHA256: "15e2b0d3c33891ebb0f1ef609ec419420c20e320ce94c65fbc8c3312448eb225",
} as const;

test.each(Object.entries(expected))("%s of '123456789', fed in two pieces, is the catalogue's check value", async (algorithm, hex) => {
  const checksum = createChecksum(parseChecksumAlgorithm(algorithm));
  checksum.update(Buffer.from("12345"));
  checksum.update(Buffer.from("6789"));
  expect(Buffer.from(await checksum.digest(), "base64").toString("hex")).toBe(hex);
});

test("algorithm names are read in any case, and unknown ones are refused", () => {
  expect(parseChecksumAlgorithm("crc32c")).toBe("CRC32C");
  expect(() => parseChecksumAlgorithm("MD4")).toThrow(expect.objectContaining({ code: "InvalidRequest" }));
});
