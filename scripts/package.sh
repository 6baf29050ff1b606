#!/usr/bin/env bash
# Builds the installable Debian/Ubuntu package of the desktop app (.deb)
# with the Tauri bundler: the app binary, its desktop entry (which opens
# playbook files, `Exec=playbook-studio %F`), its icon, and the MIME types
# of playbook files (src-tauri/packaging/). Prints the package's path.
#
#   scripts/package.sh            the dist profile (the package to ship)
#   scripts/package.sh --debug    the debug build that scripts/e2e.sh tests
#
# The dist profile (root Cargo.toml: release plus fat LTO, one codegen unit,
# dependencies optimised for size) makes a 27 MB binary instead of 49 MB and
# a window that holds about 7.5 MiB less (docs/benchmarks.md). The bundler
# packages `<target>/release/`, so that build gets a target directory of its
# own (`target/package`, or PACKAGE_TARGET_DIR) whose release slot holds
# only the dist binary: the workspace's own release builds, which the
# benchmarks use, are never replaced.
#
# Offline: the bundler needs nothing from the network for a .deb, and runs
# without one (a private network namespace) where the machine allows it,
# so a package never depends on what a download returned that day.
set -euo pipefail
cd "$(dirname "$0")/.."

profile=release
bundle=(--features custom-protocol)
if [ "${1:-}" = "--debug" ]; then
  profile=debug
  bundle=(--debug)
fi

./scripts/setup.sh
(cd ui && npm run build)
if [ "$profile" = debug ]; then
  cargo build -p playbook-studio
  target="${CARGO_TARGET_DIR:-$PWD/target}"
else
  target="${PACKAGE_TARGET_DIR:-$PWD/target/package}"
  export CARGO_TARGET_DIR="$target"
  cargo build -p playbook-studio --profile dist --features custom-protocol --bin playbook-studio
  mkdir -p "$target/release"
  cp "$target/dist/playbook-studio" "$target/release/playbook-studio"
fi
out="$target/$profile/bundle/deb"
rm -rf "$out"
offline=()
if unshare -rn true 2>/dev/null; then offline=(unshare -rn); fi
# The bundler finds the app through src-tauri/tauri.conf.json.
(cd src-tauri && "${offline[@]}" ../ui/node_modules/.bin/tauri bundle --ci --bundles deb "${bundle[@]}")
deb=$(find "$out" -maxdepth 1 -name '*.deb' -print -quit)
[ -n "$deb" ] || { echo "package: the bundler made no .deb in $out" >&2; exit 1; }
echo "$deb"
