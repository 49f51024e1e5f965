import type { QueryNode } from "@hangar/shared";
import { startPeriodicTask, type PeriodicTask } from "@hangar/shared";
import { nextTick, ticksBetween } from "./cron-schedule";
import { dispatchQueue, dispatchRows, runDispatches, triggerRecordOf, type ClaimedFiring, type FiringDeps } from "./fire-triggers";
import { envelopeOf, idempotencyToken, type PlatformEvent } from "./platform-events";
import type { TriggerDispatchRecord, TriggerRecord } from "./records";
import type { NewDispatch, StaleDispatch } from "./repositories";
import { evaluateCondition, type TriggerNamespace } from "./trigger-namespace";
import { storedSource } from "./trigger-view";

/** The scheduler's settings; unset ones take the defaults. */
export interface SchedulerSettings {
  /** What time it is (default the system clock); tests move it forward instead of sleeping. */
  clock: () => Date;
  /** How often a replica looks for due ticks (default 1000 ms). */
  intervalMs: number;
  /** Triggers one transaction claims (default 1000); a pass repeats while batches come back full. */
  batch: number;
  /**
   * The catch-up bound: after an outage, ticks due within this long before now still fire (default
   * one hour, at most CATCH_UP_TICKS per trigger); older ones are skipped.
   */
  catchUpMs: number;
  /**
   * The dispatch lease (default five minutes): a dispatch still `claimed` this long after its claim
   * was left by a replica that died between claim and run, and is claimed again and run. Longer
   * than any dispatch takes (a Slack post gives up after three 5 s attempts), so a live one is never
   * taken over; a target that had run before the crash may then run twice (Slack; an action target
   * is idempotent by its slot).
   */
  leaseMs: number;
}

/** The most missed ticks of one trigger a pass catches up. */
export const CATCH_UP_TICKS = 60;

/** The defaults of SchedulerSettings, over which `partial` is laid. */
export function schedulerSettings(partial: Partial<SchedulerSettings> = {}): SchedulerSettings {
  return { clock: () => new Date(), intervalMs: 1000, batch: 1000, catchUpMs: 3_600_000, leaseMs: 300_000, ...partial };
}

/** The first tick after `now` of a v2 schedule trigger that is enabled; null for any other trigger. */
export function firstFireAt(trigger: Pick<TriggerRecord, "engine" | "enabled" | "firesOn">, now: Date): Date | null {
  if (trigger.engine !== "v2" || !trigger.enabled || trigger.firesOn?.type !== "schedule") return null;
  const source = storedSource(trigger as TriggerRecord);
  return source.type === "schedule" ? (nextTick(source.schedule, now) ?? null) : null;
}

/**
 * One scheduler pass: claims due triggers under SKIP LOCKED row locks (so replicas split them),
 * and in the same transaction records a dispatch per due tick and target (unique per trigger, tick
 * and target: a tick fires once even if two replicas raced or one crashed mid-way) and moves each
 * trigger's next tick past now; batches repeat while they come back full. The claimed dispatches
 * then run. Returns how many were claimed.
 */
export async function scheduleOnce(deps: FiringDeps, settings: SchedulerSettings): Promise<number> {
  const claimed: ClaimedFiring[] = [];
  for (;;) {
    const now = settings.clock();
    const { planned, claimedBy, due } = await deps.uow.transaction(async ({ triggerModel }) => {
      const locked = await triggerModel.lockDue(now, settings.batch);
      const planned = locked.map((trigger) => planTicks(trigger, now, settings));
      await triggerModel.setNextFire(planned.map((p) => ({ triggerId: p.trigger.triggerId, nextFireAt: p.next })));
      const claimedBy = new Map<string, TriggerDispatchRecord[]>();
      for (const d of await triggerModel.claim(planned.flatMap((p) => p.rows))) claimedBy.set(d.triggerId, [...(claimedBy.get(d.triggerId) ?? []), d]);
      return { due: locked.length, planned, claimedBy };
    });
    // The namespaces the targets render from are built after the commit, outside the row locks.
    for (const p of planned) {
      const dispatches = claimedBy.get(p.trigger.triggerId);
      if (dispatches && p.lastTick) claimed.push({ trigger: p.trigger, namespace: p.namespace ?? scheduleNamespace(p.trigger, scheduleEvent(p.trigger, p.lastTick), p.cron, p.lastTick), claimed: dispatches });
    }
    // Every due tick is claimed before any target runs: claiming is what "fired" means, and running
    // targets (posts, invocations) while claiming would delay the last claims by seconds.
    if (due < settings.batch) break;
  }
  const queue = dispatchQueue(deps, DISPATCH_CONCURRENCY);
  queue.push(claimed);
  return (await queue.drain()).length;
}

/** Dispatches one replica runs at once (Slack posts, invocations). */
const DISPATCH_CONCURRENCY = 64;

/**
 * A due trigger's plan: the dispatch rows of its due ticks, its next tick, and what its targets
 * render from: the last due tick's namespace, built here only when a condition needed it (the
 * claim transaction holds the row locks, so per-tick work is kept out of it).
 */
interface TickPlan {
  trigger: TriggerRecord;
  next: Date | null;
  rows: NewDispatch[];
  cron: string;
  lastTick: Date | undefined;
  namespace: TriggerNamespace | undefined;
}

function planTicks(trigger: TriggerRecord, now: Date, settings: SchedulerSettings): TickPlan {
  const source = storedSource(trigger);
  if (source.type !== "schedule") return { trigger, next: null, rows: [], cron: "", lastTick: undefined, namespace: undefined };
  const from = new Date(Math.max(trigger.nextFireAt!.getTime(), now.getTime() - settings.catchUpMs));
  const rows: NewDispatch[] = [];
  const { ticks, next } = ticksBetween(source.schedule, from, now, CATCH_UP_TICKS);
  let namespace: TriggerNamespace | undefined;
  for (const tick of ticks) {
    const event = scheduleEvent(trigger, tick);
    if (trigger.condition !== null) {
      namespace = scheduleNamespace(trigger, event, source.cron, tick);
      if (!evaluateCondition(trigger.condition as unknown as QueryNode, namespace)) continue;
    }
    rows.push(...dispatchRows(trigger, event, idempotencyToken(event, "occurrence")!, trigger.targets ?? [], now));
  }
  return { trigger, next: next ?? null, rows, cron: source.cron, lastTick: ticks.at(-1), namespace };
}

/** The `schedule.fired` event of one tick; its id names the trigger and the minute, so it is the same on every replica. */
export function scheduleEvent(trigger: TriggerRecord, tick: Date): PlatformEvent {
  return { id: `${trigger.triggerId}@${tick.toISOString()}`, type: "schedule.fired", time: tick, orgId: trigger.orgId, data: { trigger_id: trigger.triggerId, scheduled_for: tick.toISOString() } };
}

/** The namespace of a tick: `schedule` (scheduled_for, cron), `envelope` and `trigger`. */
export function scheduleNamespace(trigger: TriggerRecord, event: PlatformEvent, cron: string, tick: Date): TriggerNamespace {
  return {
    records: { schedule: { scheduled_for: tick.toISOString(), cron }, envelope: envelopeOf(event), trigger: triggerRecordOf(trigger) },
    defaultRoot: "schedule",
  };
}

/**
 * Takes over dispatches whose claim outlived the lease (see `SchedulerSettings.leaseMs`) and runs
 * them, a batch a pass: an event's with the namespace stored at its claim, a tick's with the one
 * its event id rebuilds. Returns how many ran.
 */
export async function retryStaleDispatches(deps: FiringDeps, settings: SchedulerSettings): Promise<number> {
  const now = settings.clock();
  const { triggerModel } = deps.uow.repositories();
  const stale = await triggerModel.reclaimStale(new Date(now.getTime() - settings.leaseMs), now, settings.batch);
  if (stale.length === 0) return 0;
  const triggers = new Map((await triggerModel.byIds([...new Set(stale.map((s) => s.dispatch.triggerId))])).map((t) => [t.triggerId, t]));
  const firings = stale.flatMap((s): ClaimedFiring[] => {
    const trigger = triggers.get(s.dispatch.triggerId);
    return trigger ? [{ trigger, namespace: s.namespace ?? tickNamespace(trigger, s), claimed: [s.dispatch] }] : [];
  });
  deps.logger.warn({ dispatches: firings.length }, "retrying trigger dispatches left claimed past their lease");
  return (await runDispatches(deps, firings)).length;
}

/** A schedule tick's namespace, from its event id (`<trigger id>@<tick>`, see scheduleEvent). */
function tickNamespace(trigger: TriggerRecord, { dispatch }: StaleDispatch): TriggerNamespace {
  const tick = new Date(dispatch.eventId.slice(dispatch.eventId.lastIndexOf("@") + 1));
  const source = storedSource(trigger);
  return scheduleNamespace(trigger, scheduleEvent(trigger, tick), source.type === "schedule" ? source.cron : "", tick);
}

/** Runs scheduler passes every `intervalMs` until stopped, each also retrying stale claims; a failed pass is logged and the loop goes on. */
export function startTriggerScheduler(deps: FiringDeps, settings: SchedulerSettings): PeriodicTask {
  const run = async () => (await scheduleOnce(deps, settings)) + (await retryStaleDispatches(deps, settings));
  return startPeriodicTask({ name: "trigger scheduler", intervalMs: settings.intervalMs, run, logger: deps.logger });
}
