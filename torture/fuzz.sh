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
# Environment: FUZZTIME (default 10s) per target; FUZZ_PATTERN (a grep -E
# regexp on "pkg FuzzName") to select targets.
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

echo "fuzz.sh: ${#targets[@]} targets, ${fuzztime} each"
failed=()
for t in "${targets[@]}"; do
	pkg="${t% *}"
	name="${t#* }"
	echo "=== fuzz ${pkg} ${name}"
	if ! go test -run='^$' -fuzz="^${name}\$" -fuzztime="${fuzztime}" "${pkg}"; then
		failed+=("${pkg} ${name}")
		echo "--- FAIL: ${pkg} ${name}: the crasher is under ${pkg}/testdata/fuzz/${name}/"
	fi
done

if [ "${#failed[@]}" -gt 0 ]; then
	echo "fuzz.sh: ${#failed[@]} of ${#targets[@]} targets failed:"
	printf '  %s\n' "${failed[@]}"
	exit 1
fi
echo "fuzz.sh: all ${#targets[@]} targets passed"
