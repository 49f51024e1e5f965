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

# Without Go, the Go toolchain itself, from the module proxy (the module the go command fetches when
# it switches toolchains), checked against the digest recorded here.
GO_TOOLCHAIN=golang.org/toolchain@v0.0.1-go1.26.8.linux-amd64
GO_TOOLCHAIN_SHA256=30c2b1bf7dcc88d3eb0a1364e47ddd9128edb3110a30e8a0ef61cd5856b31de7
if ! command -v go >/dev/null; then
  [ "$(uname -sm)" = "Linux x86_64" ] || { echo "conformance: install Go (1.21 or later) to run the suite here"; exit 1; }
  if [ ! -x "$ROOT/.cache/$GO_TOOLCHAIN/bin/go" ]; then
    echo "conformance: installing Go 1.26.8 into .cache/"
    zip=$(mktemp)
    curl -sSfL -o "$zip" "https://proxy.golang.org/${GO_TOOLCHAIN%@*}/@v/${GO_TOOLCHAIN#*@}.zip"
    echo "$GO_TOOLCHAIN_SHA256  $zip" | sha256sum -c --quiet
    unzip -q -o "$zip" -d "$ROOT/.cache" && rm -f "$zip"
  fi
  export PATH=$ROOT/.cache/$GO_TOOLCHAIN/bin:$PATH GOTOOLCHAIN=local
fi

if [ ! -x "$RUNNER" ]; then
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
  if "$RUNNER" --mode server --max-servers 1 --conf "test/conformance/$config" --known-flaky @test/conformance/known-flaky.txt \
    -- "$ROOT/node_modules/.bin/node" "$ROOT/test/conformance/dist/server.js" "--unary-fast-path=$fastPath" >"$log" 2>&1; then
    local passed total flaky
    passed=$(grep -oE '^[0-9]+ passed' "$log" | grep -oE '[0-9]+')
    total=$(grep -E '^Total cases' "$log" | grep -oE '[0-9]+')
    flaky=$(grep -oE 'Another [0-9]+ failed as expected' "$log" | grep -oE '[0-9]+' || echo 0)
    echo "conformance, $name: $passed of $total cases passed ($flaky known-flaky cases failed)"
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
