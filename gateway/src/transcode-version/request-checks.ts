import { isFieldSet, type DescField, type DescMessage, type Message } from "@bufbuild/protobuf";
import { invalidArgument } from "@hangar/shared";
import { findField } from "../transcode";
import { API_VERSIONS, type ApiVersion } from "./api-version";

/** Refuses a request a caller of `version` may not send: throws INVALID_ARGUMENT naming the field. */
export type RequestCheck = (message: Message, version: ApiVersion) => void;

/** The request side of a dated change (see `DatedChange`, kind `request`). */
export interface RequestFieldsChange {
  /** The change's version: from it on `retired` are refused and `required` required; before it `introduced` are refused. */
  before: ApiVersion;
  introduced: readonly string[];
  retired: readonly string[];
  required: readonly string[];
}

/**
 * The check of one `request` change on an RPC's input message. Field names are resolved at
 * start-up (a misspelt one throws); at run time a check is a few field reads, before the RPC is
 * called, so a refused request writes nothing.
 */
export function requestFieldsCheck(input: DescMessage, change: RequestFieldsChange): RequestCheck {
  const resolve = (names: readonly string[]) =>
    names.map((name) => {
      const field = findField(input, [name]);
      if (field === undefined) throw new Error(`${input.typeName} has no field '${name}' for a dated request change`);
      return field;
    });
  const [introduced, retired, required] = [resolve(change.introduced), resolve(change.retired), resolve(change.required)];
  const since = API_VERSIONS[change.before];
  return (message, version) => {
    if (version < change.before) {
      const field = introduced.find((f) => given(message, f));
      if (field) throw invalidArgument(field.name, `needs API version ${since} or later (X-Roboto-Api-Version names ${API_VERSIONS[version]})`);
      return;
    }
    const old = retired.find((f) => given(message, f));
    if (old) throw invalidArgument(old.name, `is accepted only under API versions before ${since} (X-Roboto-Api-Version names ${API_VERSIONS[version]})`);
    const missing = required.find((f) => !given(message, f));
    if (missing) throw invalidArgument(missing.name, "is required");
  };
}

/** Whether the request sets the field; a JSON `null` in a google.protobuf.Value field counts as not given, as handlers read it. */
function given(message: Message, field: DescField): boolean {
  if (!isFieldSet(message, field)) return false;
  if (field.fieldKind !== "message" || field.message.typeName !== "google.protobuf.Value") return true;
  const value = (message as unknown as Record<string, { kind?: { case?: string } }>)[field.localName];
  return value?.kind?.case !== undefined && value.kind.case !== "nullValue";
}
