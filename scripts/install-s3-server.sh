#!/usr/bin/env bash
# Installs the S3-compatible test server (moto, from PyPI) that the tests of the S3 object store run
# against, since these machines have no Docker. It goes into a cached virtualenv,
# `<repo>/.cache/moto-venv` (or $HANGAR_MOTO_VENV), and nothing is done when the pinned version is
# already there. Run by CI's install step: `bash scripts/install-s3-server.sh`. Needs python3 >= 3.9.
set -euo pipefail

MOTO_VERSION=5.2.5
repo="$(cd "$(dirname "$0")/.." && pwd)"
venv="${HANGAR_MOTO_VENV:-$repo/.cache/moto-venv}"
python="$venv/bin/python"
# The marker is written last, so an interrupted install is redone rather than trusted.
marker="$venv/.hangar-moto-$MOTO_VERSION"

if [[ -f "$marker" ]] && "$python" -c 'import moto.server' 2>/dev/null; then
  echo "install-s3-server: moto $MOTO_VERSION already in $venv"
  exit 0
fi

echo "install-s3-server: installing moto[server]==$MOTO_VERSION into $venv"
started=$SECONDS
rm -rf "$venv"
mkdir -p "$(dirname "$venv")"
python3 -m venv "$venv"
"$python" -m pip install --quiet --disable-pip-version-check --no-input "moto[server]==$MOTO_VERSION"
"$python" -c 'import moto.server'
touch "$marker"
echo "install-s3-server: done in $((SECONDS - started)) s"
