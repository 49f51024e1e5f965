#!/usr/bin/env bash
# Installs the public Python client SDK (`roboto`, from PyPI) that test/e2e/sdk-compat.e2e.ts drives
# against the platform, and whose action runtime the actions in that test use, in two releases: the
# pinned older one (0.53.0, `<repo>/.cache/roboto-venv` or $HANGAR_ROBOTO_VENV) and the newest (0.62.0,
# `<repo>/.cache/roboto-0.62-venv` or $HANGAR_ROBOTO_NEXT_VENV), because users install the newest and
# older clients stay in the field. Each goes into a cached virtualenv together with the ROS 2 MCAP
# writer (`mcap-ros2-support`; `mcap` comes with roboto) the robot-data tests record logs with, and pandas
# (`Topic.get_data_as_df`). The newest comes with its `analytics` extra (`roboto[analytics]`, the
# extra its metadata names for the experimental topic reads: `roboto.experimental.topics.Topic.get_data`
# decodes the read plan's files with pyarrow, whose version is pinned here within the extra's
# `pyarrow>=20.0.0`; the rest of the extra comes at the SDK's own bounds), and its marker says so
# (`.hangar-roboto-analytics-0.62.0`), so a virtualenv installed before without it is installed
# again. Nothing is done when the pinned version is already there. Run by CI's install step: `bash scripts/install-python-sdk.sh`.
# Needs python3 >= 3.10.
set -euo pipefail

ROBOTO_VERSION=0.53.0
ROBOTO_NEXT_VERSION=0.62.0
MCAP_ROS2_VERSION=0.6.0
PANDAS_VERSION=2.2.3
PYARROW_VERSION=26.0.1
repo="$(cd "$(dirname "$0")/.." && pwd)"
source "$repo/scripts/lib/install-venv.sh"
install_venv "${HANGAR_ROBOTO_VENV:-$repo/.cache/roboto-venv}" roboto "$ROBOTO_VERSION" "roboto==$ROBOTO_VERSION mcap-ros2-support==$MCAP_ROS2_VERSION pandas==$PANDAS_VERSION" "roboto.action_runtime, mcap.writer, mcap_ros2.writer, pandas"
install_venv "${HANGAR_ROBOTO_NEXT_VENV:-$repo/.cache/roboto-0.62-venv}" roboto-analytics "$ROBOTO_NEXT_VERSION" "roboto[analytics]==$ROBOTO_NEXT_VERSION mcap-ros2-support==$MCAP_ROS2_VERSION pandas==$PANDAS_VERSION pyarrow==$PYARROW_VERSION" "roboto.action_runtime, mcap.writer, mcap_ros2.writer, pandas, pyarrow, mcap_codec"
