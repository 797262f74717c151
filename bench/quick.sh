#!/usr/bin/env bash
# The quick benchmarks, as CI runs them: small sizes, 3 runs, under ~3
# minutes on 2 CPUs. Prints figures only; it fails only if a workload
# cannot run. Extra arguments go to the benchmark (e.g. -json, -only 1,2).
set -euo pipefail
cd "$(dirname "$0")/.."
exec go run ./bench -quick "$@"
