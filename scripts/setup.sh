#!/usr/bin/env bash
# Installs what building, running and testing Playbook Studio needs on a
# fresh Debian/Ubuntu machine, and nothing that is already there. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  libwebkit2gtk-4.1-dev libgtk-3-dev libsoup-3.0-dev libjavascriptcoregtk-4.1-dev
  librsvg2-dev build-essential pkg-config libssl-dev git
  xvfb xauth webkit2gtk-driver xdotool dbus-daemon
  desktop-file-utils shared-mime-info libglib2.0-bin
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

command -v cargo >/dev/null || { echo "setup: Rust is missing; install it from https://rustup.rs" >&2; exit 1; }
command -v npm >/dev/null || { echo "setup: Node.js 20+ and npm are missing; install them (apt install nodejs npm)" >&2; exit 1; }

# The UI's packages, at the locked versions. `npm ci` refuses a lock that
# lacks entries for other platforms' optional packages (rollup, esbuild),
# which registries that omit them produce; `npm install --no-save` then
# installs the same locked versions without rewriting the lock.
if [ ! -d ui/node_modules ] || [ ui/package-lock.json -nt ui/node_modules/.package-lock.json ]; then
  (cd ui && { npm ci --no-audit --no-fund --loglevel=error 2>/dev/null || npm install --no-save --no-audit --no-fund; })
fi

# Supply-chain and fuzzing tools, built from crates.io at pinned versions
# (`--locked`: with the dependency versions their authors tested). Only when
# missing or at another version; a one-off cost of several minutes each on a
# fresh 2-core machine (figures in docs/supply-chain.md).
cargo_tool() { # crate, version, binary
  if ! "$3" --version 2>/dev/null | grep -qwF "$2"; then
    echo "setup: installing $1 $2"
    cargo install --locked --quiet "$1" --version "$2"
  fi
}
cargo_tool cargo-deny 0.20.2 cargo-deny
cargo_tool cargo-machete 0.9.2 cargo-machete
cargo_tool cargo-fuzz 0.13.2 cargo-fuzz
