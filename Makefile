# kdt -- top-level build.
#
#   make          build the tools (build/bin/) and kdt.ko (build/kmod/)
#   make demo     install dependencies, fetch the pinned kernel, build, and
#                 run the end-to-end demo (boot, trace, panic, dump, extract)
#   make check    install dependencies, build, run every test; the last line
#                 is "N passed, N failed"
#   make fuzz     run every libFuzzer target (tests/fuzz/) FUZZ_TIME seconds
#                 (default 300) each; make fuzz-smoke: ~20 s each, fails on
#                 any finding (make check runs it)
#
# Everything built lands under build/: build/bin/kdt, build/bin/kdt-extract,
# build/kmod/kdt.ko, build/lib/kdt.so (the crash(8) extension: "extend
# build/lib/kdt.so", then "kdt").  The pinned kernel is named in
# mk/versions.mk only.
#
# Source lists are wildcards per folder: a new .c file in a folder is built
# into that folder's part without touching this file.  Program entry points
# are the *_main.c files; everything else goes into libkdt.a.

include mk/versions.mk

B		:= build
KDIR		?= /usr/src/linux-headers-$(KVER)
KERNEL_DIR	:= $(B)/kernel
CC		?= gcc
BASE_CFLAGS	:= -std=gnu11 -g -Wall -Wextra -Wno-unused-parameter \
		   -Wno-missing-field-initializers -Icommon -I. \
		   $(shell pkg-config --cflags libbpf 2>/dev/null)
CFLAGS		?= -O2
SAN_FLAGS	:= -fsanitize=address,undefined -fno-omit-frame-pointer \
		   -fno-sanitize-recover=undefined
LIBS		:= -lelf -lz $(shell pkg-config --libs libbpf 2>/dev/null) \
		   -llzo2 -lsnappy -lzstd
CHECK_LIBS	:= $(shell pkg-config --libs check 2>/dev/null || echo -lcheck)

# The crash(8) extension kdt.so (mdb-module/).  Only kdt.c includes crash's
# defs.h (Debian package crash, from make deps); the rest of mdb-module/ is
# in libkdt like any folder.  crash's own extension flags.  It is part of
# "all" when the header is there -- after make deps, always.
CRASH_H		:= /usr/include/crash/defs.h
CRASH_GLUE	:= mdb-module/kdt.c
CRASH_CFLAGS	:= -DX86_64 -DGDB_10_2
CRASH_LDFLAGS	:= -shared -fPIC -nostartfiles -rdynamic -Wl,--as-needed
CRASHEXT	:= $(if $(wildcard $(CRASH_H)),crashext)

LIB_SRC		:= $(wildcard common/*.c) \
		   $(filter-out %_main.c,$(wildcard compiler/*.c)) \
		   $(filter-out %_main.c,$(wildcard consumer/*.c)) \
		   $(filter-out %_main.c,$(wildcard crashdump/*.c)) \
		   $(filter-out %_main.c,$(wildcard anon/*.c)) \
		   $(filter-out %_main.c,$(wildcard boot/*.c)) \
		   $(filter-out $(CRASH_GLUE),$(wildcard mdb-module/*.c))
HDRS		:= $(wildcard common/*.h compiler/*.h consumer/*.h \
		   crashdump/*.h anon/*.h boot/*.h mdb-module/*.h)

LIB_OBJ		:= $(LIB_SRC:%.c=$(B)/obj/%.o)
SAN_OBJ		:= $(LIB_SRC:%.c=$(B)/san/%.o)
# libkdt.a is not position-independent: kdt.so links the same list built
# again with -fPIC (and hidden symbols, so that none binds to one of
# crash's or gdb's own global symbols of the same name).
PIC_OBJ		:= $(LIB_SRC:%.c=$(B)/pic/%.o)
UNIT_SRC	:= $(wildcard tests/unit/test_*.c)
UNIT_BIN	:= $(UNIT_SRC:tests/unit/%.c=$(B)/test/%)

.PHONY: all tools kmod deps kernel kernel-dbg crashext demo check unit vmtest clean \
	fuzz fuzz-smoke fuzz-bin
all: tools kmod $(CRASHEXT)

# Tools of boot/ (boot/*_main.c -> build/bin/kdt-initrd ...).
BOOT_TOOLS	:= $(patsubst boot/%_main.c,$(B)/bin/%,$(wildcard boot/*_main.c))
BOOT_TOOLS	:= $(subst _,-,$(BOOT_TOOLS))

tools: $(B)/bin/kdt $(B)/bin/kdt-extract $(BOOT_TOOLS)

$(B)/obj/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) -c $< -o $@

$(B)/san/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) -O1 $(SAN_FLAGS) -c $< -o $@

$(B)/lib/libkdt.a: $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(B)/lib/libkdt-san.a: $(SAN_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(B)/pic/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) -fPIC -fvisibility=hidden -c $< -o $@

$(B)/lib/libkdt-pic.a: $(PIC_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

crashext: $(B)/lib/kdt.so
$(B)/lib/kdt.so: $(CRASH_GLUE) mdb-module/mdb.h $(B)/lib/libkdt-pic.a
	@test -f $(CRASH_H) || { echo "kdt: $(CRASH_H) missing; run 'make deps'" >&2; exit 1; }
	$(CC) -std=gnu11 -g -Wall -O2 -I. $(CRASH_CFLAGS) $(CRASH_LDFLAGS) \
		-fvisibility=hidden $< -o $@ $(B)/lib/libkdt-pic.a $(LIBS)

$(B)/bin/kdt: consumer/kdt_main.c $(B)/lib/libkdt.a
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) $< -o $@ $(B)/lib/libkdt.a $(LIBS)

$(B)/bin/kdt-extract: crashdump/kdt_extract_main.c $(B)/lib/libkdt.a
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) $< -o $@ $(B)/lib/libkdt.a $(LIBS)

$(B)/bin/kdt-%: boot/kdt_%_main.c $(B)/lib/libkdt.a
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) $< -o $@ $(B)/lib/libkdt.a $(LIBS)

# Unit tests: one check program per tests/unit/test_*.c, linked against the
# sanitizer build of everything (common/ included, as STYLE.md point 6 asks).
$(B)/test/%: tests/unit/%.c tests/unit/kt_check.h $(B)/lib/libkdt-san.a
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) -O1 $(SAN_FLAGS) -Itests/unit $< -o $@ \
		$(B)/lib/libkdt-san.a $(LIBS) $(CHECK_LIBS)

# test_uprobe resolves probes in real processes: the live scenario's
# workload (pid and USDT probes), static and PIE with the shared libc.
UPID_SRC	:= tests/vm/progs/upid-test.c
$(B)/test/upid-static: $(UPID_SRC)
	@mkdir -p $(dir $@)
	$(CC) -static -O2 -g -o $@ $<
$(B)/test/upid-pie: $(UPID_SRC)
	@mkdir -p $(dir $@)
	$(CC) -pie -fPIE -O2 -g -o $@ $<
$(B)/test/test_uprobe: $(B)/test/upid-static $(B)/test/upid-pie

# Fuzzers (tests/fuzz/, its README has the theory): one libFuzzer program
# per tests/fuzz/fuzz_*.c, linked against libkdt built once more with
# clang's coverage instrumentation and ASan/UBSan -- the same LIB_SRC.
# "make fuzz" runs each for FUZZ_TIME seconds and prints its figures;
# "make fuzz-smoke" replays the corpus and every tests/fuzz/bad/ fixture
# and runs each target ~FUZZ_SMOKE_TIME seconds, failing on any crash.
FUZZ_CC		:= clang
FUZZ_SAN	:= address,undefined -fno-omit-frame-pointer \
		   -fno-sanitize-recover=undefined
FUZZ_OBJ	:= $(LIB_SRC:%.c=$(B)/fuzz/obj/%.o)
FUZZ_SRC	:= $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BIN	:= $(FUZZ_SRC:tests/fuzz/%.c=$(B)/fuzz/%)
FUZZ_TIME	?= 300
FUZZ_SMOKE_TIME	?= 20

$(B)/fuzz/obj/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(BASE_CFLAGS) -O1 -fsanitize=fuzzer-no-link,$(FUZZ_SAN) \
		-c $< -o $@

$(B)/lib/libkdt-fuzz.a: $(FUZZ_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(B)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/kf.h $(B)/lib/libkdt-fuzz.a
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(BASE_CFLAGS) -O1 -fsanitize=fuzzer,$(FUZZ_SAN) \
		-Itests/fuzz $< -o $@ $(B)/lib/libkdt-fuzz.a $(LIBS)

fuzz-bin: $(FUZZ_BIN)

fuzz: $(FUZZ_BIN)
	@bash tests/fuzz/run $(FUZZ_TIME)

fuzz-smoke: $(FUZZ_BIN)
	@bash tests/fuzz/run --smoke $(FUZZ_SMOKE_TIME)

# kdt.ko: kbuild wants the sources in one directory, so build/kmod holds
# symlinks to kmod/ and common/ -- the very same .c files userspace builds.
KMOD_SRC	:= $(wildcard kmod/*.c kmod/*.h kmod/Kbuild common/*.c common/*.h)
kmod: $(B)/kmod/kdt.ko
$(B)/kmod/kdt.ko: $(KMOD_SRC)
	@test -d $(KDIR) || { echo "kdt: kernel headers $(KDIR) missing; run 'make deps'" >&2; exit 1; }
	@mkdir -p $(B)/kmod
	@ln -sf $(abspath $(KMOD_SRC)) $(B)/kmod/
	$(MAKE) -C $(KDIR) M=$(abspath $(B)/kmod) modules

deps:
	@bash mk/deps.sh

kernel:
	@bash mk/kernel.sh $(KERNEL_DIR)

# The DWARF vmlinux crash(8) needs (tests/vm/scenarios/tst.crash-ext.sh).
kernel-dbg:
	@bash mk/kernel-dbg.sh $(B)/kernel-dbg

unit: $(UNIT_BIN)

demo: deps
	@$(MAKE) --no-print-directory all kernel
	@bash examples/demo.sh

check: deps
	@$(MAKE) --no-print-directory all kernel $(UNIT_BIN) $(FUZZ_BIN)
	@bash tests/run-tests

clean:
	rm -rf $(B)/obj $(B)/san $(B)/lib $(B)/bin $(B)/test $(B)/kmod $(B)/pic \
		$(B)/fuzz
