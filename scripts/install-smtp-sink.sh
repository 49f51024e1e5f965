#!/usr/bin/env bash
# Installs the SMTP server the tests of notification emails send to (aiosmtpd, from PyPI; the test
# harness runs it as a sink that keeps every message it receives, test/src/smtp.mjs), since these
# machines run no mail server. It goes into a cached virtualenv, `<repo>/.cache/smtp-sink-venv` (or
# $HANGAR_SMTP_SINK_VENV), and nothing is done when the pinned version is already there. Run by
# CI's install step: `bash scripts/install-smtp-sink.sh`. Needs python3 >= 3.8.
set -euo pipefail

AIOSMTPD_VERSION=1.4.6
repo="$(cd "$(dirname "$0")/.." && pwd)"
source "$repo/scripts/lib/install-venv.sh"
install_venv "${HANGAR_SMTP_SINK_VENV:-$repo/.cache/smtp-sink-venv}" aiosmtpd "$AIOSMTPD_VERSION" "aiosmtpd==$AIOSMTPD_VERSION" aiosmtpd.controller
