#!/usr/bin/env bash
# Checks the dependency tree against the RustSec advisory database
# (vulnerabilities, unmaintained crates, yanked versions) with cargo-deny.
#
# The database is a git repository on GitHub. Where the network reaches it,
# it is fetched and the check runs on today's advisories. Where it does not
# (this project's build machines reach only the package registries), the
# check runs on the copy already on the machine (`cargo deny fetch db` puts
# one in ~/.cargo/advisory-dbs; any clone of the database can be placed
# there), saying how old it is; with no copy at all it is skipped with a
# notice, never silently. REQUIRE_ADVISORIES=1 makes a skip a failure.
set -euo pipefail
cd "$(dirname "$0")/.."

db_root="${CARGO_HOME:-$HOME/.cargo}/advisory-dbs"
copy_date() {
  local copy
  copy="$(find "$db_root" -mindepth 1 -maxdepth 1 -type d -name 'advisory-db-*' 2>/dev/null | head -n 1)"
  [ -n "$copy" ] && git -C "$copy" log -1 --format=%cs 2>/dev/null
}
if timeout 120 cargo deny --log-level error fetch db >/dev/null 2>&1; then
  echo "advisories: database updated; newest entry of $(copy_date || echo "an unknown date")"
elif when="$(copy_date)"; then
  echo "advisories: the database cannot be fetched here; checking against the local copy of $when"
else
  echo "advisories: SKIPPED: the RustSec database cannot be fetched from this network and no local copy exists (see docs/supply-chain.md)" >&2
  [ "${REQUIRE_ADVISORIES:-0}" != 1 ] || exit 1
  exit 0
fi
exec cargo deny --offline --log-level error check advisories
