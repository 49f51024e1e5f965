# syntax=docker/dockerfile:1
#
# One image for every Hangar component; the command chooses which one runs:
#   node services/admin/dist/main.js      (also data, compute, assistant, registry: gRPC on RPC_PORT, 50051)
#   node gateway/dist/main.js             (HTTP JSON API on PORT, 8080)
#   node services/object-store/dist/main.js   (the S3-compatible object store, on OBJECT_STORE_PORT, 9000)
#   node runner/dist/main.js              (a runner: claims invocations from compute, runs them;
#                                          the `runner` target adds Python 3 and the roboto SDK for actions)
# Configuration comes from the environment (DATABASE_URL, KAFKA_BROKERS, INTERNAL_AUTH_SECRET, ...),
# see deploy/README.md.
#
#   docker build -t hangar:dev .
#   docker build --target runner -t hangar-runner:dev .
#   docker run --rm -e DATABASE_URL=... -e KAFKA_BROKERS=... -e INTERNAL_AUTH_SECRET=... \
#     hangar:dev node services/data/dist/main.js
#
# Needs BuildKit (the default builder since Docker 23) for the npm cache mounts.

ARG NODE_IMAGE=node:24-slim

# ---- build: every dependency (dev included), then the TypeScript build ----
FROM ${NODE_IMAGE} AS build
WORKDIR /src
# Manifests first, so the dependency layer is reused while only source changes.
COPY package.json package-lock.json ./
COPY services/shared/package.json services/shared/
COPY services/object-store/package.json services/object-store/
COPY services/admin/package.json services/admin/
COPY services/data/package.json services/data/
COPY services/compute/package.json services/compute/
COPY services/assistant/package.json services/assistant/
COPY services/registry/package.json services/registry/
COPY services/embedded/package.json services/embedded/
COPY gateway/package.json gateway/
COPY runner/package.json runner/
COPY ingest/package.json ingest/
COPY test/package.json test/
# `npm install` against the lockfile, as .ci/run does: npm 11 lockfiles written on our machines lack
# other platforms' optional packages, which `npm ci` rejects.
RUN --mount=type=cache,target=/root/.npm npm install --no-audit --no-fund
COPY tsconfig.base.json tsconfig.build.json ./
COPY services/ services/
COPY gateway/ gateway/
COPY runner/ runner/
# The build writes the gateway's OpenAPI document (gateway/dist/api/openapi.json) after tsc.
COPY scripts/openapi.mjs scripts/
COPY ingest/ ingest/
RUN npm run build

# ---- deps: production dependencies of the components that run in containers ----
# Only the five services, their shared library, the object store, the gateway and the runner: the embedded single-process mode
# (and its PostgreSQL binaries) and the test harness stay out of the image. No install scripts are
# needed by these dependencies, so none run.
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY services/shared/package.json services/shared/
COPY services/object-store/package.json services/object-store/
COPY services/admin/package.json services/admin/
COPY services/data/package.json services/data/
COPY services/compute/package.json services/compute/
COPY services/assistant/package.json services/assistant/
COPY services/registry/package.json services/registry/
COPY services/embedded/package.json services/embedded/
COPY gateway/package.json gateway/
COPY runner/package.json runner/
COPY ingest/package.json ingest/
COPY test/package.json test/
RUN --mount=type=cache,target=/root/.npm npm install --omit=dev --ignore-scripts --no-audit --no-fund \
      --workspace=services/shared --workspace=services/object-store --workspace=services/admin --workspace=services/data \
      --workspace=services/compute --workspace=services/assistant --workspace=services/registry \
      --workspace=gateway --workspace=runner --workspace=ingest

# ---- runtime: production files only, run as a non-root user ----
# V8's heap flags (--max-semi-space-size) are not set here: every entry point relaunches itself
# with them (services/shared/src/process/node-flags.ts), so `docker run ... node <entry point>`,
# the Kubernetes manifests and `npm start` all get the same ones; an option given here would win.
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    NODE_OPTIONS=--enable-source-maps \
    RPC_PORT=50051 \
    PORT=8080
WORKDIR /app
COPY --from=deps /app/package.json ./
COPY --from=deps /app/node_modules/ node_modules/
COPY --from=build /src/services/shared/package.json services/shared/
COPY --from=build /src/services/shared/dist/ services/shared/dist/
COPY --from=build /src/services/object-store/package.json services/object-store/
COPY --from=build /src/services/object-store/dist/ services/object-store/dist/
COPY --from=build /src/services/admin/package.json services/admin/
COPY --from=build /src/services/admin/dist/ services/admin/dist/
COPY --from=build /src/services/data/package.json services/data/
COPY --from=build /src/services/data/dist/ services/data/dist/
COPY --from=build /src/services/compute/package.json services/compute/
COPY --from=build /src/services/compute/dist/ services/compute/dist/
COPY --from=build /src/services/assistant/package.json services/assistant/
COPY --from=build /src/services/assistant/dist/ services/assistant/dist/
COPY --from=build /src/services/registry/package.json services/registry/
COPY --from=build /src/services/registry/dist/ services/registry/dist/
COPY --from=build /src/gateway/package.json gateway/
COPY --from=build /src/gateway/dist/ gateway/dist/
COPY --from=build /src/runner/package.json runner/
COPY --from=build /src/runner/dist/ runner/dist/
# The built-in MCAP ingestion action, which process runners run (node ingest/dist/action.js).
COPY --from=build /src/ingest/package.json ingest/
COPY --from=build /src/ingest/dist/ ingest/dist/
# The admin CLI (dependency-free), e.g. kubectl exec deploy/gateway -- node scripts/hangarctl.mjs whoami
COPY scripts/hangarctl.mjs scripts/
# The image's files stay owned by root and read-only to the process: it runs as the `node` user
# (uid 1000), numeric so that Kubernetes' runAsNonRoot can check it.
USER 1000:1000
EXPOSE 50051 8080 9000
CMD ["node", "gateway/dist/main.js"]

# ---- runner: the runtime plus what actions run as local processes need ----
# The process executor runs an action's command inside this container, so an action written for the
# client SDK's action runtime (`python3 -m ...` importing roboto.action_runtime) needs Python 3 and
# the `roboto` package here: Debian's python3, and roboto (pinned as scripts/install-python-sdk.sh
# pins it) in a virtualenv first on PATH. Container actions need a container runtime instead: see
# deploy/README.md, "Runners and actions". Built with `--target runner`.
FROM runtime AS runner
ARG ROBOTO_VERSION=0.53.0
USER root
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 python3-venv ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && python3 -m venv /opt/roboto \
 && /opt/roboto/bin/pip install --no-cache-dir --disable-pip-version-check "roboto==${ROBOTO_VERSION}" \
 && /opt/roboto/bin/python -c "import roboto.action_runtime"
ENV PATH=/opt/roboto/bin:$PATH
USER 1000:1000
CMD ["node", "runner/dist/main.js"]

# The default target stays the plain image every other component runs from.
FROM runtime
