#!/usr/bin/env bash
# Builds the installable Debian/Ubuntu package of the desktop app (.deb)
# with the Tauri bundler: the app binary, its desktop entry (which opens
# playbook files, `Exec=playbook-studio %F`), its icon, and the MIME types
# of playbook files (src-tauri/packaging/). Prints the package's path.
#
#   scripts/package.sh            release build (the package to ship)
#   scripts/package.sh --debug    the debug build that scripts/e2e.sh tests
#
# Offline: the bundler needs nothing from the network for a .deb, and runs
# without one (a private network namespace) where the machine allows it,
# so a package never depends on what a download returned that day.
set -euo pipefail
cd "$(dirname "$0")/.."

profile=release
build=(--release --features custom-protocol)
bundle=(--features custom-protocol)
if [ "${1:-}" = "--debug" ]; then
  profile=debug
  build=()
  bundle=(--debug)
fi

./scripts/setup.sh
(cd ui && npm run build)
cargo build -p playbook-studio "${build[@]}"

target="${CARGO_TARGET_DIR:-$PWD/target}"
out="$target/$profile/bundle/deb"
rm -rf "$out"
offline=()
if unshare -rn true 2>/dev/null; then offline=(unshare -rn); fi
# The bundler finds the app through src-tauri/tauri.conf.json.
(cd src-tauri && "${offline[@]}" ../ui/node_modules/.bin/tauri bundle --ci --bundles deb "${bundle[@]}")
deb=$(find "$out" -maxdepth 1 -name '*.deb' -print -quit)
[ -n "$deb" ] || { echo "package: the bundler made no .deb in $out" >&2; exit 1; }
echo "$deb"
