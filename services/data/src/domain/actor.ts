/**
 * Whom a use case acts for, as rpc/ resolved it from the caller: the org the call may read
 * (undefined when it may read none, so that every lookup is a 404 and nothing of another org
 * leaks) and the caller's subject, recorded as creator, modifier or event actor.
 */
export interface Actor {
  orgId: string | undefined;
  subject: string;
}

/** An actor in an org the call may write in (rpc/ checked it): what creations need. */
export interface OrgActor extends Actor {
  orgId: string;
}
