import type { Workspace } from "../workspace";
import { processExecutor } from "./process-executor";
import type { ActionSpec } from "./executor";

const workspace = { root: "/work/iv_1" } as Workspace;
const hostEnv = { PATH: "/usr/bin", LANG: "C.UTF-8", INTERNAL_AUTH_SECRET: "never shown", HOME: "/root" };

function spec(overrides: Partial<ActionSpec> = {}): ActionSpec {
  return { invocationId: "iv_1", entryPoint: [], command: ["node", "main.js"], env: { ROBOTO_INVOCATION_ID: "iv_1" }, workspace, ...overrides };
}

describe("processExecutor", () => {
  const executor = processExecutor(hostEnv);

  it("runs entry point then command, without a shell, in the workspace, with only PATH and locale of the runner's variables", () => {
    expect(executor.plan(spec({ entryPoint: ["python", "-u"], command: ["main.py"] }))).toEqual({
      argv: ["python", "-u", "main.py"],
      cwd: "/work/iv_1",
      env: { PATH: "/usr/bin", LANG: "C.UTF-8", HOME: "/work/iv_1", ROBOTO_INVOCATION_ID: "iv_1" },
    });
  });

  it("runs in the workdir below the workspace", () => {
    expect(executor.plan(spec({ workdir: "src/app" })).cwd).toBe("/work/iv_1/src/app");
    expect(() => executor.plan(spec({ workdir: "../elsewhere" }))).toThrow("path '../elsewhere' leaves /work/iv_1");
  });

  it("refuses an action with nothing to run", () => {
    expect(() => executor.plan(spec({ command: [] }))).toThrow("no command to run");
  });
});
