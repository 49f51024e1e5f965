import { create, fromBinary, toBinary, type DescFile, type DescService, type MessageInitShape } from "@bufbuild/protobuf";
import { nestedTypes } from "@bufbuild/protobuf/reflect";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import { Code, type ConnectRouter } from "@connectrpc/connect";
import {
  ServerReflection,
  ServerReflectionRequestSchema,
  ServerReflectionResponseSchema,
  type ServerReflectionRequest,
  type ServerReflectionResponse,
} from "../gen/grpc/reflection/v1/reflection_pb";
import * as v1alpha from "../gen/grpc/reflection/v1alpha/reflection_pb";

/** One answer's content, as `create` takes it. */
type Answer = MessageInitShape<typeof ServerReflectionResponseSchema>["messageResponse"];

/** The descriptors a server describes: its files and their imports, indexed for reflection's questions. */
interface DescriptorIndex {
  services: string[];
  files: Map<string, DescFile>;
  /** Fully-qualified message, enum, service, method and extension names to their file. */
  symbols: Map<string, DescFile>;
  /** Extended message name to extension number to the extension's file. */
  extensions: Map<string, Map<number, DescFile>>;
}

/**
 * Registers gRPC server reflection (`grpc.reflection.v1.ServerReflection`, and the older
 * `v1alpha` that some clients still ask first), so that `grpcurl` and `buf curl` list and call the
 * services without local protos. Answers from the descriptors embedded in the generated code of
 * `services` (and their imports), the same ones the server decodes with; lists them and itself.
 */
export function registerGrpcReflection(router: ConnectRouter, services: readonly DescService[]): void {
  const index = indexDescriptors([...services, ServerReflection, v1alpha.ServerReflection]);
  router.service(ServerReflection, {
    async *serverReflectionInfo(requests) {
      const sent = new Set<string>();
      for await (const request of requests) yield answer(index, request, sent);
    },
  });
  router.service(v1alpha.ServerReflection, {
    async *serverReflectionInfo(requests) {
      const sent = new Set<string>();
      for await (const request of requests) {
        // The two versions' messages are the same fields under other package names.
        const asV1 = fromBinary(ServerReflectionRequestSchema, toBinary(v1alpha.ServerReflectionRequestSchema, request));
        yield fromBinary(v1alpha.ServerReflectionResponseSchema, toBinary(ServerReflectionResponseSchema, answer(index, asV1, sent)));
      }
    },
  });
}

function indexDescriptors(services: readonly DescService[]): DescriptorIndex {
  const index: DescriptorIndex = { services: services.map((s) => s.typeName), files: new Map(), symbols: new Map(), extensions: new Map() };
  const visit = (file: DescFile): void => {
    if (index.files.has(file.name)) return;
    index.files.set(file.name, file);
    for (const type of nestedTypes(file)) {
      index.symbols.set(type.typeName, file);
      if (type.kind === "service") for (const method of type.methods) index.symbols.set(`${type.typeName}.${method.name}`, file);
      if (type.kind === "extension") {
        const byNumber = index.extensions.get(type.extendee.typeName) ?? new Map<number, DescFile>();
        index.extensions.set(type.extendee.typeName, byNumber.set(type.number, file));
      }
    }
    file.dependencies.forEach(visit);
  };
  services.forEach((service) => visit(service.file));
  return index;
}

/** One answer; `sent` holds the files this stream already sent, which later answers leave out (but for the file asked for). */
function answer(index: DescriptorIndex, request: ServerReflectionRequest, sent: Set<string>): ServerReflectionResponse {
  const reply = (messageResponse: Answer) =>
    create(ServerReflectionResponseSchema, { validHost: request.host, originalRequest: request, messageResponse });
  const files = (file: DescFile | undefined, what: string) =>
    file === undefined ? reply(notFound(what)) : reply({ case: "fileDescriptorResponse", value: { fileDescriptorProto: withImports(file, sent) } });
  const { case: kind, value } = request.messageRequest;
  switch (kind) {
    case "fileByFilename":
      return files(index.files.get(value), `file '${value.slice(0, 64)}'`);
    case "fileContainingSymbol":
      return files(index.symbols.get(value), `symbol '${value.slice(0, 64)}'`);
    case "fileContainingExtension":
      return files(index.extensions.get(value.containingType)?.get(value.extensionNumber), `extension ${value.extensionNumber} of '${value.containingType.slice(0, 64)}'`);
    case "allExtensionNumbersOfType": {
      if (!index.symbols.has(value)) return reply(notFound(`type '${value.slice(0, 64)}'`));
      const extensionNumber = [...(index.extensions.get(value)?.keys() ?? [])];
      return reply({ case: "allExtensionNumbersResponse", value: { baseTypeName: value, extensionNumber } });
    }
    case "listServices":
      return reply({ case: "listServicesResponse", value: { service: index.services.map((name) => ({ name })) } });
    case undefined:
      return reply({ case: "errorResponse", value: { errorCode: Code.InvalidArgument, errorMessage: "the request asks nothing" } });
  }
}

/** The file's descriptor followed by those of its imports, direct and indirect, that this stream has not sent yet. */
function withImports(file: DescFile, sent: Set<string>): Uint8Array[] {
  const out: Uint8Array[] = [];
  const add = (next: DescFile, asked: boolean): void => {
    if (!asked && sent.has(next.name)) return;
    sent.add(next.name);
    out.push(toBinary(FileDescriptorProtoSchema, next.proto));
    for (const dependency of next.dependencies) add(dependency, false);
  };
  add(file, true);
  return out;
}

function notFound(what: string): Answer {
  return { case: "errorResponse", value: { errorCode: Code.NotFound, errorMessage: `no ${what} here` } };
}
