import { editRoles, parseRoles } from "./roles";

describe("parseRoles", () => {
  test("accepts the SDK's role names and reads `member` as `user`", () => {
    expect(parseRoles(["owner", "admin", "user", "member"], "add_roles")).toEqual(["owner", "admin", "user", "user"]);
  });

  test("an unknown name is a 400 naming the field and index, without other names' help", () => {
    expect(() => parseRoles(["admin", "Owner"], "remove_roles")).toThrow(/^\[invalid_argument\] remove_roles\[1\]: unknown role 'Owner'; expected one of owner, admin, user$/);
  });
});

describe("editRoles", () => {
  test("adds, then removes, in the fixed role order", () => {
    expect(editRoles(["user", "admin"], ["owner"], ["admin"])).toEqual(["owner", "user"]);
  });

  test("the member role stays even when removed", () => {
    expect(editRoles(["admin", "user"], [], ["user", "admin"])).toEqual(["user"]);
  });

  test("a role both added and removed ends removed", () => {
    expect(editRoles(["user"], ["admin"], ["admin"])).toEqual(["user"]);
  });
});
