#!/usr/bin/env bash
# ci.sh — the torture part of CI (.ci/run calls it).
#
#  1. the randomized crash workload with a fixed seed, then with a random
#     seed that is printed (replay a failure with the printed command);
#     about two minutes in all (TORTURE_CI_DURATION per run, default 60s);
#  2. every fuzz target of the module for FUZZTIME (default 10s) each, or
#     FUZZ_TARGETS of them drawn at random (torture/fuzz.sh says how).
#
# The rest of the torture package (full disk, read-only storage, hostile
# files, hostile imports) runs in the long run (SESSIONDB_LONG=1 go test ./...).
set -euo pipefail

cd "$(dirname "$0")/.."
duration="${TORTURE_CI_DURATION:-60s}"
fixed_seed="${TORTURE_CI_SEED:-20261129}"
random_seed="$(od -An -N8 -tu8 /dev/urandom | tr -d ' ')"

run() {
	echo "torture: crash workload, seed $1, ${duration}"
	echo "torture: replay with: go test ./torture -run '^TestCrashWorkload\$' -count=1 -v -torture.seed=$1 -torture.duration=${duration}"
	go test ./torture -run '^TestCrashWorkload$' -count=1 -v -timeout 30m \
		-torture.seed="$1" -torture.duration="${duration}"
}

run "${fixed_seed}"
run "${random_seed}"
bash torture/fuzz.sh
