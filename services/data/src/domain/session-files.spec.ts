import { checkFileDeclarations, type SessionFileInput } from "./session-files";

const file = (changes: Partial<SessionFileInput> = {}): SessionFileInput => ({ fileId: "fl_a", dataRange: [], topicCount: 0, ...changes });

describe("checkFileDeclarations", () => {
  it("keeps a window in file time with its anchor", () => {
    expect(checkFileDeclarations([file({ anchorNs: 100n, minFileTimestampNs: 5n, maxFileTimestampNs: 9n, dataRange: [0n, 10n] })], "files")).toEqual([
      { fileId: "fl_a", dataRange: [0n, 10n], unixEpochOffsetNs: 100n, window: [5n, 9n] },
    ]);
  });

  it("turns a wall-clock window into file time by the anchor, and keeps it as given without one", () => {
    expect(checkFileDeclarations([file({ anchorNs: 100n, rangeMinTimestampNs: 150n, rangeMaxTimestampNs: 160n })], "files")[0]!.window).toEqual([50n, 60n]);
    expect(checkFileDeclarations([file({ rangeMinTimestampNs: 150n, rangeMaxTimestampNs: 160n })], "files")[0]!.window).toEqual([150n, 160n]);
  });

  it("anchors entries without their own with the session's anchor; an entry's own wins", () => {
    const [a, b] = checkFileDeclarations([file(), file({ fileId: "fl_b", anchorNs: 7n })], "sessions[0].files", 3n);
    expect([a!.unixEpochOffsetNs, b!.unixEpochOffsetNs]).toEqual([3n, 7n]);
  });

  it("is exact at 2^63 - 1 and refuses a wall-clock end past it", () => {
    const max = 2n ** 63n - 1n;
    expect(checkFileDeclarations([file({ anchorNs: 1n, minFileTimestampNs: 0n, maxFileTimestampNs: max - 1n })], "files")[0]!.window).toEqual([0n, max - 1n]);
    expect(() => checkFileDeclarations([file({ anchorNs: 2n, minFileTimestampNs: 0n, maxFileTimestampNs: max - 1n })], "files")).toThrow("files[0].max_file_timestamp_ns: with the anchor, passes 2^63 - 1 ns");
  });

  it.each([
    [[file(), file()], "files[1].file_id: file 'fl_a' is declared more than once; declare each file once"],
    [[file({ fileId: "" })], "files[0].file_id: is required"],
    [[file({ topicCount: 1 })], "files[0].topics: declaring topics needs topic registration"],
    [[file({ anchorNs: 0n })], "files[0].anchor_ns: must lie between 1 and 2**63 - 1 nanoseconds"],
    [[file({ dataRange: [1n] })], "files[0].data_range: must be [start, end]"],
    [[file({ dataRange: [3n, 3n] })], "files[0].data_range: end must be above start"],
    [[file({ dataRange: [0n, 2n ** 53n + 1n] })], "files[0].data_range: positions above 2^53 are not supported"],
    [[file({ minFileTimestampNs: 1n })], "files[0].max_file_timestamp_ns: is required with min_file_timestamp_ns"],
    [[file({ rangeMaxTimestampNs: 1n })], "files[0].range_min_timestamp_ns: is required with range_max_timestamp_ns"],
    [[file({ minFileTimestampNs: 2n, maxFileTimestampNs: 1n })], "files[0].min_file_timestamp_ns: must not be above max_file_timestamp_ns"],
    [[file({ minFileTimestampNs: 1n, maxFileTimestampNs: 2n, rangeMinTimestampNs: 1n, rangeMaxTimestampNs: 2n })], "files[0].range_min_timestamp_ns: give the window once"],
  ])("refuses %#", (files, message) => {
    expect(() => checkFileDeclarations(files, "files")).toThrow(message);
  });
});
