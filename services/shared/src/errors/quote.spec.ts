import { capMessage, quoteValue } from "./quote";

describe("quoteValue", () => {
  test("quotes a short value whole", () => {
    expect(quoteValue("ds_1")).toBe("'ds_1'");
    expect(quoteValue("v".repeat(64))).toBe(`'${"v".repeat(64)}'`);
  });

  test("quotes only the first 64 characters of a longer one", () => {
    expect(quoteValue("v".repeat(1 << 20))).toBe(`'${"v".repeat(64)}...'`);
  });

  test("never cuts a surrogate pair in half", () => {
    expect(quoteValue("a" + "🚀".repeat(100))).toBe(`'a${"🚀".repeat(31)}...'`);
  });
});

describe("capMessage", () => {
  test("leaves a message of up to 1,024 characters alone and cuts a longer one to 1,024", () => {
    expect(capMessage("m".repeat(1024))).toBe("m".repeat(1024));
    expect(capMessage("m".repeat(5000))).toBe(`${"m".repeat(1021)}...`);
  });
});
