#!/usr/bin/env bash
# Installs the S3-compatible test server (moto, from PyPI) that the tests of the S3 object store run
# against, since these machines have no Docker. It goes into a cached virtualenv,
# `<repo>/.cache/moto-venv` (or $HANGAR_MOTO_VENV), and nothing is done when the pinned version is
# already there. Run by CI's install step: `bash scripts/install-s3-server.sh`. Needs python3 >= 3.9.
set -euo pipefail

MOTO_VERSION=5.2.5
repo="$(cd "$(dirname "$0")/.." && pwd)"
source "$repo/scripts/lib/install-venv.sh"
install_venv "${HANGAR_MOTO_VENV:-$repo/.cache/moto-venv}" moto "$MOTO_VERSION" "moto[server]==$MOTO_VERSION" moto.server
