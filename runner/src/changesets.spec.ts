import { setFields } from "./changesets";

// Lines of a file changeset file as the client SDK's FilesChangesetFileManager writes them
// (roboto 0.53.0): the fields a call leaves unset carry the SDK's NotSet sentinel, `{}`.
describe("setFields", () => {
  it("drops the fields the SDK left unset", () => {
    const line = '{"description":{},"device_id":{},"metadata_changeset":{"put_tags":["x"],"remove_tags":null,"put_fields":null,"remove_fields":null,"replace_all":false},"ingestion_complete":{}}';
    expect(setFields(JSON.parse(line))).toEqual({
      metadata_changeset: { put_tags: ["x"], remove_tags: null, put_fields: null, remove_fields: null, replace_all: false },
    });
  });

  it("keeps a description, and a null one, which clears it", () => {
    expect(setFields(JSON.parse('{"description":"line count","device_id":{},"metadata_changeset":{},"ingestion_complete":{}}'))).toEqual({ description: "line count" });
    expect(setFields(JSON.parse('{"description":null,"device_id":{},"metadata_changeset":{},"ingestion_complete":{}}'))).toEqual({ description: null });
  });
});
