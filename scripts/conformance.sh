#!/usr/bin/env bash
# The Connect conformance suite against the services' RPC server (test/conformance/README.md):
# installs the pinned runner with Go into .cache/, checks the vendored protos and their generated
# code, builds the server under test, and runs the suite with the unary fast path on (gRPC) and
# off (Connect, gRPC and gRPC-Web). Prints the pass counts; fails when any case fails.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

VERSION=v1.0.7
RUNNER=$ROOT/.cache/conformance/$VERSION/connectconformance
# Go's module and build caches stay in .cache/ too (the module cache writable, so that `rm -rf .cache`
# works); an older Go fetches the toolchain the module asks for (1.26) from the module proxy.
export GOPATH=$ROOT/.cache/go GOCACHE=$ROOT/.cache/go/build GOFLAGS=-modcacherw GOTOOLCHAIN=auto

if [ ! -x "$RUNNER" ]; then
  command -v go >/dev/null || { echo "conformance: Go (1.21 or later) is needed to install the runner: https://go.dev/dl/"; exit 1; }
  echo "conformance: installing connectconformance $VERSION (a few minutes the first time)"
  GOBIN=$(dirname "$RUNNER") go install "connectrpc.com/conformance/cmd/connectconformance@$VERSION"
fi

# The vendored protos are the pinned version's, and the committed code is what they generate.
go mod download "connectrpc.com/conformance@$VERSION"
diff -r "$GOPATH/pkg/mod/connectrpc.com/conformance@$VERSION/proto/connectrpc" third_party/proto/connectrpc \
  || { echo "conformance: third_party/proto/connectrpc differs from connectrpc.com/conformance@$VERSION"; exit 1; }
npx buf generate --template test/conformance/buf.gen.yaml
if [ -n "$(git status --porcelain -- test/conformance/src/gen)" ]; then
  echo "conformance: test/conformance/src/gen is stale: run npx buf generate --template test/conformance/buf.gen.yaml"
  exit 1
fi

npm run build
npx tsc -p test/conformance

# Loading the shared library takes seconds on a busy machine and the runner gives a server 10 s to
# start, so servers start one at a time; the compile cache makes the later start-ups cheaper.
export NODE_COMPILE_CACHE=$ROOT/.cache/node-compile-cache
run() {
  local name=$1 config=$2 fastPath=$3 log
  log=$(mktemp)
  if "$RUNNER" --mode server --max-servers 1 --conf "test/conformance/$config" \
    -- "$ROOT/node_modules/.bin/node" "$ROOT/test/conformance/dist/server.js" "--unary-fast-path=$fastPath" >"$log" 2>&1; then
    echo "conformance, $name: $(grep -oE '^[0-9]+ passed' "$log" | grep -oE '[0-9]+') of $(grep -E '^Total cases' "$log" | grep -oE '[0-9]+') cases passed"
    rm -f "$log"
  else
    cat "$log"
    echo "conformance, $name: FAILED (output above)"
    rm -f "$log"
    return 1
  fi
}
status=0
run "unary fast path (gRPC)" fast-path.yaml on || status=1
run "Connect path (Connect, gRPC, gRPC-Web)" connect-path.yaml off || status=1
exit $status
