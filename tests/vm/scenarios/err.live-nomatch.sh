#!/usr/bin/env bash
#
# err.live-nomatch: a probe description that matches no probe of kdt.ko
# fails the enabling (KIO_ENABLE -ENOENT, ken_badecb) with dtrace's
# message and exit status 1: "invalid probe specifier <-n text>: probe
# description fbt::no_such_function:entry does not match any probes" for
# -n, "failed to compile script FILE: probe description ..." for -s.
# With -Z the same description is allowed: the rest of the program runs
# ("matched 1 probe": BEGIN), exit 0.
#
. "$(dirname "$0")/../lib.sh"

res=$(kv_live)
kv_live_rc "$res" nomatch 1
[ ! -s "$res/nomatch.out" ] || kv_fail "nomatch: unexpected stdout"
echo "kdt: invalid probe specifier fbt::no_such_function:entry: probe description fbt::no_such_function:entry does not match any probes" |
    diff -u - "$res/nomatch.err" || kv_fail "nomatch: not dtrace's message"
kv_live_rc "$res" nomatch_s 1
echo "kdt: failed to compile script /tmp/nomatch.d: probe description fbt::no_such_function:entry does not match any probes" |
    diff -u - "$res/nomatch_s.err" || kv_fail "nomatch_s: not dtrace's message"
kv_live_rc "$res" nomatch_z 0
grep -qx "kdt: description 'fbt::no_such_function:entry' matched 1 probe" \
    "$res/nomatch_z.err" || kv_fail "nomatch_z: -Z did not let BEGIN run"
grep -Eqx '  [01]      1 +:BEGIN ' "$res/nomatch_z.out" ||
    kv_fail "nomatch_z: no BEGIN record"
echo "PASS"
