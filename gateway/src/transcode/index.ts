export { readJsonBody } from "./read-json-body";
export { jsonToMessage, setFieldFromJson, type JsonToMessageOptions } from "./json-to-message";
export { setFieldFromString } from "./set-field-from-string";
export { findField, fieldTable, type FieldTable } from "./field-table";
export { checkRequired } from "./check-required";
export { messageToJson, fieldValueToJson } from "./message-to-json";
export { valueToJson, structToJson, listValueToJson, jsonValueToJson } from "./value-to-json";
export { parseTimestamp, formatTimestamp, type EpochTime } from "./timestamp-text";
export { parseDuration, formatDuration } from "./duration-text";
