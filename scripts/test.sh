#!/usr/bin/env bash
# Runs every check and test of Playbook Studio, as CI does: formatting,
# lints (Rust and UI), the UI type check, the dependency policy, all Rust
# tests, a short fuzzing run and the end-to-end journeys in a real window
# under Xvfb. Installs what it needs first.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never

step() { printf '\n==> %s\n' "$*"; }

step "set-up"
./scripts/setup.sh

step "UI: lint, type check, unit tests and build (the app embeds ui/dist)"
(cd ui && npm run lint && npm run typecheck && npm test && npm run build)

step "cargo fmt --check"
cargo fmt --all -- --check
cargo fmt --manifest-path fuzz/Cargo.toml -- --check

step "unused dependencies (cargo machete)"
cargo machete --with-metadata

step "dependency policy: licenses, bans, sources (cargo deny; deny.toml)"
cargo deny --log-level error check licenses bans sources

step "dependency policy: security advisories (cargo deny)"
./scripts/advisories.sh

step "cargo clippy -D warnings"
cargo clippy --workspace --all-targets -- -D warnings

step "cargo test (unit, integration, schema and type freshness)"
cargo test --workspace

step "generated TypeScript types are committed"
if [ -n "$(git status --porcelain -- ui/src/generated)" ]; then
  git status --short -- ui/src/generated
  echo "ui/src/generated is stale: run 'cargo test --workspace' and commit the result" >&2
  exit 1
fi

step "fuzzing: a short coverage-guided run of every target from its seeds"
./scripts/fuzz.sh 20

step "end-to-end journeys in a real window"
./scripts/e2e.sh

step "all checks passed"
