#!/usr/bin/env bash
# Renders the Kubernetes manifests (deploy/base and every deploy/overlays/*) with kustomize and
# validates every resource strictly (unknown fields are errors) against the Kubernetes API schemas
# bundled in the PyPI package kubernetes-validate, offline. Both tools are pinned and cached under
# <repo>/.cache: kustomize built from its Go module through the Go module proxy (needs go), and
# kubernetes-validate in a virtualenv (needs python3 >= 3.9). Run by CI: `bash scripts/validate-manifests.sh`.
set -euo pipefail

KUSTOMIZE_VERSION=v5.7.1
KUBERNETES_VALIDATE_VERSION=1.37.0
# The Kubernetes release the manifests must be valid for (native gRPC probes are GA since 1.27).
KUBERNETES_VERSION=1.37.0

repo="$(cd "$(dirname "$0")/.." && pwd)"
source "$repo/scripts/lib/install-venv.sh"

kustomize_dir="$repo/.cache/kustomize-$KUSTOMIZE_VERSION"
kustomize="$kustomize_dir/kustomize"
if [[ ! -x "$kustomize" ]]; then
  echo "validate-manifests: building kustomize $KUSTOMIZE_VERSION into $kustomize_dir"
  GOBIN="$kustomize_dir" go install "sigs.k8s.io/kustomize/kustomize/v5@$KUSTOMIZE_VERSION"
fi

venv="${HANGAR_KUBERNETES_VALIDATE_VENV:-$repo/.cache/kubernetes-validate-venv}"
install_venv "$venv" kubernetes-validate "$KUBERNETES_VALIDATE_VERSION" \
  "kubernetes-validate==$KUBERNETES_VALIDATE_VERSION" kubernetes_validate

rendered="$(mktemp -d)"
trap 'rm -rf "$rendered"' EXIT
for dir in "$repo/deploy/base" "$repo"/deploy/overlays/*/; do
  name="$(basename "$dir")"
  "$kustomize" build "$dir" > "$rendered/$name.yaml"
  # --quiet: only failures and warnings; a failure exits non-zero.
  "$venv/bin/kubernetes-validate" --strict --quiet -k "$KUBERNETES_VERSION" "$rendered/$name.yaml"
  echo "validate-manifests: $name: $(grep -c '^kind:' "$rendered/$name.yaml") resources valid"
done
