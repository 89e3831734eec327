# kbench - kernel variant benchmark harness.  See README.md.
#
#   make            build kbench and the guest agent
#   make deps       install missing Debian packages (nothing if all present)
#   make bench      KERNEL=rt-stock SUITE=quick [ITERATIONS=N] [BACKEND=qemu]
#                   [SCRATCH=DIR] (BACKEND=local: dbench's --scratch DIR)
#                   [TARGET=NAME] (BACKEND=ssh: configs/targets/NAME.ini)
#   make test       unit tests (plain + ASan/UBSan) and integration tests
#   make overhead   boot time and harness overhead, smoke suite, 3 runs
#   make kernel     KERNEL=<variant>: build (or find) a source-built kernel
#   make kernel-check  lockdep + locktorture on the patched RT kernel
#   make kbuild-bench  kernel compile in the guest vs natively (emulation cost)
#   make bench-kexec   [N=3] kexec to agent on the lab machine vs QEMU's boot
#   make timing-bench  [TB_K=2]  wall and instructions timing side by side
#                      (docs/timing.md): CV, mde at n = 5, wall cost
#   make boot-study    [N=100] [CONFIGS="multi:max single:max multi:qemu64"] [LOAD=0|1]
#                      boot oopses under TCG: N boots per QEMU configuration
#   make text-poke-study [N=100] [FLIPS=20] [QEMU=...]  the same oops on purpose:
#                      tracepoints flipped under load, per QEMU configuration
#   make fuzz       every parser under libFuzzer, FUZZ_SECONDS each (clang)

CC      ?= gcc
O       ?= build
CFLAGS  ?= -O2 -g
# -Wno-format-truncation: paths are bounded by KB_PATH_MAX and cache_root()
# refuses roots long enough to truncate; gcc cannot see that.
KB_CFLAGS = -std=c11 -D_GNU_SOURCE -Iharness -I. -Wall -Wextra -Werror -Wno-format-truncation -MMD -MP
LIBS    = -ljson-c -linih -lgsl -lgslcblas -lcrypto -lsqlite3 -lyaml -lcurl -lm
SAN     = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

# the local backend measures the running kernel unless told a variant
ifeq ($(BACKEND),local)
KERNEL     ?= running
SUITE      ?= local
endif
# the ssh backend has no kernel compile either (no toolchain share)
ifeq ($(BACKEND),ssh)
SUITE      ?= local
endif
KERNEL     ?= rt-stock
SUITE      ?= quick
ITERATIONS ?=
KB_ARGS    ?=
# where runs go: make bench, compare and nightly
WHERE_ARGS = $(if $(BACKEND),--backend '$(BACKEND)') $(if $(SCRATCH),--scratch '$(SCRATCH)') $(if $(TARGET),--target '$(TARGET)')

VERSION := $(shell cat VERSION 2>/dev/null || echo 0.0.0)
GIT_COMMIT := $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
DEFS = -DKB_VERSION='"$(VERSION)"' -DKB_GIT_COMMIT='"$(GIT_COMMIT)"' \
       -DKB_SRCDIR='"$(CURDIR)"'

# every layer's sources (harness/<layer>/*.c, docs/architecture.md) but the
# command's main and the guest agent, which link on their own
LIB_SRC   = $(filter-out harness/cli/kbench.c harness/agent/%,$(wildcard harness/*/*.c)) \
            $(wildcard workloads/*.c)
LIB_OBJ   = $(LIB_SRC:%.c=$(O)/obj/%.o)
SAN_OBJ   = $(LIB_SRC:%.c=$(O)/san/%.o)
TEST_SRC  = $(wildcard tests/unit/test_*.c)
TESTS     = $(TEST_SRC:tests/unit/%.c=$(O)/tests/%)
SAN_TESTS = $(TEST_SRC:tests/unit/%.c=$(O)/tests-san/%)

all: kbench $(O)/kbench-agent

kbench: $(O)/obj/harness/cli/kbench.o $(LIB_OBJ)
	$(CC) $(CFLAGS) -o $@ $^ $(LIBS)

# The guest agent is static: the initramfs carries it without libraries.
$(O)/kbench-agent: harness/agent/agent.c harness/agent/proto.h harness/core/machine.c harness/core/machine.h \
		  harness/core/b64.c harness/core/b64.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(KB_CFLAGS) -static -o $@ harness/agent/agent.c harness/core/machine.c harness/core/b64.c \
		-ljson-c -lmd -lm

$(O)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(KB_CFLAGS) $(DEFS) -c -o $@ $<

$(O)/san/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SAN) $(KB_CFLAGS) $(DEFS) -c -o $@ $<

$(O)/tests/%: tests/unit/%.c $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(KB_CFLAGS) $(DEFS) -o $@ $(filter %.c %.o,$^) $(LIBS) -lcmocka

$(O)/tests-san/%: tests/unit/%.c $(SAN_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SAN) $(KB_CFLAGS) $(DEFS) -o $@ $(filter %.c %.o,$^) $(LIBS) -lcmocka

# objects are real targets, not intermediates to delete
.SECONDARY:

deps:
	@sh harness/deps.sh

bench: deps all
	./kbench run --kernel '$(KERNEL)' --suite '$(SUITE)' $(if $(ITERATIONS),--iterations '$(ITERATIONS)') $(WHERE_ARGS) $(KB_ARGS)

overhead: deps all
	./kbench overhead --kernel '$(KERNEL)' --suite smoke --runs 3

# Build (or find in the cache) one kernel variant.
kernel: deps all
	./kbench build '$(KERNEL)'

# Lockdep + locktorture on the patched RT kernel in every lock mode
# (about 40 minutes under TCG; KCHECK_SECONDS=300 per mode and type).
kernel-check: deps all
	sh tests/check/kernel-check.sh

# Build times of the patched test kernel: clean, touched, cache hit.
kernel-bench: deps all
	sh tests/check/kernel-bench.sh

# A kernel compile in the guest against the same build natively (ratio).
kbuild-bench: deps all
	sh tests/check/kbuild-bench.sh

# kexec-to-agent-ready on the lab machine beside QEMU's direct boot
# (tests/check/kexec-bench.sh; N=3 boots each, KERNEL=mainline-stock).
bench-kexec: deps all
	sh tests/check/kexec-bench.sh

# How often a stock kernel's boot oopses under TCG in each QEMU
# configuration, THREAD:CPU (-accel tcg,thread=THREAD -cpu CPU), N boots
# each without retry (tests/check/boot-oops.sh; KERNELS=mainline-stock,
# LOAD=1: busy shell loops beside; docs/reliability.md "Boot oops under
# TCG"). About 15-20 minutes per 100 boots on an idle 2-core host.
boot-study: deps all
	sh tests/check/boot-oops.sh
.PHONY: boot-study

# The boot oop's race made to happen on purpose: a busybox guest enables
# and disables the scheduler's tracepoints FLIPS times a boot while both
# vCPUs switch tasks; oopses counted per QEMU configuration, N boots each
# (tests/check/text-poke.sh; QEMU=/path/to/qemu-system-x86_64 to try
# another QEMU; docs/reliability.md "Boot oops under TCG"). 10-40 minutes
# per 100 boots.
text-poke-study: deps all
	sh tests/check/text-poke.sh
.PHONY: text-poke-study

# The commit that made a metric worse (docs/bisect.md):
#   make bisect TREE=~/linux GOOD=v6.12 BAD=HEAD [KERNEL=plain] [SUITE=quick]
#        [METRIC=hackbench.time] [THRESHOLD=5%] [ITERATIONS=5] [KB_ARGS=...]
bisect: deps all
	./kbench bisect --tree '$(TREE)' --good '$(GOOD)' --bad '$(BAD)' --variant '$(KERNEL)' --suite '$(SUITE)' --metric '$(or $(METRIC),hackbench.time)' --threshold '$(or $(THRESHOLD),5%)' $(if $(ITERATIONS),--iterations '$(ITERATIONS)') $(KB_ARGS)

# kbench bisect on a synthetic 6-commit kernel history (too slow for make test)
bisect-test: deps all
	@sh harness/deps.sh test
	sh tests/check/bisect.sh


unit: $(TESTS) $(SAN_TESTS)

# Synthetic results.json fixtures for the history, nightly and merge tests.
$(O)/synth-runs: tests/tools/synth_runs.c tests/unit/synth.h $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(KB_CFLAGS) $(DEFS) -o $@ $< $(LIB_OBJ) $(LIBS)

# A synthetic history of 10 hosts x 4 variants x 3 years, then the time of
# one more night and of kbench history trends (docs/nightly.md).
$(O)/nightly-bench-seed: tests/tools/nightly_bench_seed.c tests/unit/synth.h $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(KB_CFLAGS) $(DEFS) -o $@ $< $(LIB_OBJ) $(LIBS)

nightly-bench: all $(O)/synth-runs $(O)/nightly-bench-seed
	sh tests/check/nightly-bench.sh

# make test times itself from its start (tests/time-budget): the packages,
# the build (in parallel, one job a core), then tests/run.sh
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
test:
	@t0=$$(date +%s); \
	sh harness/deps.sh && sh harness/deps.sh test && \
	$(MAKE) --no-print-directory -j$(JOBS) all unit $(O)/synth-runs $(O)/nightly-bench-seed && \
	sh tests/run.sh --budget tests/time-budget --since $$t0 $(TESTS) $(SAN_TESTS)

clean:
	rm -rf $(O) kbench

.PHONY: bisect bisect-test all deps bench bench-kexec overhead kernel kernel-check kernel-bench kbuild-bench nightly-bench unit test clean

# Fuzzing (issue 5): one libFuzzer binary per parser of untrusted input
# (fuzz/targets.c), built with Debian's clang (`sh harness/deps.sh fuzz`).
#   make fuzz          FUZZ_SECONDS=60 per target [FUZZ_TARGETS="proto config"]
#   make fuzz-regress  replay fuzz/corpus and tests/fixtures/fuzz (seconds)
FUZZ_CC      ?= clang-14
FUZZ_SECONDS ?= 60
# derived from the target list (fuzz/targets.c: the workloads, then the rest)
FUZZ_NAMES   := $(shell sed -n 's/^WORKLOAD(\([a-z0-9_]*\))$$/\1/p' workloads/list.h) \
                $(shell sed -n 's/^\t{ "\([a-z0-9_]*\)", fuzz_[a-z0-9_]* },$$/\1/p' fuzz/targets.c)
FUZZ_TARGETS ?= $(FUZZ_NAMES)
FUZZ_SAN      = -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS   = -g -O1 -std=c11 -D_GNU_SOURCE -Iharness -I. -Wall -Wextra -Werror -MMD -MP $(FUZZ_SAN)
FUZZ_OBJ      = $(LIB_SRC:%.c=$(O)/fuzz/obj/%.o) $(O)/fuzz/obj/fuzz/targets.o
FUZZ_BINS     = $(FUZZ_NAMES:%=$(O)/fuzz/bin/%)

$(O)/fuzz/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link $(DEFS) -c -o $@ $<

# a static pattern: build/fuzz/bin/x.d (from -MMD) is not a target to make
$(FUZZ_BINS): $(O)/fuzz/bin/%: fuzz/main.c $(FUZZ_OBJ)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -DFUZZ_TARGET='"$*"' -o $@ $< $(FUZZ_OBJ) $(LIBS)

fuzz-build: $(FUZZ_BINS)

fuzz:
	@sh harness/deps.sh fuzz
	@$(MAKE) -s fuzz-build
	@sh fuzz/run.sh fuzz $(FUZZ_SECONDS) $(FUZZ_TARGETS)

fuzz-regress:
	@if sh fuzz/run.sh have-clang $(FUZZ_CC); then \
		$(MAKE) -s fuzz-build && sh fuzz/run.sh regress 0 $(FUZZ_NAMES); \
	else \
		echo "fuzz-regress: SKIP: no $(FUZZ_CC) with libFuzzer (sh harness/deps.sh fuzz);" \
		     "test_fuzz replays the same inputs in the gcc builds"; \
		if [ -n "$$CI" ] || [ "$$KBENCH_TEST_STRICT" = 1 ]; then \
			echo "fuzz-regress: FAIL: strict (CI or KBENCH_TEST_STRICT=1): not skipped"; exit 1; \
		fi; \
	fi

fuzz-names:
	@echo $(FUZZ_NAMES)

# the gcc-built replay of the corpora and crash fixtures
$(O)/tests/test_fuzz $(O)/tests-san/test_fuzz: fuzz/targets.c

.PHONY: fuzz fuzz-build fuzz-regress fuzz-names

-include $(shell find $(O) -name '*.d' 2>/dev/null)

# Comparisons (issue 4):
#   make compare       KERNELS="mainline-stock rt-stock" [SUITE=quick] [ITERATIONS=5]
#                      [BACKEND=ssh TARGET=NAME] (as make bench)
#                      (default KERNELS: every variant whose kernel can be had)
#   make report-bench  time comparison + report for 4 variants x 4 workloads x 10 iterations
KERNELS ?=

compare: deps all
	./kbench campaign $(if $(KERNELS),--kernels '$(KERNELS)') --suite '$(SUITE)' $(if $(ITERATIONS),--iterations '$(ITERATIONS)') $(WHERE_ARGS) $(KB_ARGS)

$(O)/report-bench: tests/bench/report_bench.c $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(KB_CFLAGS) $(DEFS) -o $@ $< $(LIB_OBJ) $(LIBS)

report-bench: $(O)/report-bench
	$(O)/report-bench

.PHONY: compare report-bench

# Nightly regression runs (issue 6; docs/nightly.md):
#   make nightly [NIGHTLY_CONFIG=configs/nightly.ini] [KB_ARGS="--iterations 1 ..."]
#                [BACKEND=ssh TARGET=NAME] (as make bench)
#   kbench nightly exits with kbench regress's status (0 ok, 1 regression, 2 error,
#   3 too noisy); make fails on any but 0 and names it: "Error 1" (make itself exits 2)
NIGHTLY_CONFIG ?= configs/nightly.ini

nightly: deps all
	./kbench nightly --config '$(NIGHTLY_CONFIG)' $(WHERE_ARGS) $(KB_ARGS)

.PHONY: nightly

# The default knob sweep (docs/sweep.md): rt-adaptive's spin bound over six
# decades and lateral steal off and on, 12 points x SWEEP_ROUNDS rounds of
# configs/suites/sweep.ini, interleaved; REPORTS/sweep/ID/sweep.html.
# Not measured end to end: about 1-2 min per run under TCG, so some 2-3
# hours at 8 rounds, plus the first build of rt-adaptive (10-20 min).
SWEEP_KERNEL ?= rt-adaptive
SWEEP_ROUNDS ?= 8
sweep: deps all
	./kbench sweep --kernel '$(SWEEP_KERNEL)' --param rtmutex.spin_max_loops=0,10,100,1000,10000,100000 \
		--param rtmutex.lateral_steal=0,1 --suite sweep --rounds '$(SWEEP_ROUNDS)' $(KB_ARGS)

.PHONY: sweep

# The 2008 table side by side (docs/comparison.md): mainline, rt and
# rt-adaptive (same tree, same base config) interleaved, SEED_ROUNDS
# rounds of configs/suites/seed.ini; report.html opens with the table.
# Not run at full size yet (three defconfig builds, then ~3 min a run).
SEED_ROUNDS ?= 8
seed: deps all
	./kbench campaign --kernels 'mainline rt rt-adaptive' --baseline mainline --suite seed \
		--iterations '$(SEED_ROUNDS)' $(KB_ARGS)

.PHONY: seed

# The dbench study (docs/comparison.md): campaigns of the seed trio across
# filesystems, vCPUs and clients, tabulated with lock counters
# (STUDY_ARGS: tests/tools/dbench_study.sh's options).
dbench-study: deps all
	sh tests/tools/dbench_study.sh $(STUDY_ARGS)

.PHONY: dbench-study

# The A/A false-call rate (docs/comparison.md): AA_K campaigns of one stock
# kernel as two variants, how often compare/regress call a difference.
# Not in make test; measure on an idle host.
AA_K ?= 5
aa: deps all
	sh tests/tools/aa.sh -k '$(AA_K)' $(AA_ARGS)

.PHONY: aa

# Wall timing and instructions timing side by side (docs/timing.md): the
# A/A benchmark in both modes, then instructions timing on a busy host;
# CV between boots, mde at n = 5, false calls and wall time per iteration.
# About 30 minutes; measure on an idle host. Not in make test.
TB_K ?= 2
timing-bench: deps all
	sh tests/tools/timing-bench.sh -k '$(TB_K)' $(TB_ARGS)

.PHONY: timing-bench
