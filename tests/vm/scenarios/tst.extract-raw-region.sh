#!/usr/bin/env bash
#
# tst.extract-raw-region: kdt-extract reads a raw region image.  The guest
# boots with examples/boot.d, loads the demo modules, copies the region
# (where kdt -A -o placed it: the kdt.region= word of the command line)
# from /dev/mem with dd --
# what a kdump hook or an admin saves -- and sends it gzipped through the
# raw second serial port (16 MiB of mostly zeros would take the UART
# ~20 s), then panics.  kdt-extract on that image must print exactly what it
# prints from the ELF dump of the same boot, say on stderr which boot
# wrote the image, and --merge must print the same records.
#
. "$(dirname "$0")/../lib.sh"

kv_need_all
work=$(mktemp -d "$KV_TOP/build/vm-raw-region.XXXXXX")
trap 'rm -rf "$work"' EXIT

"$KV_VM" --script "$KV_SCRIPT" --load "$KV_MODULES" --smp "$KV_SMP" \
    --run 'set -- $(sed -n "s/.*kdt\.region=\([0-9]*\)M@\(0x[0-9a-f]*\).*/\1 \2/p" /proc/cmdline)' \
    --run 'echo "region: ${1}M at $2"' \
    --run 'dd if=/dev/mem bs=1M skip=$(($2 >> 20)) count=$1 | gzip -1 > /dev/ttyS1' \
    --guest-out "$work/region.bin.gz" \
    --panic --dump "$work/dump.elf" --workdir "$work/vm" \
    --prefix 'guest| ' --quiet || kv_fail "boot failed"
gzip -dc "$work/region.bin.gz" > "$work/region.bin" ||
    kv_fail "the region copy from the guest is not a gzip stream"
words=$(cat "$work/vm/anon/cmdline")
mb=$(sed -n 's/.*kdt\.region=\([0-9]*\)M@.*/\1/p' <<< "$words")
phys=$(sed -n 's/.*kdt\.region=[0-9]*M@\(0x[0-9a-f]*\).*/\1/p' <<< "$words")
[ -n "$mb" ] && [ -n "$phys" ] || kv_fail "no kdt.region=NM@PHYS in: $words"
size=$(stat -c %s "$work/region.bin")
[ "$size" -eq $((mb << 20)) ] ||
    kv_fail "region.bin is $size bytes, want $((mb << 20))"
"$KV_EXTRACT" "$work/region.bin" > "$work/raw.out" 2> "$work/raw.err" ||
    kv_fail "kdt-extract region.bin exited $?: $(cat "$work/raw.err")"
"$KV_EXTRACT" "$work/dump.elf" > "$work/elf.out" ||
    kv_fail "kdt-extract dump.elf exited $?"
"$KV_EXTRACT" --merge "$work/region.bin" > "$work/merge.out" \
    2> /dev/null || kv_fail "kdt-extract --merge exited $?"

echo "--- kdt-extract region.bin (stderr):"
cat "$work/raw.err"
echo "--- kdt-extract region.bin:"
cat "$work/raw.out"
grep -Eq "raw region image written by kernel [0-9]+\.[^ ]+, boot id [0-9a-f]{32}, region was at phys $phys$" \
    "$work/raw.err" || kv_fail "no 'written by kernel ... boot id' line"
kv_check_order "$work/raw.out" || kv_fail "records missing or out of order"
diff -u "$work/elf.out" "$work/raw.out" ||
    kv_fail "the raw image and the ELF dump of the same boot disagree"
kv_compare "$work/merge.out" "$work/raw.out" ||
    kv_fail "--merge printed other records"
echo "PASS"
