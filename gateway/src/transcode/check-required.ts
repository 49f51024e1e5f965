import { isFieldSet, type DescMessage, type Message } from "@bufbuild/protobuf";
import { invalidArgument } from "@hangar/shared";
import { fieldTable } from "./field-table";
import { fieldPath } from "./json-path";

/**
 * Throws a 400 `<field>: is required` for the first top-level REQUIRED field of `message` that is
 * unset (an empty string or zero counts as unset here). For requests built without a `body: "*"`,
 * where `jsonToMessage` did not see the whole request.
 */
export function checkRequired(schema: DescMessage, message: Message, pathPrefix = ""): void {
  for (const field of fieldTable(schema).required) {
    if (!isFieldSet(message, field)) throw invalidArgument(fieldPath(pathPrefix, field.name), "is required");
  }
}
