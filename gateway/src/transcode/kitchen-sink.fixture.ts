import { create, createFileRegistry, setExtension, type DescEnum, type DescMessage } from "@bufbuild/protobuf";
import {
  DescriptorProtoSchema,
  FieldDescriptorProtoSchema,
  MessageOptionsSchema,
  OneofDescriptorProtoSchema,
  FieldDescriptorProto_Label as Label,
  FieldDescriptorProto_Type as Type,
  FieldOptions_JSType,
  FieldOptionsSchema,
  FileDescriptorProtoSchema,
  file_google_protobuf_duration,
  file_google_protobuf_empty,
  file_google_protobuf_field_mask,
  file_google_protobuf_struct,
  file_google_protobuf_timestamp,
  file_google_protobuf_wrappers,
  type DescriptorProto,
} from "@bufbuild/protobuf/wkt";
import {
  FieldBehavior,
  field_behavior,
  file_google_api_field_behavior,
} from "@hangar/shared/proto/google-api";

/** A field of the test schema: the type, or the fully qualified message/enum name (with a leading dot). */
interface FieldSpec {
  readonly type: Type | string;
  readonly repeated?: boolean;
  readonly optional?: boolean;
  readonly oneof?: string;
  readonly required?: boolean;
  readonly jsString?: boolean;
}

const enumTypes = new Set([".test.v1.Color", ".google.protobuf.NullValue"]);

function message(name: string, fields: Record<string, FieldSpec>, nested: DescriptorProto[] = []): DescriptorProto {
  const msg = create(DescriptorProtoSchema, { name, nestedType: nested });
  const oneofs: string[] = [...new Set(Object.values(fields).flatMap((f) => (f.oneof ? [f.oneof] : [])))];
  let number = 0;
  for (const [fieldName, spec] of Object.entries(fields)) {
    number++;
    const typeName = typeof spec.type === "string" ? spec.type : undefined;
    const options = create(FieldOptionsSchema, spec.jsString ? { jstype: FieldOptions_JSType.JS_STRING } : {});
    if (spec.required) setExtension(options, field_behavior, [FieldBehavior.REQUIRED]);
    let oneofIndex: number | undefined;
    if (spec.oneof) oneofIndex = oneofs.indexOf(spec.oneof);
    if (spec.optional) oneofIndex = oneofs.push(`_${fieldName}`) - 1;
    msg.field.push(
      create(FieldDescriptorProtoSchema, {
        name: fieldName,
        jsonName: fieldName.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase()),
        number,
        label: spec.repeated ? Label.REPEATED : Label.OPTIONAL,
        type: typeName === undefined ? (spec.type as Type) : enumTypes.has(typeName) ? Type.ENUM : Type.MESSAGE,
        typeName,
        oneofIndex,
        proto3Optional: spec.optional,
        options,
      }),
    );
  }
  msg.oneofDecl = oneofs.map((n) => create(OneofDescriptorProtoSchema, { name: n }));
  return msg;
}

function mapEntry(name: string, key: Type, value: Type | string): DescriptorProto {
  const entry = message(name, { key: { type: key }, value: { type: value } });
  entry.options = create(MessageOptionsSchema, { mapEntry: true });
  return entry;
}

const map = (entry: string): FieldSpec => ({ type: `.test.v1.Sink.${entry}`, repeated: true });

const file = create(FileDescriptorProtoSchema, {
  name: "test/v1/sink.proto",
  package: "test.v1",
  syntax: "proto3",
  dependency: [
    "google/protobuf/struct.proto",
    "google/protobuf/timestamp.proto",
    "google/protobuf/duration.proto",
    "google/protobuf/wrappers.proto",
    "google/protobuf/field_mask.proto",
    "google/protobuf/empty.proto",
    "google/api/field_behavior.proto",
  ],
  enumType: [
    {
      name: "Color",
      value: [
        { name: "COLOR_UNSPECIFIED", number: 0 },
        { name: "RED", number: 1 },
        { name: "GREEN", number: 2 },
      ],
    },
  ],
  messageType: [
    message("Inner", { name: { type: Type.STRING }, tags: { type: Type.STRING, repeated: true }, child: { type: ".test.v1.Inner" } }),
    message(
      "Sink",
      {
        s: { type: Type.STRING },
        b: { type: Type.BOOL },
        by: { type: Type.BYTES },
        d: { type: Type.DOUBLE },
        f: { type: Type.FLOAT },
        i32: { type: Type.INT32 },
        u32: { type: Type.UINT32 },
        i64: { type: Type.INT64 },
        u64: { type: Type.UINT64 },
        s64: { type: Type.SINT64 },
        f64: { type: Type.FIXED64 },
        i64s: { type: Type.INT64, jsString: true },
        opt_s: { type: Type.STRING, optional: true },
        opt_i64: { type: Type.INT64, optional: true },
        opt_color: { type: ".test.v1.Color", optional: true },
        color: { type: ".test.v1.Color" },
        inner: { type: ".test.v1.Inner" },
        inners: { type: ".test.v1.Inner", repeated: true },
        i64_list: { type: Type.INT64, repeated: true },
        colors: { type: ".test.v1.Color", repeated: true },
        counts: map("CountsEntry"),
        by_number: map("ByNumberEntry"),
        by_flag: map("ByFlagEntry"),
        meta: { type: ".google.protobuf.Struct" },
        val: { type: ".google.protobuf.Value" },
        vals: { type: ".google.protobuf.Value", repeated: true },
        at: { type: ".google.protobuf.Timestamp" },
        took: { type: ".google.protobuf.Duration" },
        wrapped: { type: ".google.protobuf.StringValue" },
        wrapped_i64: { type: ".google.protobuf.Int64Value" },
        mask: { type: ".google.protobuf.FieldMask" },
        nothing: { type: ".google.protobuf.Empty" },
        list: { type: ".google.protobuf.ListValue" },
        choice_s: { type: Type.STRING, oneof: "choice" },
        choice_inner: { type: ".test.v1.Inner", oneof: "choice" },
        choice_wrapped: { type: ".google.protobuf.Int32Value", oneof: "choice" },
        metas: { type: ".google.protobuf.Struct", repeated: true },
        values: map("ValuesEntry"),
        null_value: { type: ".google.protobuf.NullValue" },
        times: { type: ".google.protobuf.Timestamp", repeated: true },
      },
      [
        mapEntry("CountsEntry", Type.STRING, Type.INT64),
        mapEntry("ByNumberEntry", Type.INT32, Type.STRING),
        mapEntry("ByFlagEntry", Type.BOOL, ".test.v1.Inner"),
        mapEntry("ValuesEntry", Type.STRING, ".google.protobuf.Value"),
      ],
    ),
    message("Req", { id: { type: Type.STRING, required: true }, inner: { type: ".test.v1.ReqInner" }, v: { type: ".google.protobuf.Value", required: true } }),
    message("ReqInner", { name: { type: Type.STRING, required: true }, note: { type: Type.STRING } }),
  ],
});

const deps = [
  file_google_protobuf_struct,
  file_google_protobuf_timestamp,
  file_google_protobuf_duration,
  file_google_protobuf_wrappers,
  file_google_protobuf_field_mask,
  file_google_protobuf_empty,
  file_google_api_field_behavior,
];

const registry = createFileRegistry(file, (name) => deps.find((d) => d.proto.name === name));

function need<T>(value: T | undefined, name: string): T {
  if (value === undefined) throw new Error(`test schema lacks ${name}`);
  return value;
}

/** A proto3 message with a field of every kind the transcoder handles (test only). */
export const SinkSchema: DescMessage = need(registry.getMessage("test.v1.Sink"), "Sink");
/** A small message used as a nested field, list item, map value and oneof member (test only). */
export const InnerSchema: DescMessage = need(registry.getMessage("test.v1.Inner"), "Inner");
/** A message with required fields: `id` and `v` (a Value), and `inner.name` (test only). */
export const ReqSchema: DescMessage = need(registry.getMessage("test.v1.Req"), "Req");
/** The enum `Color { COLOR_UNSPECIFIED, RED, GREEN }` (test only). */
export const ColorEnum: DescEnum = need(registry.getEnum("test.v1.Color"), "Color");
