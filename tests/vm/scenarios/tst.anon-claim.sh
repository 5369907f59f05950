#!/usr/bin/env bash
#
# tst.anon-claim: the live consumer and the dump reader agree.  The guest
# boots with examples/boot.d, loads the demo modules, runs `kdt -ae` (claim
# the anonymous state, stop it, print all it recorded, exit: the state
# ends with it) into the raw second serial port, then panics.  What
# kdt -ae printed in the guest must equal what kdt-extract prints from the
# dump of that same boot.  (tst.anon-claim-live checks `kdt -a` going on.)
#
. "$(dirname "$0")/../lib.sh"

kv_need_all
work=$(mktemp -d "$KV_TOP/build/vm-anon-claim.XXXXXX")
trap 'rm -rf "$work"' EXIT

"$KV_VM" --script "$KV_SCRIPT" --load "$KV_MODULES" --add-kdt \
    --run 'kdt -ae > /dev/ttyS1' --guest-out "$work/claim.out" \
    --panic --dump "$work/dump.elf" --workdir "$work/vm" \
    --prefix 'guest| ' || kv_fail "boot failed"
"$KV_EXTRACT" "$work/dump.elf" > "$work/extract.out" ||
    kv_fail "kdt-extract exited $?"

echo "--- kdt -ae in the guest:"
cat "$work/claim.out"
echo "--- kdt-extract on the dump:"
cat "$work/extract.out"
kv_check_order "$work/claim.out" ||
    kv_fail "kdt -ae did not print what the guest did"
diff -u "$work/claim.out" "$work/extract.out" ||
    kv_fail "kdt -ae and kdt-extract disagree"
echo "PASS"
