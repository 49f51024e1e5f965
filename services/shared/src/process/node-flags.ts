/**
 * The V8 flags every Hangar process runs with, defined once here. Each entry point (`npm start`'s
 * services/embedded/dist/main.js, the gateway, the five services, the runner, the object store)
 * imports `@hangar/shared/node-flags` first, which relaunches the process with these flags when
 * they are missing, so `npm start`, the Docker image, the Kubernetes manifests, the benchmarks and
 * anything else that runs `node <entry point>` get them without repeating them.
 *
 * Why a relaunch: V8 sizes its heap when the isolate is created, so `v8.setFlagsFromString` in a
 * running process no longer changes it (measured: the new space still grew to 128 MiB). NODE_OPTIONS
 * would have to be set by every launcher (npm script, Dockerfile, each manifest, each benchmark);
 * `process.execve` replaces the process image in place instead: same pid, same stdio, no second
 * process, about one Node start-up (tens of ms) more.
 *
 * `--max-semi-space-size=16` (MiB): under load V8 grew the young generation (its new space) from
 * 64 MiB committed at start to 128 MiB, Node 24's ceiling, and never gave it back, so an idle
 * platform kept memory it no longer used (README "Benchmarks > Compute": RSS 188 MiB idle, 539 MiB
 * a minute after the load). With 16 the new space stays at most 32 MiB; the value was chosen by
 * measurement against 8, 32 and V8's 64 (README "Benchmarks > Compute").
 */
export const PLATFORM_NODE_FLAGS: readonly string[] = ["--max-semi-space-size=16"];

/**
 * The platform flags whose option neither the command line (`execArgv`) nor NODE_OPTIONS chooses
 * already: an operator's own `--max-semi-space-size=64` wins over ours.
 */
export function missingPlatformFlags(execArgv: readonly string[], nodeOptions: string): string[] {
  const given = [...execArgv, ...nodeOptions.split(/\s+/)].map(optionName);
  return PLATFORM_NODE_FLAGS.filter((flag) => !given.includes(optionName(flag)));
}

/** `--max_semi_space_size=8` -> `--max-semi-space-size`: V8 takes either spelling. */
function optionName(arg: string): string {
  return arg.split("=")[0]!.replaceAll("_", "-");
}

/**
 * Replaces this process with the same command plus the missing platform flags. Returns only when
 * nothing is missing, or where `process.execve` does not exist (Windows; the process then runs on
 * V8's defaults, with the memory that costs).
 */
export function relaunchWithPlatformFlags(): void {
  const missing = missingPlatformFlags(process.execArgv, process.env.NODE_OPTIONS ?? "");
  if (missing.length === 0 || !process.execve) return;
  process.execve(process.execPath, [process.execPath, ...missing, ...process.execArgv, ...process.argv.slice(1)], process.env);
}
