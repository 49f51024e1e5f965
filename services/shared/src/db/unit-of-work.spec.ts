import type { EntityManager } from "./database";
import { lazyRepositories } from "./unit-of-work";

interface Counter {
  em: EntityManager;
  serial: number;
}

interface Repositories {
  first: Counter;
  second: Counter;
  /** Built on `first`, as the data service's tree store is built on its file store. */
  onFirst: { first: Counter };
}

/** Stands in for an entity manager: the factories only pass it on. */
const managerNamed = (name: string) => ({ name }) as unknown as EntityManager;

describe("lazyRepositories", () => {
  let made: string[];
  let bind: (em: EntityManager) => Repositories;
  beforeEach(() => {
    made = [];
    let serial = 0;
    bind = lazyRepositories<Repositories>({
      first: (em) => (made.push("first"), { em, serial: ++serial }),
      second: (em) => (made.push("second"), { em, serial: ++serial }),
      onFirst: (_em, self) => (made.push("onFirst"), { first: self.first }),
    });
  });

  it("makes no repository until one is read, and only the one read", () => {
    const repositories = bind(managerNamed("a"));
    expect(made).toEqual([]);
    void repositories.second;
    expect(made).toEqual(["second"]);
  });

  it("makes each repository once per binding and hands out the same one after", () => {
    const repositories = bind(managerNamed("a"));
    const first = repositories.first;
    expect(repositories.first).toBe(first);
    expect(made).toEqual(["first"]);
  });

  it("binds every repository to its binding's entity manager, and bindings share nothing", () => {
    const a = managerNamed("a");
    const b = managerNamed("b");
    const onA = bind(a);
    const onB = bind(b);
    expect(onA.first.em).toBe(a);
    expect(onB.first.em).toBe(b);
    expect(onA.first).not.toBe(onB.first);
    expect(made).toEqual(["first", "first"]);
  });

  it("lets a factory build on another repository of the same binding", () => {
    const repositories = bind(managerNamed("a"));
    expect(repositories.onFirst.first).toBe(repositories.first);
    expect(made).toEqual(["onFirst", "first"]);
  });
});
