#!/usr/bin/env bash
# Installs the public Python client SDK (`roboto`, from PyPI) that test/e2e/sdk-compat.e2e.ts drives
# against the platform, and whose action runtime the actions in that test use. It goes into a cached
# virtualenv, `<repo>/.cache/roboto-venv` (or $HANGAR_ROBOTO_VENV), and nothing is done when the
# pinned version is already there. Run by CI's install step: `bash scripts/install-python-sdk.sh`.
# Needs python3 >= 3.10.
set -euo pipefail

ROBOTO_VERSION=0.53.0
repo="$(cd "$(dirname "$0")/.." && pwd)"
source "$repo/scripts/lib/install-venv.sh"
install_venv "${HANGAR_ROBOTO_VENV:-$repo/.cache/roboto-venv}" roboto "$ROBOTO_VERSION" "roboto==$ROBOTO_VERSION" roboto.action_runtime
