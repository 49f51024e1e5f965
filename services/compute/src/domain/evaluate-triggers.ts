import type { Logger, UnitOfWork, UserDirectory } from "@hangar/shared";
import { createInvocation } from "./invoke";
import type { TriggerRepositories } from "./repositories";
import {
  failureDetail,
  isPermanentFailure,
  occasionKey,
  outcomeOf,
  planEvaluation,
  type EvaluatedTrigger,
  type EvaluationOccasion,
  type EvaluationSources,
  type TriggerDataQueries,
} from "./trigger-evaluation";

/** Where evaluations read from: the data service's answers in an org, and the users runs-as checks are about. */
export interface EvaluationReaders {
  dataFor: (orgId: string) => TriggerDataQueries;
  users: UserDirectory;
}

/**
 * Evaluates the org's triggers that react to an occasion's cause. Each trigger's evaluation
 * commits on its own, so that a failed one keeps its `failed` record and does not undo the others.
 * When the data service or the database is out, the evaluation fails and, once every trigger was
 * tried, the first such error is thrown so the event is retried: the retry skips evaluations
 * already made, and the idempotency ids of the invocations keep each firing single. A refusal (a
 * condition the data service rejects, a deleted action) only fails that evaluation.
 */
export async function evaluateOccasion(uow: UnitOfWork<TriggerRepositories>, occasion: EvaluationOccasion, readers: EvaluationReaders, logger: Logger): Promise<void> {
  const triggers = await uow.repositories().triggers.reactingTo(occasion.orgId, occasion.cause);
  if (triggers.length === 0) return;
  const sources = { data: readers.dataFor(occasion.orgId), users: readers.users };
  let outage: unknown;
  for (const trigger of triggers) {
    try {
      await evaluateTrigger(uow, trigger, occasion, sources, logger);
    } catch (error) {
      outage ??= error;
    }
  }
  if (outage !== undefined) throw outage;
}

async function evaluateTrigger(
  uow: UnitOfWork<TriggerRepositories>,
  trigger: EvaluatedTrigger,
  occasion: EvaluationOccasion,
  sources: Omit<EvaluationSources, "invoked">,
  logger: Logger,
): Promise<void> {
  const { triggers, invocations } = uow.repositories();
  const evaluationId = await triggers.beginEvaluation(trigger.triggerId, occasion);
  if (evaluationId === undefined) return;
  try {
    const plan = await planEvaluation(trigger, occasion, { ...sources, invoked: (ids) => invocations.invokedIdempotencyIds(trigger.orgId, ids) });
    await uow.transaction(async (repositories) => {
      let created = 0;
      if ("invoke" in plan) {
        for (const request of plan.invoke) if ((await createInvocation(repositories, request)).created) created++;
      }
      await repositories.triggers.finishEvaluation(evaluationId, outcomeOf(plan, created));
    });
  } catch (error) {
    const detail = failureDetail(error);
    logger.warn({ triggerId: trigger.triggerId, occasion: occasionKey(occasion), detail }, "trigger evaluation failed");
    await triggers.failEvaluation(evaluationId, detail);
    if (!isPermanentFailure(error)) throw error;
  }
}
