import { globSync } from "node:fs";
import path from "node:path";
import { hasOption, getOption, ScalarType, type DescField, type DescFile, type DescMessage } from "@bufbuild/protobuf";
import { limits as limitsOption, type Limits } from "../gen/hangar/common/v1/limits_pb";

const JSON_TYPES = new Set(["google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue"]);

/** Every generated file that declares a service. */
function serviceFiles(): DescFile[] {
  const gen = path.join(__dirname, "..", "gen", "hangar");
  return globSync("**/*_pb.ts", { cwd: gen })
    .flatMap((file) => Object.values(require(path.join(gen, file)) as Record<string, unknown>))
    .filter((value): value is DescFile => (value as DescFile | undefined)?.kind === "file" && (value as DescFile).services.length > 0);
}

/** The limits a field of this kind must declare, by the name of the Limits property. */
function requiredLimits(field: DescField): (keyof Limits)[] {
  const json = field.message !== undefined && JSON_TYPES.has(field.message.typeName) ? (["maxBytes", "maxDepth"] as const) : [];
  switch (field.fieldKind) {
    case "scalar":
      return field.scalar === ScalarType.STRING ? ["maxLen"] : field.scalar === ScalarType.BYTES ? ["maxBytes"] : [];
    case "list":
      return ["maxItems", ...(field.scalar === ScalarType.STRING ? (["maxLen"] as const) : []), ...json];
    case "map":
      return ["maxItems", "maxLen", ...json];
    case "message":
      return [...json];
    case "enum":
      return [];
  }
}

/** `Message.field: max_x` for each limit missing from a field reachable from a request. */
function missingLimits(request: DescMessage, seen: Set<string>): string[] {
  if (seen.has(request.typeName) || request.typeName.startsWith("google.protobuf.")) return [];
  seen.add(request.typeName);
  return request.fields.flatMap((field) => {
    const declared = hasOption(field, limitsOption) ? getOption(field, limitsOption) : undefined;
    const missing = requiredLimits(field)
      .filter((name) => !declared || declared[name] === 0)
      .map((name) => `${request.typeName}.${field.name}: ${name}`);
    const nested = field.message && !JSON_TYPES.has(field.message.typeName) ? missingLimits(field.message, seen) : [];
    return [...missing, ...nested];
  });
}

describe("request field limits", () => {
  const files = serviceFiles();

  test("the five services are found", () => {
    const names = files.flatMap((file) => file.services.map((service) => service.typeName));
    expect(names).toEqual(expect.arrayContaining(["hangar.data.v1.DataService", "hangar.compute.v1.ComputeService", "hangar.admin.v1.AdminService"]));
  });

  test("every string, bytes, list, map and JSON field of every request declares its limits", () => {
    const seen = new Set<string>();
    const missing = files.flatMap((file) => file.services.flatMap((service) => service.methods.flatMap((method) => missingLimits(method.input, seen))));
    expect(missing).toEqual([]);
  });
});
