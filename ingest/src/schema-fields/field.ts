/**
 * CanonicalDataType values (overview.md): the platform's format-independent type of a message
 * path, which clients use to choose how to show and decode it.
 */
export type CanonicalDataType =
  | "array"
  | "boolean"
  | "byte"
  | "categorical"
  | "image"
  | "number"
  | "number_array"
  | "object"
  | "string"
  | "timestamp"
  | "unknown";

/**
 * One field of a topic's schema as register_file_topics declares it (`topic_schema.fields[]`):
 * `path` runs from the schema root to the field (the message path's `path_in_schema`; joined
 * with dots it is the `message_path`), `data_type` is the type as the source format writes it.
 * Objects are listed as well as their fields; arrays are not descended into, since a path cannot
 * name an element.
 */
export interface SchemaField {
  name: string;
  path: string[];
  data_type: string;
  canonical_data_type: CanonicalDataType;
}

/** Fields deeper than this are not listed: it stops recursive types and pathological schemas. */
export const MAX_FIELD_DEPTH = 16;

/** Builds a SchemaField at `parent`'s path plus `name`. */
export function fieldAt(parent: string[], name: string, dataType: string, canonical: CanonicalDataType): SchemaField {
  return { name, path: [...parent, name], data_type: dataType, canonical_data_type: canonical };
}

/**
 * Image message types across ROS 1, ROS 2 and Foxglove's schemas: a field of one of these types
 * is an `image` rather than an `object`, so clients can render it.
 */
export function isImageType(typeName: string): boolean {
  return /(^|[/.])(Image|CompressedImage|RawImage)$/.test(typeName);
}
