# SPDX-License-Identifier: MIT
# libFuzzer builds and runs of the fuzz targets (GNU make + clang).
#
# Needs no configure. From a configured build directory 'make fuzz' (and
# fuzz-build, fuzz-merge, fuzz-seeds) runs this with FUZZ_OUT=./fuzz-out;
# from anywhere else:
#
#   make -f /path/to/tests/fuzz/fuzz.mk [GOAL] [FUZZ_OUT=dir] [FUZZ_SECONDS=N]
#
# Goals:
#   fuzz-build   build every target into $(FUZZ_OUT)/bin (the default goal)
#   fuzz         run every target for FUZZ_SECONDS seconds (default 60) and
#                fail on any finding; 'make -j2 fuzz' runs two at once
#   fuzz-NAME    run one target (fuzz-decode, fuzz-names, ...)
#   fuzz-merge   minimise the committed and the accumulated corpus of each
#                target into tests/fuzz/corpus/NAME (named seeds stay;
#                commit what it changed)
#   fuzz-long    a campaign: every target FUZZ_LONG_SECONDS (default 3600)
#                with FUZZ_JOBS (default 2) libFuzzer jobs, then fuzz-merge
#                and fuzz-totals; its runs go into the committed ledger
#                tests/fuzz/ledger (commit it with the merged corpus)
#   fuzz-until   runs of FUZZ_SECONDS per target until the committed ledger
#                counts FUZZ_UNTIL (default 100 M) executions of it
#   fuzz-totals  executions, time and last coverage per target over every
#                run in FUZZ_LEDGER (default $(FUZZ_OUT)/ledger; the
#                project's campaigns: FUZZ_LEDGER=tests/fuzz/ledger)
#   fuzz-speed   steady-state executions per CPU second of each target
#                (FUZZ_SPEED_RUNS runs after the committed corpus's first
#                pass, whose CPU time a -runs=0 pass measures and takes
#                off; fixed seed): a measure that does not depend on the
#                machine's load
#   fuzz-coverage  line/branch coverage of the code under test by the corpora,
#                and $(FUZZ_OUT)/cov/unreached.txt: per file, the functions
#                and lines no input reaches (needs llvm-14 for
#                llvm-profdata-14 and llvm-cov-14)
#   fuzz-seeds   regenerate the committed seeds in tests/fuzz/corpus/
#
# A run resumes from its corpus in $(FUZZ_OUT)/corpus/NAME (so long
# campaigns accumulate) plus the committed seeds and regressions. Findings
# land in $(FUZZ_OUT)/artifacts/NAME/: each becomes a file in
# tests/fuzz/regress/NAME/ (replayed by 'make check') and a decoder fix.

top := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))../..)

FUZZ_CC ?= clang-14
FUZZ_OUT ?= fuzz-out
FUZZ_SECONDS ?= 60
# Per-input time limit (s) and extra libFuzzer options (-fork=N, -dict=...).
FUZZ_TIMEOUT ?= 10
FUZZ_FLAGS ?=
# Where each run adds its line (date, target, executions, seconds, last
# coverage, commit, build).
FUZZ_LEDGER ?= $(FUZZ_OUT)/ledger
export FUZZ_LEDGER
# The project's campaigns (fuzz-long, fuzz-until): committed.
FUZZ_CAMPAIGN_LEDGER = $(top)/tests/fuzz/ledger
FUZZ_CFLAGS ?= -g -O1 -fno-omit-frame-pointer
FUZZ_SANITIZE = -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-fsanitize-coverage-ignorelist=$(top)/tests/fuzz/coverage-ignore.txt
# FUZZ_BUILD=campaign: fuzz-NAME, fuzz-long and fuzz-until run the targets
# built at -O2 without ASan/UBSan ($(FUZZ_OUT)/bin-campaign): 3 to 6 times
# the executions per CPU second (fuzz-speed), so that campaigns reach their
# 100 M executions on two cores. The targets' own oracles still run; what
# the sanitizers would catch is caught by fuzz-merge, which first replays
# every input the campaigns kept through the checked build ($(FUZZ_OUT)/bin,
# ASan + UBSan) and fails on a finding. The smoke run (tests/run, 'make
# fuzz') stays on the checked build.
FUZZ_BUILD ?= checked
export FUZZ_BUILD
FUZZ_CAMPAIGN_CFLAGS = -g -O2
FUZZ_CAMPAIGN_SANITIZE = -fsanitize=fuzzer \
	-fsanitize-coverage-ignorelist=$(top)/tests/fuzz/coverage-ignore.txt
FUZZ_RUN_DIR = $(FUZZ_OUT)/$(if $(filter campaign,$(FUZZ_BUILD)),bin-campaign,bin)
# run-target and speed-target take their binaries from here
export FUZZ_BIN_DIR = $(FUZZ_RUN_DIR)
FUZZ_WARN = -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	-Wformat=2 -Wvla

# --- the targets: tests/fuzz/fuzz_NAME.c, one line each -------------------
# fuzz_NAME_SRC: what the target links besides its own file; NAME_MAX_LEN:
# its largest input.
# The decoder: every source of the base and of the format, engine,
# appldata and records layers (a new record file needs no line here).
DECODER_SRC = $(patsubst $(top)/%,%,$(sort $(wildcard $(top)/base/*.c \
	$(top)/plugin/format/*.c $(top)/plugin/engine/*.c \
	$(top)/plugin/appldata/*.c $(top)/plugin/records/*.c)))
MAPPER_SRC = plugin/config/conf.c $(patsubst $(top)/%,%,$(sort $(wildcard \
	$(top)/plugin/mapper/*.c)))
fuzz_decode_SRC = $(DECODER_SRC)
decode_MAX_LEN = 12288
fuzz_names_SRC = $(DECODER_SRC)
names_MAX_LEN = 64
# Set assembly through the reader's fake I/O; built once plugin/io/reader.c
# exists (branch reader).
fuzz_reader_SRC = $(DECODER_SRC) plugin/io/reader.c plugin/io/reader_advice.c
reader_MAX_LEN = 16384
# The capture-file reader (pcapng) on damaged and hostile files.
fuzz_capture_SRC = plugin/io/capture.c base/util.c
capture_MAX_LEN = 65536
# One domain 10 (APPLDATA) record: decoder, names, the engine and mapper.
fuzz_appldata_SRC = $(DECODER_SRC) $(MAPPER_SRC)
appldata_MAX_LEN = 4200
# The record engine and mapper: hostile sets to values (both shapes, a
# run-time descriptor).
fuzz_mapper_SRC = $(DECODER_SRC) $(MAPPER_SRC)
mapper_MAX_LEN = 12288
# <Record> blocks from config text (plugin/config/recconf_text.c), then a data set.
fuzz_records_SRC = $(DECODER_SRC) $(MAPPER_SRC) plugin/config/recconf.c \
	plugin/config/recconf_text.c
records_MAX_LEN = 8192
# The dmstats plugin's @stats_print parser (needs libdevmapper's header,
# libdevmapper-dev): flags, areas, the kernel's answer.
fuzz_dmstats_print_SRC = dmstats/parse.c
dmstats_print_MAX_LEN = 8192

# The hypfs plugin's debugfs files (diag_2fc, diag_204): decoder and mapping.
HYPFS_SRC = hypfs/decode.c hypfs/conf.c hypfs/map.c hypfs/source.c hypfs/values.c \
	plugin/format/ebcdic.c base/util.c base/option.c base/select.c
fuzz_hypfs_2fc_SRC = $(HYPFS_SRC)
hypfs_2fc_MAX_LEN = 65536
fuzz_hypfs_204_SRC = $(HYPFS_SRC)
hypfs_204_MAX_LEN = 16384

# The options (plugin/config/conf.c), any order, kind and value.
fuzz_conf_SRC = $(DECODER_SRC) plugin/config/conf.c
conf_MAX_LEN = 2048

# The reader's device identification (zvm_reader_identify): fstat, the
# sysfs uevent and misc dev texts, hostile.
fuzz_uevent_SRC = plugin/io/reader.c plugin/io/reader_advice.c base/util.c
uevent_MAX_LEN = 1024

# zvm-monitor-record's page parser and mapping (tools/), its blocks through
# the <Record> parser.
fuzz_recpage_SRC = $(DECODER_SRC) plugin/config/recconf.c \
	plugin/config/recconf_text.c tools/recpage.c tools/recmap.c \
	tools/recbuiltin.c
recpage_MAX_LEN = 65536

FUZZ_TARGETS ?= decode names mapper records appldata recpage \
	$(if $(wildcard $(top)/plugin/io/reader.c),reader) capture dmstats_print \
	hypfs_2fc hypfs_204 conf
FUZZ_TARGETS += $(if $(wildcard $(top)/plugin/io/reader.c),uevent)
# ---------------------------------------------------------------------------

FUZZ_BINS = $(addprefix $(FUZZ_OUT)/bin/fuzz_,$(FUZZ_TARGETS))
FUZZ_CAMPAIGN_BINS = $(addprefix $(FUZZ_OUT)/bin-campaign/fuzz_,$(FUZZ_TARGETS))
FUZZ_RUN_BINS = $(addprefix $(FUZZ_RUN_DIR)/fuzz_,$(FUZZ_TARGETS))
FUZZ_RUNS = $(addprefix fuzz-,$(FUZZ_TARGETS))
FUZZ_HEADERS = $(wildcard $(top)/include/zvm_monitor/*.h $(top)/plugin/*/*.h) \
	$(wildcard $(top)/include/dmstats/*.h $(top)/include/hypfs/*.h) \
	$(wildcard $(top)/tests/unit/support/*.h) \
	$(top)/tests/fuzz/fuzz.h $(top)/tests/fuzz/coverage-ignore.txt

.PHONY: fuzz-build fuzz fuzz-merge fuzz-seeds fuzz-long fuzz-totals fuzz-speed \
	$(FUZZ_RUNS)

fuzz-build: $(FUZZ_BINS) $(FUZZ_RUN_BINS)

# fuzz_compile FLAGS: the recipe line of the target $@ (fuzz_NAME) from its
# file $< and what it links, with FLAGS (checked, campaign and coverage
# builds).
fuzz_compile = $(FUZZ_CC) $(1) $(FUZZ_WARN) -I$(top)/include -I$(top)/plugin \
	-I$(top)/tests -I$(top)/tests/unit/support -o $@ $< $(addprefix $(top)/,$(fuzz_$*_SRC))

.SECONDEXPANSION:
$(FUZZ_BINS): $(FUZZ_OUT)/bin/fuzz_%: $(top)/tests/fuzz/fuzz_%.c \
		$$(addprefix $(top)/,$$(fuzz_$$*_SRC)) $(FUZZ_HEADERS)
	@mkdir -p $(@D)
	@echo "  FUZZCC   $@"
	@$(call fuzz_compile,$(FUZZ_CFLAGS) $(FUZZ_SANITIZE))

$(FUZZ_CAMPAIGN_BINS): $(FUZZ_OUT)/bin-campaign/fuzz_%: $(top)/tests/fuzz/fuzz_%.c \
		$$(addprefix $(top)/,$$(fuzz_$$*_SRC)) $(FUZZ_HEADERS)
	@mkdir -p $(@D)
	@echo "  FUZZCC   $@ (campaign build)"
	@$(call fuzz_compile,$(FUZZ_CAMPAIGN_CFLAGS) $(FUZZ_CAMPAIGN_SANITIZE))

fuzz: $(FUZZ_RUNS)

# run_target NAME: one run of fuzz_NAME for FUZZ_SECONDS (tests/fuzz/run-target),
# with tests/fuzz/NAME.dict as its libFuzzer dictionary where there is one
# (the keywords of a text input).
run_target = $(SHELL) $(top)/tests/fuzz/run-target $(top) $(FUZZ_OUT) $(1) \
	$(FUZZ_SECONDS) -max_len=$($(1)_MAX_LEN) -timeout=$(FUZZ_TIMEOUT) \
	$(addprefix -dict=,$(wildcard $(top)/tests/fuzz/$(1).dict)) $(FUZZ_FLAGS)

$(FUZZ_RUNS): fuzz-%: $(FUZZ_RUN_DIR)/fuzz_%
	@$(call run_target,$*)

FUZZ_MERGES = $(addprefix fuzz-merge-,$(FUZZ_TARGETS))
.PHONY: $(FUZZ_MERGES)
fuzz-merge: $(FUZZ_MERGES)

$(FUZZ_MERGES): fuzz-merge-%: $(FUZZ_OUT)/bin/fuzz_%
	@rm -rf $(FUZZ_OUT)/merged/$*
	@mkdir -p $(FUZZ_OUT)/merged/$* $(FUZZ_OUT)/corpus/$* $(FUZZ_OUT)/artifacts/$*
	@# every input once through the checked build (-runs=0 stops at the
	@# first finding; -merge=1 would step over it)
	@$< -runs=0 -max_len=$($*_MAX_LEN) -artifact_prefix=$(FUZZ_OUT)/artifacts/$*/ \
		$(FUZZ_OUT)/corpus/$* $(top)/tests/fuzz/corpus/$* \
		>$(FUZZ_OUT)/replay_$*.log 2>&1 || { tail -n 40 $(FUZZ_OUT)/replay_$*.log; \
		echo "fuzz_$*: FINDING in the checked build (ASan/UBSan); reproducer in $(FUZZ_OUT)/artifacts/$*/"; exit 1; }
	@$< -merge=1 -max_len=$($*_MAX_LEN) $(FUZZ_OUT)/merged/$* \
		$(top)/tests/fuzz/corpus/$* $(FUZZ_OUT)/corpus/$* \
		>$(FUZZ_OUT)/merge_$*.log 2>&1 || { tail -n 30 $(FUZZ_OUT)/merge_$*.log; exit 1; }
	@$(SHELL) $(top)/tests/fuzz/sync-corpus $(FUZZ_OUT)/merged/$* \
		$(top)/tests/fuzz/corpus/$*

FUZZ_LONG_SECONDS ?= 3600
FUZZ_JOBS ?= 2
fuzz-long:
	@$(MAKE) --no-print-directory -f $(top)/tests/fuzz/fuzz.mk \
		FUZZ_OUT=$(FUZZ_OUT) FUZZ_SECONDS=$(FUZZ_LONG_SECONDS) \
		FUZZ_LEDGER=$(FUZZ_CAMPAIGN_LEDGER) \
		FUZZ_FLAGS="-fork=$(FUZZ_JOBS) $(FUZZ_FLAGS)" fuzz
	@$(MAKE) --no-print-directory -f $(top)/tests/fuzz/fuzz.mk \
		FUZZ_OUT=$(FUZZ_OUT) FUZZ_LEDGER=$(FUZZ_CAMPAIGN_LEDGER) \
		fuzz-merge fuzz-totals

fuzz-totals:
	@mkdir -p $(dir $(FUZZ_LEDGER)) && touch $(FUZZ_LEDGER)
	@for t in $(FUZZ_TARGETS); do \
	  awk -v t=$$t '$$2 == t { b = NF >= 7 ? $$7 : "checked"; \
	      runs += $$3; secs += $$4; n++; by[b] += $$3; cov[b] = $$5 } \
	    END { printf "fuzz_%s: %d executions in %d runs, %d s", t, runs, n, secs; \
	      for (b in by) printf "; %s build %d, last coverage %s", b, by[b], cov[b]; \
	      printf "\n" }' $(FUZZ_LEDGER); \
	done

FUZZ_SPEED_RUNS ?= 50000
FUZZ_SPEEDS = $(addprefix fuzz-speed-,$(FUZZ_TARGETS))
.PHONY: $(FUZZ_SPEEDS)
fuzz-speed: $(FUZZ_SPEEDS)
$(FUZZ_SPEEDS): fuzz-speed-%: $(FUZZ_RUN_DIR)/fuzz_%
	@$(SHELL) $(top)/tests/fuzz/speed-target $(top) $(FUZZ_OUT) $* \
		$(FUZZ_SPEED_RUNS) -max_len=$($*_MAX_LEN) -timeout=$(FUZZ_TIMEOUT)

FUZZ_LLVM_SUFFIX ?= -14
FUZZ_COVS = $(addprefix $(FUZZ_OUT)/cov/fuzz_,$(FUZZ_TARGETS))
.PHONY: fuzz-coverage
fuzz-coverage: $(FUZZ_COVS)
	@rm -f $(FUZZ_OUT)/cov/*.profraw
	@for t in $(FUZZ_TARGETS); do \
	  mkdir -p $(FUZZ_OUT)/corpus/$$t; \
	  LLVM_PROFILE_FILE=$(FUZZ_OUT)/cov/$$t.profraw \
	    $(FUZZ_OUT)/cov/fuzz_$$t -runs=0 $(FUZZ_OUT)/corpus/$$t \
	    $(top)/tests/fuzz/corpus/$$t >$(FUZZ_OUT)/cov/$$t.log 2>&1 || exit 1; \
	done
	@llvm-profdata$(FUZZ_LLVM_SUFFIX) merge -o $(FUZZ_OUT)/cov/all.profdata \
		$(FUZZ_OUT)/cov/*.profraw
	@llvm-cov$(FUZZ_LLVM_SUFFIX) report $(firstword $(FUZZ_COVS)) \
		$(addprefix -object ,$(wordlist 2,99,$(FUZZ_COVS))) \
		-instr-profile=$(FUZZ_OUT)/cov/all.profdata \
		$(sort $(addprefix $(top)/,$(foreach t,$(FUZZ_TARGETS),$(fuzz_$(t)_SRC)))) \
		$(wildcard $(top)/include/zvm_monitor/*.h $(top)/plugin/*/*.h)
	@llvm-cov$(FUZZ_LLVM_SUFFIX) export -format=lcov $(firstword $(FUZZ_COVS)) \
		$(addprefix -object ,$(wordlist 2,99,$(FUZZ_COVS))) \
		-instr-profile=$(FUZZ_OUT)/cov/all.profdata \
		$(sort $(addprefix $(top)/,$(foreach t,$(FUZZ_TARGETS),$(fuzz_$(t)_SRC)))) \
		>$(FUZZ_OUT)/cov/all.lcov
	@awk -f $(top)/tests/fuzz/unreached.awk $(FUZZ_OUT)/cov/all.lcov \
		>$(FUZZ_OUT)/cov/unreached.txt
	@echo "what no corpus input reaches: $(FUZZ_OUT)/cov/unreached.txt (`grep -c 'functions no input' $(FUZZ_OUT)/cov/unreached.txt` files with functions never entered)"
	@echo "line by line: llvm-cov$(FUZZ_LLVM_SUFFIX) show $(FUZZ_OUT)/cov/fuzz_NAME -instr-profile=$(FUZZ_OUT)/cov/all.profdata FILE"

$(FUZZ_COVS): $(FUZZ_OUT)/cov/fuzz_%: $(top)/tests/fuzz/fuzz_%.c \
		$$(addprefix $(top)/,$$(fuzz_$$*_SRC)) $(FUZZ_HEADERS)
	@mkdir -p $(@D)
	@echo "  COVCC    $@"
	@$(call fuzz_compile,-g -O0 -fprofile-instr-generate -fcoverage-mapping -fsanitize=fuzzer)

fuzz-seeds:
	@mkdir -p $(FUZZ_OUT)
	$(FUZZ_CC) -g -I$(top)/tests/rig -o $(FUZZ_OUT)/make-seeds \
		$(top)/tests/fuzz/make-seeds.c $(top)/tests/rig/builder.c \
		$(top)/tests/rig/mcewrite.c
	mkdir -p $(top)/tests/fuzz/corpus
	$(FUZZ_OUT)/make-seeds $(top)/tests/fuzz/corpus

# A campaign by executions: each target in runs of FUZZ_SECONDS until the
# committed ledger (tests/fuzz/ledger) counts FUZZ_UNTIL executions of it;
# then fuzz-merge. Resumable: a target already there is not run again.
FUZZ_UNTIL ?= 100000000
FUZZ_UNTILS = $(addprefix fuzz-until-,$(FUZZ_TARGETS))
.PHONY: fuzz-until $(FUZZ_UNTILS)
fuzz-until: $(FUZZ_UNTILS)
$(FUZZ_UNTILS): fuzz-until-%: $(FUZZ_RUN_DIR)/fuzz_% $(FUZZ_OUT)/bin/fuzz_%
	@while total=$$(awk -v t=$* '$$2 == t { s += $$3 } END { printf "%.0f", s }' \
	    $(FUZZ_CAMPAIGN_LEDGER)); [ "$$total" -lt $(FUZZ_UNTIL) ]; do \
	  echo "fuzz_$*: $$total of $(FUZZ_UNTIL) executions"; \
	  FUZZ_LEDGER=$(FUZZ_CAMPAIGN_LEDGER) $(call run_target,$*) || exit 1; \
	done; echo "fuzz_$*: $$total executions in the ledger"
	@$(MAKE) --no-print-directory -f $(top)/tests/fuzz/fuzz.mk \
		FUZZ_OUT=$(FUZZ_OUT) fuzz-merge-$*
