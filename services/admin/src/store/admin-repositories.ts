import type { EntityManager } from "@hangar/shared";
import type { AdminRepositories } from "../domain/repositories";
import { CredentialRequestStore } from "./credential-request-store";
import { MembershipStore } from "./membership-store";
import { NotificationStore } from "./notification-store";
import { UserConfigStore } from "./user-config-store";
import { OrgStore } from "./org-store";
import { TokenStore } from "./token-store";
import { UsageStore } from "./usage-store";
import { UserStore } from "./user-store";

/** The admin repositories over one entity manager: the `bind` of the service's unit of work and its consumers. */
export function adminRepositories(em: EntityManager): AdminRepositories {
  return { orgs: new OrgStore(em), users: new UserStore(em), memberships: new MembershipStore(em), tokens: new TokenStore(em), usage: new UsageStore(em), notifications: new NotificationStore(em), userConfig: new UserConfigStore(em), credentialRequests: new CredentialRequestStore(em) };
}
