/** The assistant service's API (hangar.assistant.v1). */
export * from "../gen/hangar/assistant/v1/assistant_service_pb";
