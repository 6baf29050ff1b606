#!/usr/bin/env bash
# The reference preview flow (shared/BENCHMARK-FLOW.md) side by side in one
# run: Playbook Studio's engine (`bench_flow`, release, every contract
# enforced, every event and record produced), the same flow in LangGraph, and
# a bare Python loop doing only the state changes.
#
#   scripts/bench-baseline.sh [TASKS] [ROUNDS]
#
# Defaults: 10 000 tasks (60 002 agent steps), 2 rounds, the three run
# alternately in each round so that the machine's load falls on all of them.
# LangGraph is installed from PyPI at the version pinned in
# bench/baseline/requirements.txt into a virtual environment under the
# target directory (needs python3 with venv and network access to PyPI the
# first time). Not part of scripts/test.sh: tests never assert on time.
# Figures are recorded in docs/benchmarks.md (Orchestrator).
set -euo pipefail
cd "$(dirname "$0")/.."

tasks="${1:-10000}"
rounds="${2:-2}"
target_dir="${CARGO_TARGET_DIR:-$PWD/target}"
venv="$target_dir/bench-baseline-venv"

command -v python3 >/dev/null || { echo "bench-baseline: python3 is missing" >&2; exit 1; }
if [ ! -x "$venv/bin/python" ] || [ bench/baseline/requirements.txt -nt "$venv/.installed" ]; then
  echo "bench-baseline: installing $(cat bench/baseline/requirements.txt) into $venv"
  python3 -m venv "$venv" \
    || { echo "bench-baseline: python3 cannot make a venv; on Debian: apt install python3-venv" >&2; exit 1; }
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r bench/baseline/requirements.txt
  touch "$venv/.installed"
fi

cargo build --quiet --release -p playbook-orchestrator --example bench_flow
engine="$target_dir/release/examples/bench_flow"

# `key value` lines of bench_flow's report, as the Python side prints them.
figure() { # report, label
  awk -v label="$2" 'index($0, label) == 1 { sub(label "[ ]*", ""); print $1; exit }' <<<"$1"
}

echo "reference flow, $tasks tasks; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-50s %14s %14s\n' "run" "µs per step" "CPU µs/step"
for round in $(seq 1 "$rounds"); do
  for sink in counting jsonl; do
    report=$("$engine" "$tasks" "$sink")
    # The engine's own count against the flow's formula.
    grep -Eq '^steps +([0-9]+) \(expected \1\)' <<<"$report" \
      || { echo "bench-baseline: the engine ran a wrong number of steps" >&2; exit 1; }
    printf '%-50s %14s %14s\n' "round $round: Playbook Studio engine, $sink sink" \
      "$(figure "$report" "per step")" "$(figure "$report" "CPU per step")"
  done
  for which in loop langgraph; do
    report=$("$venv/bin/python" bench/baseline/reference_flow.py "$tasks" "$which")
    printf '%-50s %14s %14s\n' "round $round: Python, $which" \
      "$(figure "$report" "$which.us_per_step")" "$(figure "$report" "$which.cpu_us_per_step")"
  done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
