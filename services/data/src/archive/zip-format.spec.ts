import { endRecords } from "./zip-format";

// APPNOTE 6.3, 4.4.1.4 and 4.3.14-4.3.16: a value that does not fit its end-record field is stored
// as all ones there, and the ZIP64 end record (found through its locator) carries the real one.
test("more than 65,535 entries: the end record says 0xFFFF and the ZIP64 end record, through its locator, the real count", () => {
  const [count, directoryOffset, directorySize] = [65_537, 1_000_000, 5_000_000];
  const records = endRecords(count, directoryOffset, directorySize);
  expect(records.length).toBe(56 + 20 + 22);
  const end = records.subarray(76);
  expect(end.readUInt32LE(0)).toBe(0x06054b50);
  expect([end.readUInt16LE(8), end.readUInt16LE(10)]).toEqual([0xffff, 0xffff]);
  expect([end.readUInt32LE(12), end.readUInt32LE(16)]).toEqual([directorySize, directoryOffset]);
  const locator = records.subarray(56, 76);
  expect(locator.readUInt32LE(0)).toBe(0x07064b50);
  expect(Number(locator.readBigUInt64LE(8))).toBe(directoryOffset + directorySize);
  const record = records.subarray(0, 56);
  expect(record.readUInt32LE(0)).toBe(0x06064b50);
  expect([record.readBigUInt64LE(24), record.readBigUInt64LE(32), record.readBigUInt64LE(40), record.readBigUInt64LE(48)]).toEqual(
    [BigInt(count), BigInt(count), BigInt(directorySize), BigInt(directoryOffset)],
  );
});

test("a directory past 4 GiB moves its offset into the ZIP64 end record; small archives get the plain end record only", () => {
  const far = endRecords(3, 2 ** 33, 300);
  expect(far.length).toBe(98);
  expect(far.subarray(76).readUInt32LE(16)).toBe(0xffffffff);
  expect(far.readBigUInt64LE(48)).toBe(2n ** 33n);
  const small = endRecords(3, 1_000, 300);
  expect(small.length).toBe(22);
  expect(small.readUInt16LE(10)).toBe(3);
});
