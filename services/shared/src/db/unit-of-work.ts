import type { EntityManager, Orm } from "./database";

/**
 * How a service's use cases reach their repositories without knowing the ORM: `domain/` declares
 * the repository interfaces `R` it needs, `store/` implements them over an entity manager, and the
 * service's `index.ts` builds one `UnitOfWork<R>` and hands it to `rpc/`. Each call gets fresh
 * repositories (an identity map per request, never shared between requests).
 */
export interface UnitOfWork<R> {
  /** Repositories for one request outside a transaction: reads, and single writes that flush themselves. */
  repositories(): R;
  /**
   * Runs `work` in one database transaction with repositories bound to it: it commits when `work`
   * resolves (after flushing what the repositories queued) and rolls back when it throws.
   */
  transaction<T>(work: (repositories: R) => Promise<T>): Promise<T>;
}

/**
 * The `UnitOfWork` of a MikroORM database: `bind` builds the repositories over one entity manager.
 * Outside a transaction that manager is forked on first use (`lazyFork`), so a request whose
 * repositories only run prepared reads never builds one.
 */
export function ormUnitOfWork<R>(orm: Orm, bind: (em: EntityManager) => R): UnitOfWork<R> {
  // Bound once: every request's unforked manager hands out the root's connection.
  const rootConnection = orm.em.getConnection.bind(orm.em);
  return {
    repositories: () => bind(lazyFork(orm, rootConnection)),
    transaction: (work) => orm.em.fork().transactional((em) => work(bind(em))),
  };
}

/**
 * An entity manager that forks the ORM's on the first use of anything but `getConnection` (the
 * driver's connection, the same for every fork, which is all `queryPrepared` needs) and
 * `isInTransaction` (what `readRows` asks first). A fork
 * allocates an identity map, a unit of work, a loader, a factory and a validator: measured on
 * get_dataset, 20-30 µs of CPU per request with its garbage collection, of about 250.
 * `rootConnection` is the root manager's `getConnection`, bound once by the caller.
 */
export function lazyFork(orm: Orm, rootConnection: EntityManager["getConnection"]): EntityManager {
  let forked: EntityManager | undefined;
  let methods: Map<PropertyKey, unknown> | undefined;
  return new Proxy(orm.em, {
    get(root, key) {
      if (key === "getConnection" && !forked) return rootConnection;
      // A fork never joins a transaction (it is forked without the context's), so the answer needs none.
      if (key === "isInTransaction" && !forked) return notInTransaction;
      forked ??= root.fork();
      const value: unknown = Reflect.get(forked, key, forked);
      if (typeof value !== "function") return value;
      // Bound once per method, so the ORM's own `this` is the fork, never this proxy.
      methods ??= new Map();
      let bound = methods.get(key);
      if (!bound) methods.set(key, (bound = (value as (...args: unknown[]) => unknown).bind(forked)));
      return bound;
    },
    set: (_root, key, value) => Reflect.set((forked ??= orm.em.fork()), key, value),
  });
}

const BOUND_TO = Symbol("entity manager");

/**
 * A service's repositories over one entity manager, each made by its factory the first time it is
 * read (`self`: the others, for a repository built on another): a request reads one or two of a
 * service's repositories, and building all of them per request was the largest allocation of the
 * data service's own code on get_dataset (25 stores, about 1.2 KB a request).
 */
export function lazyRepositories<R extends object>(factories: { [K in keyof R]: (em: EntityManager, self: R) => R[K] }): (em: EntityManager) => R {
  class Repositories {
    readonly [BOUND_TO]: EntityManager;
    constructor(em: EntityManager) {
      this[BOUND_TO] = em;
    }
  }
  for (const [name, make] of Object.entries(factories) as [string, (em: EntityManager, self: R) => unknown][]) {
    Object.defineProperty(Repositories.prototype, name, {
      get(this: Repositories) {
        const value = make(this[BOUND_TO], this as unknown as R);
        // An own data property from now on: later reads of this request find it without the getter.
        Object.defineProperty(this, name, { value, writable: true, enumerable: true, configurable: true });
        return value;
      },
    });
  }
  return (em) => new Repositories(em) as unknown as R;
}

function notInTransaction(): boolean {
  return false;
}

/**
 * A `UnitOfWork` over fixed repositories, for unit specs of use cases with in-memory fakes: a
 * transaction runs `work` on the same repositories and rolls nothing back (the fakes test rules,
 * the end-to-end suites test persistence).
 */
export function fixedUnitOfWork<R>(repositories: R): UnitOfWork<R> {
  return { repositories: () => repositories, transaction: (work) => work(repositories) };
}

/**
 * For unit specs: a `UnitOfWork` over plain in-memory `state`, whose transaction restores the state
 * as it was when the work throws (a rollback), so a spec sees what an all-or-nothing rule leaves.
 */
export function snapshotUnitOfWork<S extends object, R>(state: S, bind: (state: S) => R): UnitOfWork<R> {
  const repositories = () => bind(state);
  return {
    repositories,
    async transaction(work) {
      const before = structuredClone(state);
      try {
        return await work(repositories());
      } catch (error) {
        Object.assign(state, before);
        throw error;
      }
    },
  };
}
