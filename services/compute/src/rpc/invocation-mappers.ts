import { fromJson, type JsonObject, type MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate, ValueSchema } from "@bufbuild/protobuf/wkt";
import type { ComputeRequirementsSchema, ContainerParametersSchema, InvocationSchema } from "@hangar/shared/proto/compute";
import type { InvocationRecord } from "../domain/records";

type InvocationInit = MessageInitShape<typeof InvocationSchema>;

/** Invocation row to its wire record. */
export function invocationToProto(row: InvocationRecord, now = new Date()): InvocationInit {
  return {
    created: timestampFromDate(row.created),
    dataSource: { dataSourceType: row.dataSourceType, dataSourceId: row.dataSourceId },
    inputData: row.inputData,
    ...(row.richInputData !== null ? { richInputData: fromJson(ValueSchema, row.richInputData) } : {}),
    ...(row.uploadDestination ? { uploadDestination: { bucket: String(row.uploadDestination.bucket ?? ""), prefix: String(row.uploadDestination.prefix ?? "") } } : {}),
    invocationId: row.invocationId,
    ...(row.idempotencyId !== null ? { idempotencyId: row.idempotencyId } : {}),
    computeRequirements: computeRequirementsToProto(row.computeRequirements),
    containerParameters: containerParametersToProto(row.containerParameters),
    ...(row.lastHeartbeat ? { lastHeartbeat: timestampFromDate(row.lastHeartbeat) } : {}),
    lastStatus: row.lastStatus,
    orgId: row.orgId,
    parameterValues: row.parameterValues,
    provenance: {
      action: { name: row.actionName, orgId: row.actionOrgId, digest: row.actionDigest },
      executable: {
        ...(row.containerImageUri !== null ? { containerImageUri: row.containerImageUri } : {}),
        ...(row.containerImageDigest !== null ? { containerImageDigest: row.containerImageDigest } : {}),
      },
      source: { sourceType: row.sourceType, sourceId: row.sourceId },
    },
    status: row.statusHistory.map((entry) => ({
      status: entry.status,
      ...(entry.detail !== null ? { detail: entry.detail } : {}),
      timestamp: timestampFromDate(new Date(entry.timestamp)),
    })),
    duration: isoDuration(row, now),
    timeout: BigInt(row.timeout),
  };
}

/** From creation to the final status, or to now while it runs, as an ISO 8601 duration (`PT12.5S`). */
function isoDuration(row: InvocationRecord, now: Date): string {
  const end = row.finished ?? now;
  const seconds = Math.max(0, end.getTime() - row.created.getTime()) / 1000;
  return `PT${Number(seconds.toFixed(3))}S`;
}

/** Stored compute requirements (the SDK's keys) to the wire message. */
export function computeRequirementsToProto(json: JsonObject): MessageInitShape<typeof ComputeRequirementsSchema> {
  return {
    vCPU: Number(json.vCPU),
    memory: Number(json.memory),
    gpu: Boolean(json.gpu),
    storage: Number(json.storage),
  };
}

/** Stored container parameters to the wire message. */
export function containerParametersToProto(json: JsonObject): MessageInitShape<typeof ContainerParametersSchema> {
  return {
    command: (json.command as string[] | null | undefined) ?? [],
    entryPoint: (json.entry_point as string[] | null | undefined) ?? [],
    envVars: (json.env_vars as Record<string, string> | null | undefined) ?? {},
    ...(typeof json.workdir === "string" ? { workdir: json.workdir } : {}),
  };
}
