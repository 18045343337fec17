#!/usr/bin/env bash
# Build and check the desktop bundle and the Linux installers (a CI job of its own, ~5 min):
#   1. dist/harnessdesk/ with PyInstaller (packaging/build.py), then its self-test
#   2. dist/harnessdesk_VERSION_ARCH.deb and dist/harnessdesk-VERSION-linux-ARCH.tar.gz
#   3. as root (or with sudo): install the .deb, run --version, doctor and the self-test from
#      /usr/bin/harnessdesk, then purge the package again (--keep-installed leaves it)
# Python: .venv/bin/python (./scripts/install.sh) or $PYTHON; PyInstaller is added when missing.
set -euo pipefail
cd "$(dirname "$0")/.."

keep_installed=0
for arg in "$@"; do
  case "$arg" in
    --keep-installed) keep_installed=1 ;;
    *) echo "usage: $0 [--keep-installed]" >&2; exit 2 ;;
  esac
done

py="${PYTHON:-.venv/bin/python}"
[[ -x "$py" ]] || { echo "no $py: run ./scripts/install.sh first (or set PYTHON)" >&2; exit 2; }
"$py" -c "import PyInstaller" 2>/dev/null || "$py" -m pip install -q -e ".[desktop,package]"

declare -a timings=()
step() {  # step NAME COMMAND...: run, time, remember
  local name=$1; shift
  local t0=$SECONDS
  echo "== $name: $*"
  "$@"
  timings+=("$(printf '%-28s %4d s' "$name" $((SECONDS - t0)))")
}

start=$SECONDS
step "bundle (PyInstaller)" "$py" packaging/build.py
step "self-test (frozen)" dist/harnessdesk/harnessdesk doctor --self-test
step "installers (.deb, .tar.gz)" "$py" packaging/build.py --installers --no-bundle

deb=$(ls dist/harnessdesk_*.deb)
sudo=""
if [[ $(id -u) -ne 0 ]]; then
  if sudo -n true 2>/dev/null; then sudo="sudo"; else
    echo "not root and no passwordless sudo: skipping the .deb install check"; deb=""
  fi
fi
if [[ -n "$deb" ]] && command -v dpkg >/dev/null; then
  installed=1
  cleanup() { [[ $keep_installed -eq 1 || -z "${installed:-}" ]] || $sudo dpkg --purge harnessdesk >/dev/null; }
  trap cleanup EXIT
  install_deb() {
    $sudo dpkg -i "$deb" || {
      # Missing system libraries: let apt bring the declared Depends, then configure.
      $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -f -y -qq
    }
  }
  step "install .deb" install_deb
  cd /tmp  # run from elsewhere: nothing may come from the checkout
  /usr/bin/harnessdesk --version
  /usr/bin/harnessdesk doctor || echo "(doctor exit $?: 1 means no display here, fine for CI)"
  step "self-test (/usr/bin)" /usr/bin/harnessdesk doctor --self-test
  cd - >/dev/null
  if [[ $keep_installed -eq 0 ]]; then step "remove .deb" $sudo dpkg --purge harnessdesk; installed=""; fi
fi

echo
echo "== packaging timings"
printf '  %s\n' "${timings[@]}"
printf '  %-28s %4d s\n' "total" $((SECONDS - start))
ls -l dist/*.deb dist/*.tar.gz
du -sh dist/harnessdesk
