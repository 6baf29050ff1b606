#!/usr/bin/env bash
# End-to-end journeys of the desktop app in a real window: builds the UI and
# the app, then drives it through WebKitWebDriver under Xvfb. Screenshots go
# to target/e2e-screenshots/. Needs the system packages of the README's
# set-up step (webkit2gtk-driver, xvfb, xauth).
set -euo pipefail
cd "$(dirname "$0")/.."

(cd ui && { [ -d node_modules ] || npm ci --no-audit --no-fund; } && npm run build)
cargo build -p playbook-studio
# The real-run journey's agent: the scripted MCP test agent.
cargo build -p playbook-testagent
cargo build -p playbook-e2e --tests
# The installable package of that build, for the package journey.
./scripts/package.sh --debug >/dev/null
# The measurements are of the build that is shipped: the dist profile that
# scripts/package.sh packages (built in its target directory, so the two
# share one build; the first takes about a quarter of an hour), against the
# release build of their floor: an empty Tauri 2 window (src-tauri/examples).
# PLAYBOOK_STUDIO_BIN picks another app binary.
case " $* " in
  *measure*)
    cargo build --release -p playbook-studio --features custom-protocol --example empty_window
    export PLAYBOOK_EMPTY_WINDOW_BIN="${PLAYBOOK_EMPTY_WINDOW_BIN:-${CARGO_TARGET_DIR:-$PWD/target}/release/examples/empty_window}"
    if [ -z "${PLAYBOOK_STUDIO_BIN:-}" ]; then
      package_target="${PACKAGE_TARGET_DIR:-$PWD/target/package}"
      CARGO_TARGET_DIR="$package_target" cargo build -p playbook-studio --profile dist --features custom-protocol --bin playbook-studio
      export PLAYBOOK_STUDIO_BIN="$package_target/dist/playbook-studio"
    fi
    ;;
esac

rm -rf target/e2e-screenshots
mkdir -p target/e2e-screenshots
# The journeys start and stop their own WebKitWebDriver; timeout guards the
# whole run against a hung webview. One test at a time: two cores.
# With no arguments: every journey, without the measurements; with
# arguments: a test name filter, e.g. `scripts/e2e.sh measure` for the
# numbers of docs/benchmarks.md.
if [ "$#" -eq 0 ]; then set -- --skip measure; fi
# A private D-Bus session: the app keeps one instance per library through
# it, and the single-instance journey launches the app twice. No
# accessibility bus is wanted inside it.
export NO_AT_BRIDGE=1
timeout 1500 dbus-run-session -- xvfb-run -a -s "-screen 0 1280x800x24" \
  cargo test -p playbook-e2e -- --ignored --test-threads=1 --nocapture "$@"
