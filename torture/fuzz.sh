#!/usr/bin/env bash
# fuzz.sh — run every fuzz target of the module for a short time.
#
# It discovers each `func FuzzXxx(f *testing.F)` in the repository's
# _test.go files and runs it alone:
#
#   go test -run='^$' -fuzz='^FuzzXxx$' -fuzztime=10s ./pkg
#
# A crasher makes that run fail; Go writes the input under
# pkg/testdata/fuzz/FuzzXxx/, where it becomes a regression case of every
# later `go test` (commit it together with the fix). The script runs every
# target even after a failure, then lists the failures and exits non-zero.
#
# One failure is not the target's: Go 1.26's fuzz coordinator can report
# the end of -fuzztime itself as "context deadline exceeded", saving no
# input (go.dev/issue/75804, fixed in Go 1.27). A run that fails with that
# line and saves nothing is retried, up to three attempts in all.
#
# Environment: FUZZTIME (default 10s) per target; FUZZ_PATTERN (a grep -E
# regexp on "pkg FuzzName") to select targets; FUZZ_TARGETS=N fuzzes only
# N of them, drawn at random with FUZZ_SEED (printed; a random one when
# unset), so that a short budget fuzzes some targets for long enough to
# get past their baseline (Go counts the seed corpus's coverage run in
# -fuzztime: 3 s of a target with a few hundred seeds fuzzed nothing)
# and every run of CI draws others. Every seed corpus runs in each go test.
set -uo pipefail

cd "$(dirname "$0")/.." || exit 2
fuzztime="${FUZZTIME:-10s}"
pattern="${FUZZ_PATTERN:-.}"

mapfile -t targets < <(
	grep -rEo --include='*_test.go' '^func (Fuzz[A-Za-z0-9_]+)\(' . |
		grep -v '/vendor/' |
		sed -E 's#^\./(.*)/[^/]+_test\.go:func (Fuzz[A-Za-z0-9_]+)\($#./\1 \2#; s#^\./[^/]+_test\.go:func (Fuzz[A-Za-z0-9_]+)\($#. \1#' |
		sort -u | grep -E -- "$pattern"
)

if [ "${#targets[@]}" -eq 0 ]; then
	echo "fuzz.sh: no fuzz targets found" >&2
	exit 1
fi

total="${#targets[@]}"
if [ -n "${FUZZ_TARGETS:-}" ] && [ "${FUZZ_TARGETS}" -lt "${total}" ]; then
	seed="${FUZZ_SEED:-$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')}"
	echo "fuzz.sh: ${FUZZ_TARGETS} of ${total} targets drawn with FUZZ_SEED=${seed}"
	# Fisher-Yates with bash's generator seeded: the same seed draws the
	# same targets from the same list.
	RANDOM="${seed}"
	for ((i = total - 1; i > 0; i--)); do
		j=$((RANDOM % (i + 1)))
		tmp="${targets[i]}"; targets[i]="${targets[j]}"; targets[j]="${tmp}"
	done
	targets=("${targets[@]:0:${FUZZ_TARGETS}}")
fi

echo "fuzz.sh: ${#targets[@]} targets, ${fuzztime} each"
failed=()
# crashers lists the inputs saved for a target (a new one is a failure).
crashers() { ls "$1/testdata/fuzz/$2" 2>/dev/null | sort; }

flaked=()
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
for t in "${targets[@]}"; do
	pkg="${t% *}"
	name="${t#* }"
	for attempt in 1 2 3; do
		echo "=== fuzz ${pkg} ${name} (attempt ${attempt})"
		before="$(crashers "$pkg" "$name")"
		if go test -run='^$' -fuzz="^${name}\$" -fuzztime="${fuzztime}" "${pkg}" 2>&1 | tee "$log"; test "${PIPESTATUS[0]}" -eq 0; then
			break
		fi
		# Go 1.26's fuzz coordinator can report the end of -fuzztime itself
		# as a failure: a bare "context deadline exceeded" at the deadline,
		# with no input saved (go.dev/issue/75804, fixed in Go 1.27). That,
		# and only that, is retried; anything else fails the target.
		if [ "$(crashers "$pkg" "$name")" = "$before" ] && grep -qx '    context deadline exceeded' "$log" && [ "$attempt" -lt 3 ]; then
			flaked+=("${pkg} ${name}")
			echo "--- RETRY: ${pkg} ${name}: 'context deadline exceeded' at the end of -fuzztime with no input saved (go.dev/issue/75804)"
			continue
		fi
		failed+=("${pkg} ${name}")
		echo "--- FAIL: ${pkg} ${name}: a crasher, if one was found, is under ${pkg}/testdata/fuzz/${name}/"
		break
	done
done

if [ "${#flaked[@]}" -gt 0 ]; then
	echo "fuzz.sh: retried after Go's fuzztime deadline race (go.dev/issue/75804):"
	printf '  %s\n' "${flaked[@]}"
fi

if [ "${#failed[@]}" -gt 0 ]; then
	echo "fuzz.sh: ${#failed[@]} of ${#targets[@]} targets failed:"
	printf '  %s\n' "${failed[@]}"
	exit 1
fi
echo "fuzz.sh: all ${#targets[@]} targets passed"
