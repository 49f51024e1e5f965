/** The admin service's API (hangar.admin.v1). */
export * from "../gen/hangar/admin/v1/identity_pb";
export * from "../gen/hangar/admin/v1/admin_service_pb";
export * from "../gen/hangar/admin/v1/notification_pb";
export * from "../gen/hangar/admin/v1/user_config_pb";
export * from "../gen/hangar/admin/v1/credential_request_pb";
