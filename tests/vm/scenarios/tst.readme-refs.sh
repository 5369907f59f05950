#!/usr/bin/env bash
#
# tst.readme-refs: the pointers from messages to the man pages, and from
# README.md's walkthroughs to the tests that run them, lead somewhere.
# No VM: it reads the sources.
#
#   - every "see kdt(1), SECTION" / "see kdt-extract(1), SECTION" (any
#     case) in the message strings of consumer/, crashdump/, anon/ and
#     mdb-module/ names a section (.SH) that man/PAGE has;
#   - every walkthrough block README.md marks ("<!-- walkthrough: FLOW
#     STEP -->", tests/vm/readme-walkthrough --list) is extracted without
#     error and is run by some scenario: one of tests/vm/scenarios/*
#     names "FLOW STEP" (readme-walkthrough FLOW STEP, --run DIR FLOW
#     STEP) or, for the blocks run in the Debian guest, "boot-STEP".
#
. "$(dirname "$0")/../lib.sh"

cd "$KV_TOP"
fails=0
bad()
{
	echo "FAIL: $*"
	fails=$((fails + 1))
}

n=0
while IFS= read -r hit; do
	file=${hit%%:*}
	ref=$(sed -E 's/.*[Ss]ee (kdt(-extract)?)\(1\), ([A-Z][A-Z .]*[A-Z]).*/\1 \3/' <<<"$hit")
	page=${ref%% *} sect=${ref#* }
	n=$((n + 1))
	grep -qx "\.SH $sect" "man/$page.1" ||
	    bad "$file: 'see $page(1), $sect': man/$page.1 has no section $sect"
done < <(grep -HoE '[Ss]ee kdt(-extract)?\(1\), [A-Z][A-Z .]*[A-Z]' \
    consumer/*.c crashdump/*.c anon/*.c mdb-module/*.c)
echo "$n message pointers to man page sections"
[ "$n" -ge 20 ] || bad "only $n pointers found: the messages lost them?"

flows=$(tests/vm/readme-walkthrough --list) || bad "readme-walkthrough --list failed"
[ -n "$flows" ] || bad "README.md marks no walkthrough"
while read -r flow step; do
	[ -n "$flow" ] || continue
	tests/vm/readme-walkthrough "$flow" "$step" > /dev/null ||
	    bad "walkthrough $flow $step does not extract"
	if grep -lE -- "readme-walkthrough\"? (--run [^ ]+ )?$flow $step\b" tests/vm/scenarios/*.sh > /dev/null ||
	    { [ "$flow" = boot ] && grep -q 'boot-\$n.sh' tests/vm/scenarios/tst.anon-debian.sh &&
	      grep -qE "for n in .*\b$step\b" tests/vm/scenarios/tst.anon-debian.sh; }; then
		echo "walkthrough $flow $step: run by a scenario"
	else
		bad "walkthrough $flow $step: no scenario runs it"
	fi
done <<<"$flows"

[ "$fails" = 0 ] || kv_fail "$fails check(s) failed"
echo "PASS"
