#!/usr/bin/env bash
# Launches Playbook Studio: installs what is missing, builds the UI and the
# app, and opens the window over the default library (or PLAYBOOK_DB).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
(cd ui && npm run build)
exec cargo run -p playbook-studio -- "$@"
