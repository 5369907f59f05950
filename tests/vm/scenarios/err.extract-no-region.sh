#!/usr/bin/env bash
#
# err.extract-no-region: a dump of a guest that never ran kdt (no kdt.ko,
# no memmap= region) holds no region; kdt-extract must say so and fail.
#
. "$(dirname "$0")/../lib.sh"

[ -x "$KV_EXTRACT" ] || kv_fail "build/bin/kdt-extract: missing (run 'make')"
work=$(mktemp -d "$KV_TOP/build/vm-no-region.XXXXXX")
trap 'rm -rf "$work"' EXIT

"$KV_VM" --no-kdt --load "$KV_MODULES" --panic --dump "$work/dump.elf" \
    --workdir "$work/vm" --prefix 'guest| ' || kv_fail "boot failed"
rc=0
"$KV_EXTRACT" "$work/dump.elf" > "$work/out" 2>&1 || rc=$?
cat "$work/out"
[ "$rc" -ne 0 ] || kv_fail "kdt-extract exited 0 on a dump without a region"
grep -qi 'no kdt region' "$work/out" ||
    kv_fail "kdt-extract did not report 'no kdt region'"
echo "PASS: kdt-extract exited $rc"
