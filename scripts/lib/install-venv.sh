# Sourced by the scripts/install-*.sh that put one pinned PyPI package into a cached virtualenv:
# `install_venv <venv> <name> <version> <requirements> <modules>` installs <requirements> (one or
# more, space-separated) into <venv> and checks that <modules> (comma-separated) import; nothing is done when that version is already there. The tests
# look for the marker `<venv>/.hangar-<name>-<version>`. Needs python3 on PATH.
install_venv() {
  local venv="$1" name="$2" version="$3" requirement="$4" module="$5"
  local python="$venv/bin/python" tag started
  tag="$(basename "$0" .sh)"
  # The marker is written last, so an interrupted install is redone rather than trusted.
  local marker="$venv/.hangar-$name-$version"

  if [[ -f "$marker" ]] && "$python" -c "import $module" 2>/dev/null; then
    echo "$tag: $name $version already in $venv"
    return 0
  fi

  echo "$tag: installing $requirement into $venv"
  started=$SECONDS
  rm -rf "$venv"
  mkdir -p "$(dirname "$venv")"
  python3 -m venv "$venv"
  local -a requirements
  read -ra requirements <<<"$requirement"
  "$python" -m pip install --quiet --disable-pip-version-check --no-input "${requirements[@]}"
  "$python" -c "import $module"
  touch "$marker"
  echo "$tag: done in $((SECONDS - started)) s"
}
