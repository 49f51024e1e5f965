import { Code, ConnectError } from "@connectrpc/connect";
import { settleBatchElement } from "./http-status";

describe("settleBatchElement", () => {
  it("answers a success as data", async () => {
    await expect(settleBatchElement(async () => 7)).resolves.toEqual({ data: 7 });
  });

  it("answers a refusal in the error envelope with the status the element alone would get", async () => {
    const settled = await settleBatchElement(async () => {
      throw new ConnectError("notification 'nt_1' not found", Code.NotFound);
    });
    expect(settled).toEqual({ error: { error: { errorCode: 404, message: "notification 'nt_1' not found", stackTrace: "" } } });
  });

  it("fails the whole batch on a failure of no request's making", async () => {
    await expect(settleBatchElement(async () => { throw new ConnectError("database down", Code.Unavailable); })).rejects.toThrow("database down");
    await expect(settleBatchElement(async () => { throw new TypeError("bug"); })).rejects.toThrow("bug");
  });
});
