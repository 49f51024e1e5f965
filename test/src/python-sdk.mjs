// The public Python client SDK (`roboto` from PyPI) that the SDK compatibility tests drive against
// the platform, in the cached virtualenvs scripts/install-python-sdk.sh fills: the pinned older
// release and the newest one, because both are in users' hands.
import path from "node:path";
import { ensureVenv, venvDir } from "./venvs.mjs";

/** The SDK releases the tests drive, keyed by what they stand for; keep in step with scripts/install-python-sdk.sh. */
export const ROBOTO_RELEASES = {
  pinned: { version: "0.53.0", variable: "HANGAR_ROBOTO_VENV", name: "roboto-venv", marker: ".hangar-roboto-0.53.0" },
  // With its `analytics` extra (the experimental topic reads decode with pyarrow).
  newest: { version: "0.62.0", variable: "HANGAR_ROBOTO_NEXT_VENV", name: "roboto-0.62-venv", marker: ".hangar-roboto-analytics-0.62.0" },
};

/**
 * The python of one SDK release's virtualenv (default the pinned one, `$HANGAR_ROBOTO_VENV` or
 * `<repo>/.cache/roboto-venv`; `"newest"` is `$HANGAR_ROBOTO_NEXT_VENV` or
 * `<repo>/.cache/roboto-0.62-venv`), installing the SDKs first when it is not there; throws saying
 * why when that fails.
 */
export function robotoPython(release = "pinned") {
  const { version, variable, name, marker } = ROBOTO_RELEASES[release];
  ensureVenv({ what: `the roboto SDK ${version}`, variable, name, marker, script: "install-python-sdk.sh" });
  return path.join(venvDir(variable, name), "bin", "python");
}
