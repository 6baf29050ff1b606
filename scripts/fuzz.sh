#!/usr/bin/env bash
# Fuzzes Playbook Studio's parsers and engine in-process with libFuzzer
# (cargo-fuzz, coverage-guided, stable toolchain: `--sanitizer none`).
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]
#
# Defaults: 20 seconds for each of validate_source, scenario, envelope, gate,
# preview, reparse and hook (the Claude Code gate on Bash commands). Every run starts from the checked-in seeds (fuzz/seeds/T) and
# regression inputs (fuzz/regressions/T), so an input that once crashed is
# replayed first. What a run discovers goes to a scratch corpus
# ($FUZZ_WORK, default target/fuzz-work/T) and never into the repository;
# a crash, timeout or out-of-memory input is saved to $FUZZ_WORK/artifacts/
# and fails the script. Minimise one with
#   cargo fuzz tmin --sanitizer none -O TARGET ARTIFACT
# and add it under fuzz/regressions/TARGET/ with the fix.
#
# Extra libFuzzer flags: FUZZ_FLAGS="-jobs=2 -workers=2" scripts/fuzz.sh 600
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-20}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(validate_source scenario envelope gate preview reparse hook)

command -v cargo-fuzz >/dev/null || { echo "fuzz: cargo-fuzz is missing; run scripts/setup.sh" >&2; exit 1; }

target_dir="${CARGO_TARGET_DIR:-$PWD/target}"
work="${FUZZ_WORK:-$target_dir/fuzz-work}"
mkdir -p "$work/artifacts"

# One instrumented release build for all targets; overflow checks and debug
# assertions are on (fuzz/Cargo.toml), so arithmetic overflow is a crash.
(cd fuzz && cargo fuzz build --sanitizer none -O --target-dir "$target_dir")

# The seeds of each target: reparse edits the playbooks validate_source
# starts from (the first three bytes of an input choose its edit).
seeds_of() {
  case "$1" in
    reparse) echo validate_source ;;
    *) echo "$1" ;;
  esac
}

# The dictionary of each target: field names and enum values from the
# generated schemas, CEL operators for gates.
dict_of() {
  case "$1" in
    validate_source | reparse) echo playbook ;;
    scenario | preview) echo scenario ;;
    envelope) echo envelope ;;
    gate) echo gate ;;
    hook) echo hook ;;
  esac
}

status=0
for t in "${targets[@]}"; do
  corpus="$work/$t"
  mkdir -p "$corpus"
  echo "fuzz: $t for ${seconds}s"
  # -timeout: one input taking 10 s is a hang (quadratic blow-ups included);
  # -rss_limit_mb: 2 GiB is far above any legitimate input's need;
  # -max_len: 128 KiB, beyond the seeds' largest file and within the
  # documents' own size limits, so size bounds are exercised too.
  rc=0
  # shellcheck disable=SC2086 # FUZZ_FLAGS is a list of flags
  (cd fuzz && cargo fuzz run --sanitizer none -O --target-dir "$target_dir" "$t" \
    "$corpus" "seeds/$(seeds_of "$t")" "regressions/$t" -- \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=131072 \
    -dict="dicts/$(dict_of "$t").dict" -artifact_prefix="$work/artifacts/$t-" \
    -print_final_stats=1 ${FUZZ_FLAGS:-}) >"$work/$t.log" 2>&1 || rc=$?
  grep -E '^#[0-9]+[[:space:]]+(INITED|DONE)|^stat::number_of_executed_units|^==[0-9]+== ERROR|^SUMMARY' "$work/$t.log" || true
  if [ "$rc" != 0 ]; then
    echo "fuzz: $t FAILED (exit $rc); log: $work/$t.log; inputs: $work/artifacts/$t-*" >&2
    status=1
  fi
done
exit $status
