// The public Python client SDK (`roboto` from PyPI) that the SDK compatibility tests drive against
// the platform, in the cached virtualenv scripts/install-python-sdk.sh fills.
import path from "node:path";
import { ensureVenv, venvDir } from "./venvs.mjs";

const ROBOTO_VERSION = "0.53.0"; // keep in step with scripts/install-python-sdk.sh

/**
 * The python of the SDK's virtualenv (`$HANGAR_ROBOTO_VENV` or `<repo>/.cache/roboto-venv`),
 * installing the pinned SDK first when it is not there; throws saying why when that fails.
 */
export function robotoPython() {
  ensureVenv({ what: "the roboto SDK", variable: "HANGAR_ROBOTO_VENV", name: "roboto-venv", marker: `.hangar-roboto-${ROBOTO_VERSION}`, script: "install-python-sdk.sh" });
  return path.join(venvDir("HANGAR_ROBOTO_VENV", "roboto-venv"), "bin", "python");
}
