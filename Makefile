# heapsift: one non-recursive Makefile.
#
#   make              build ./heapsift (objects under build/)
#   make test         unit, golden and CLI tests; last line "N passed, N failed,
#                     N skipped" (CI=true or HS_NO_SKIPS=1: a skip fails)
#   make check        the same suite under ASan+UBSan, built in build-check/
#   make install      PREFIX=/usr/local, DESTDIR supported; make uninstall
#                     (the binary, the man page, the agent, and the bash and
#                     zsh completions written by `heapsift completion`)
#
# build/libheapsift-agent.so, the JVMTI agent, is built too when the
# JDK's jvmti.h is found (JDK_INCLUDE; see below), and skipped with a
# notice when it is not.
#   make format-check clang-format dry run over the sources
#   make golden-update rewrite tests/golden/*.expected from the current binary
#   make mutate       the mutation check (tests/mutate/mutations; not in CI);
#                     ONLY="name ..." runs a subset
#   make bench        heapsift against the JDK's jfr on a large recording;
#                     the fleet lake of 10,000 recordings in DuckDB
#   make coverage     make test on a --coverage build (build-cov/), then line
#                     and branch coverage per module (build-aux/coverage.py)
#   make fuzz         the libFuzzer harnesses (clang), FUZZ_TIME seconds each;
#                     make fuzz-campaign, make fuzz-minimize (see below)
#
# The first build runs build-aux/deps.sh, which installs missing Debian
# packages (as root, or through sudo) and does nothing when all are there.

VERSION := 0.1.0
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
MANDIR ?= $(PREFIX)/share/man
# where bash-completion (its completionsdir) and zsh (its $fpath) look
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/site-functions
DESTDIR ?=

BUILD ?= build
BIN ?= heapsift
CC ?= cc
SAN ?=

PKGS := ncursesw libarchive libpcre2-8 libprotobuf-c zlib

WARN := -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wvla \
	-Wmissing-prototypes -Wstrict-prototypes -Wimplicit-fallthrough
CFLAGS ?= -O2 -g
HS_CFLAGS = -std=c11 $(WARN) -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 \
	-Isrc -I. -I$(BUILD)/gen -MMD -MP $(PKG_CFLAGS) $(SAN) \
	-DHS_VERSION='"$(VERSION)"' -DHS_LIBDIR='"$(LIBDIR)"'
HS_LDFLAGS = $(SAN) $(LDFLAGS)
# DL_LIBS: -ldl where dlopen() is not in libc (glibc before 2.34), for
# the libraries loaded at run time (src/export/duckdb_dl.c); config.mk
# says so.
HS_LIBS = $(PKG_LIBS) $(DL_LIBS) -lpthread -lm

# pkg-config is asked once, after the dependencies are installed, and the
# compiler whether dlopen() links without -ldl; make re-reads itself once
# config.mk exists.
include $(BUILD)/config.mk
$(BUILD)/config.mk: build-aux/deps.sh
	@mkdir -p $(@D)
	@build-aux/deps.sh build
	@{ echo "PKG_CFLAGS := $$(pkg-config --cflags $(PKGS))"; \
	   echo "PKG_LIBS := $$(pkg-config --libs $(PKGS))"; \
	   printf '#include <dlfcn.h>\nint main(void) { return !dlopen(0, 0); }\n' | \
		$(CC) -x c -o /dev/null - >/dev/null 2>&1 || \
		echo "DL_LIBS := -ldl"; } > $@.tmp
	@mv $@.tmp $@

# Everything but the CLI's main() goes into a static library that the
# binary, the unit tests and (later) the fuzz harnesses link.
LIB_SRC := $(wildcard src/util/*.c src/input/*.c src/store/*.c src/ingest/*.c \
	src/query/*.c src/report/*.c src/export/*.c \
	src/record/*.c src/formats/*/*.c src/importers/*.c src/findings/*.c src/tui/*.c) \
	$(filter-out src/cli/main.c,$(wildcard src/cli/*.c))
MAIN_SRC := src/cli/main.c
UNIT_SRC := $(wildcard tests/unit/*.c)

# pprof's profile.proto (src/formats/pprof/, vendored from the pprof project,
# Apache-2.0) is compiled to C with protoc-c at build time; the generated
# files live under $(BUILD)/gen/ and are never committed.
PROTO_GEN := $(BUILD)/gen/formats/pprof/profile.pb-c
# OpenTelemetry's profiles protos (src/formats/otlp/, vendored from
# Debian's opentelemetry-proto, Apache-2.0) likewise, each file to its own
# .pb-c.{c,h} under $(BUILD)/gen/formats/otlp/, where they include each
# other by their import paths ("opentelemetry/proto/...").
OTLP_GEN_DIR := $(BUILD)/gen/formats/otlp
OTLP_PROTOS := opentelemetry/proto/common/v1/common \
	opentelemetry/proto/resource/v1/resource \
	opentelemetry/proto/profiles/v1development/profiles \
	opentelemetry/proto/collector/profiles/v1development/profiles_service
OTLP_GEN := $(OTLP_PROTOS:%=$(OTLP_GEN_DIR)/%.pb-c)
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o) $(PROTO_GEN).o $(OTLP_GEN:%=%.o)
MAIN_OBJ := $(MAIN_SRC:%.c=$(BUILD)/%.o)
UNIT_OBJ := $(UNIT_SRC:%.c=$(BUILD)/%.o)
LIBHS := $(BUILD)/libheapsift.a
UNIT_BIN := $(BUILD)/unit-tests

.PHONY: all test check unit golden-update install uninstall clean coverage \
	format format-check layering deps-test fuzz fuzz-build fuzz-campaign \
	fuzz-minimize bench agent agent-notice \
	mutate tsan
.DEFAULT_GOAL := all
all: $(BIN) agent

# The JVMTI agent (agent/), a shared library loaded into JVMs.  It
# links nothing of heapsift but the CRC and includes only the format
# header, is built without sanitizers even under `make check` (an ASan
# library cannot be loaded into a java that is not ASan), and exports
# only the Agent_* entry points.  JDK_INCLUDE: the include folder of the
# JDK whose javac is on PATH, else Debian's default-java.
ifeq ($(origin JDK_INCLUDE),undefined)
JDK_INCLUDE := $(shell j=$$(command -v javac 2>/dev/null) && \
	j=$$(readlink -f "$$j") && d=$${j%/bin/javac}/include && \
	[ -f "$$d/jvmti.h" ] && echo "$$d" || echo /usr/lib/jvm/default-java/include)
endif
AGENT := $(BUILD)/libheapsift-agent.so
AGENT_SRC := $(wildcard agent/*.c) src/util/crc32c.c
AGENT_OBJ := $(AGENT_SRC:%.c=$(BUILD)/pic/%.o)
HAVE_JVMTI := $(if $(wildcard $(JDK_INCLUDE)/jvmti.h),1,)
AGENT_CFLAGS = -std=c11 $(WARN) -D_GNU_SOURCE -Isrc -I. -MMD -MP \
	-isystem $(JDK_INCLUDE) -isystem $(JDK_INCLUDE)/linux \
	-fPIC -fvisibility=hidden -O2 -g

ifeq ($(HAVE_JVMTI),1)
agent: $(AGENT)
else
agent: agent-notice
endif
agent-notice:
	@echo "notice: no jvmti.h in $(JDK_INCLUDE) (set JDK_INCLUDE=JDK/include); libheapsift-agent.so is not built"

$(BUILD)/pic/%.o: %.c $(BUILD)/config.mk
	@mkdir -p $(@D)
	$(if $(V),,@echo "  CC      $< (agent)")
	$(Q)$(CC) $(AGENT_CFLAGS) -c -o $@ $<

$(AGENT): $(AGENT_OBJ)
	$(if $(V),,@echo "  LINK    $@")
	$(Q)$(CC) -shared -Wl,-z,defs -Wl,-z,now -o $@ $^ -lpthread

# V=1 shows the full command lines.
Q = $(if $(V),,@)
$(BUILD)/%.o: %.c $(BUILD)/config.mk
	@mkdir -p $(@D)
	$(if $(V),,@echo "  CC      $<")
	$(Q)$(CC) $(HS_CFLAGS) $(CFLAGS) -c -o $@ $<

$(PROTO_GEN).c $(PROTO_GEN).h: src/formats/pprof/profile.proto $(BUILD)/config.mk
	@mkdir -p $(@D)
	$(if $(V),,@echo "  PROTOC  $<")
	$(Q)protoc-c --proto_path=src --c_out=$(BUILD)/gen src/formats/pprof/profile.proto
# generated code: not held to the house warnings
$(PROTO_GEN).o: $(PROTO_GEN).c
	$(if $(V),,@echo "  CC      $<")
	$(Q)$(CC) -std=c11 -D_GNU_SOURCE $(PKG_CFLAGS) $(SAN) $(CFLAGS) \
		-I$(BUILD)/gen -c -o $@ $<
$(BUILD)/src/export/pprof.o: $(PROTO_GEN).h

$(OTLP_GEN_DIR)/%.pb-c.c $(OTLP_GEN_DIR)/%.pb-c.h: src/formats/otlp/%.proto \
		$(BUILD)/config.mk
	@mkdir -p $(OTLP_GEN_DIR)
	$(if $(V),,@echo "  PROTOC  $<")
	$(Q)protoc-c --proto_path=src/formats/otlp --c_out=$(OTLP_GEN_DIR) $<
# generated code: not held to the house warnings
$(OTLP_GEN:%=%.o): %.o: %.c $(OTLP_GEN:%=%.h)
	$(if $(V),,@echo "  CC      $<")
	$(Q)$(CC) -std=c11 -D_GNU_SOURCE $(PKG_CFLAGS) $(SAN) $(CFLAGS) \
		-I$(OTLP_GEN_DIR) -c -o $@ $<
$(BUILD)/src/export/otlp.o: HS_CFLAGS += -I$(OTLP_GEN_DIR)
$(BUILD)/src/export/otlp.o: $(OTLP_GEN:%=%.h)

$(LIBHS): $(LIB_OBJ)
	@rm -f $@
	$(Q)$(AR) rcs $@ $^

$(BIN): $(MAIN_OBJ) $(LIBHS)
	@mkdir -p $(@D)
	$(if $(V),,@echo "  LINK    $@")
	$(Q)$(CC) $(HS_LDFLAGS) -o $@ $^ $(HS_LIBS)

# The unit-test table is generated from the TEST() markers: X(name), or
# Y(name) for a TEST_ON_REQUEST() case (tests/unit/test.h).
$(BUILD)/tests/unit/unit_cases.h: $(UNIT_SRC)
	@mkdir -p $(@D)
	@sed -n -e 's/^TEST(\([A-Za-z0-9_]*\)).*/X(\1)/p' \
		-e 's/^TEST_ON_REQUEST(\([A-Za-z0-9_]*\)).*/Y(\1)/p' \
		$(UNIT_SRC) > $@.tmp
	@mv $@.tmp $@
$(BUILD)/tests/unit/main.o: $(BUILD)/tests/unit/unit_cases.h
$(BUILD)/tests/unit/%.o: HS_CFLAGS += -I$(BUILD)/tests/unit -Itests/unit

$(UNIT_BIN): $(UNIT_OBJ) $(LIBHS)
	$(if $(V),,@echo "  LINK    $@")
	$(Q)$(CC) $(HS_LDFLAGS) -o $@ $^ $(HS_LIBS)

unit: $(UNIT_BIN)

deps-test:
	@build-aux/deps.sh test

test: deps-test $(BIN) $(UNIT_BIN) $(BUILD)/store-bench layering agent
	@HEAPSIFT=$(abspath $(BIN)) UNIT=$(abspath $(UNIT_BIN)) \
		STORE_BENCH=$(abspath $(BUILD)/store-bench) \
		HS_SANITIZED=$(if $(SAN),1,) tests/run

# The threads that share memory while an import runs (the JFR decoders'
# segments, the store's direct writes, the stream's hand-overs) under
# ThreadSanitizer: the two scripts that drive them hardest, against a
# -fsanitize=thread build in build-tsan/.  Not in CI: about 18 minutes.
tsan: $(BUILD)/store-bench
	@$(MAKE) --no-print-directory BUILD=build-tsan BIN=build-tsan/heapsift \
		CFLAGS='-O1 -g' SAN='-fsanitize=thread' build-tsan/heapsift
	@fail=0; for t in jfr_jobs stream; do \
		TSAN_OPTIONS='halt_on_error=1 exitcode=66' \
		HEAPSIFT=$(CURDIR)/build-tsan/heapsift \
		HS_FIXTURES=$(CURDIR)/fixtures \
		STORE_BENCH=$(CURDIR)/$(BUILD)/store-bench \
		sh tests/cli/$$t.sh || fail=1; done; exit $$fail

# The whole suite again, under the sanitizers, in its own build folder.
# GCC's undefined leaves out a double converted past its type's range
# (clang's has it: the store fuzzer found one), so it is asked for.
check:
	@$(MAKE) --no-print-directory BUILD=build-check BIN=build-check/heapsift \
		CFLAGS='-O1 -g -fno-omit-frame-pointer' \
		SAN='-fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all' test

# Line and branch coverage per module: the whole suite on a build with
# GCC's --coverage in build-cov/ (the counters of an earlier run removed
# first; updated atomically, for the import's threads), then gcov's
# counts added up by build-aux/coverage.py, which prints the table even
# when a test failed (the status is the suite's).  Not in CI.  Through
# CFLAGS and LDFLAGS, not SAN: a SAN makes the suite expect sanitizers.
coverage:
	@find build-cov -name '*.gcda' -delete 2>/dev/null; \
	$(MAKE) --no-print-directory BUILD=build-cov BIN=build-cov/heapsift \
		CFLAGS='-O0 -g --coverage -fprofile-update=atomic' \
		LDFLAGS=--coverage test; \
	rc=$$?; build-aux/coverage.py build-cov; exit $$rc

# libFuzzer harnesses (clang), one per codec; `make fuzz FUZZ_TIME=60`
# builds them in build-fuzz/, makes seed corpora from fixtures/ and runs
# each for FUZZ_TIME seconds, one after the other, stopping at the first
# crash.  Each starts from its committed corpus, tests/fuzz/corpus/NAME/,
# plus the fresh seeds; what it finds goes to build-fuzz/campaign/
# (tests/fuzz/campaign.sh).  Make each crash a fixture and a regression
# test (tests/cli/fuzz_regress.sh, tests/cli/jfr.sh).
#   make fuzz-campaign FUZZ_TIME=3600   every harness FUZZ_TIME seconds,
#                      two at once (one per core), crashes kept and the
#                      run going on; logs in build-fuzz/campaign/NAME.log
#   make fuzz-minimize merge what the campaigns found into
#                      tests/fuzz/corpus/ (libFuzzer -merge=1 into a fresh
#                      folder, under 2 MB per harness) to be committed
# jfr_struct is the JFR harness with a structure-aware mutator.
FUZZ_TIME ?= 60
FUZZERS := walk probe jfr jfr_struct store agentrec codeheap javacore
FUZZ_SLOT_A := jfr walk javacore jfr_struct
FUZZ_SLOT_B := store codeheap agentrec probe
fuzz-build:
	@build-aux/deps.sh clang
	@$(MAKE) --no-print-directory BUILD=build-fuzz CC=clang \
		CFLAGS='-O1 -g -fno-omit-frame-pointer' \
		SAN='-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined' \
		build-fuzz/libheapsift.a
	@for f in $(FUZZERS); do \
		clang -std=c11 -g -O1 -Isrc -I. -fsanitize=fuzzer,address,undefined \
			-fno-sanitize-recover=undefined \
			-o build-fuzz/fuzz-$$f tests/fuzz/fuzz_$$f.c build-fuzz/libheapsift.a \
			$$(pkg-config --libs $(PKGS)) -lpthread || exit 1; \
	done
	@$(MAKE) --no-print-directory all unit
	@tests/fuzz/make-seeds.sh

fuzz: fuzz-build
	@FUZZ_STOP=1 tests/fuzz/campaign.sh $(FUZZ_TIME) $(FUZZERS)

fuzz-campaign: fuzz-build
	@tests/fuzz/campaign.sh $(FUZZ_TIME) $(FUZZ_SLOT_A) & \
	tests/fuzz/campaign.sh $(FUZZ_TIME) $(FUZZ_SLOT_B); wait

fuzz-minimize: fuzz-build
	@tests/fuzz/minimize.sh $(FUZZERS)

# Speed and memory against the JDK's own tools on a large recording made
# with the fixture workload (build/bench/, not committed), and the fleet
# lake: 10,000 recordings exported and queried in DuckDB
# (lake_bench.sh; LAKE_N for fewer).  Prints a table; asserts
# nothing: machines here are shared and noisy.
$(BUILD)/store-bench: $(BUILD)/tests/bench/store_bench.o $(LIBHS)
	$(Q)$(CC) $(HS_LDFLAGS) -o $@ $^ $(HS_LIBS)
$(BUILD)/tests/bench/%.o: HS_CFLAGS += -Wno-missing-prototypes

bench: $(BIN) $(BUILD)/store-bench
	@tests/bench/jfr_bench.sh
	@tests/bench/scale_bench.sh
	@STORE_BENCH=$(BUILD)/store-bench tests/bench/store_bench.sh
	@STORE_BENCH=$(BUILD)/store-bench tests/bench/browse_bench.sh
	@tests/bench/agent_bench.sh
	@tests/bench/codeheap_bench.sh
	@tests/bench/memory_bench.sh
	@tests/bench/lake_bench.sh

# Small bugs put into a copy of the tree one at a time (tests/mutate/run
# says how); each must make a test that is not a golden comparison fail.
# Not part of test or check: it builds and runs the suite once a mutation.
mutate: deps-test
	@tests/mutate/run $(ONLY)

golden-update: $(BIN)
	@HEAPSIFT=$(abspath $(BIN)) tests/golden/run --update
	@HEAPSIFT=$(abspath $(BIN)) BROWSE_UPDATE=1 sh tests/cli/browse.sh | tail -n 1

# Layering (docs/development.md): codecs stand alone, the TUI sees only
# the query API (the findings included: never the report's renderers),
# the query layer knows none of its front ends, and the ingest pipeline
# sits on the store, below queries and front ends.
# The layer rules (docs/development.md) on the compiler's own account of
# the includes: the -MMD dependency files list every header a source
# reaches, directly or through others, so the objects are built first.
LAYERING_OBJ := $(LIB_OBJ) $(MAIN_OBJ) $(if $(HAVE_JVMTI),$(AGENT_OBJ))
layering: $(LAYERING_OBJ)
	@python3 build-aux/layering.py $(BUILD)

FORMAT_SRC = $(shell find src agent tests -name '*.[ch]')
format:
	clang-format -i $(FORMAT_SRC)
format-check:
	@clang-format --dry-run --Werror $(FORMAT_SRC)

# The completion scripts are written by the binary from its own tables.
$(BUILD)/completion/heapsift.bash: $(BIN)
	@mkdir -p $(dir $@)
	$(abspath $(BIN)) completion bash >$@.tmp && mv $@.tmp $@
$(BUILD)/completion/_heapsift: $(BIN)
	@mkdir -p $(dir $@)
	$(abspath $(BIN)) completion zsh >$@.tmp && mv $@.tmp $@

install: $(BIN) agent $(BUILD)/completion/heapsift.bash $(BUILD)/completion/_heapsift
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 755 $(BIN) $(DESTDIR)$(BINDIR)/heapsift
	install -m 644 docs/heapsift.1 $(DESTDIR)$(MANDIR)/man1/heapsift.1
	install -d $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR)
	install -m 644 $(BUILD)/completion/heapsift.bash $(DESTDIR)$(BASHCOMPDIR)/heapsift
	install -m 644 $(BUILD)/completion/_heapsift $(DESTDIR)$(ZSHCOMPDIR)/_heapsift
ifeq ($(HAVE_JVMTI),1)
	install -d $(DESTDIR)$(LIBDIR)/heapsift
	install -m 755 $(AGENT) $(DESTDIR)$(LIBDIR)/heapsift/libheapsift-agent.so
endif

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/heapsift $(DESTDIR)$(MANDIR)/man1/heapsift.1
	rm -f $(DESTDIR)$(BASHCOMPDIR)/heapsift $(DESTDIR)$(ZSHCOMPDIR)/_heapsift
	rm -f $(DESTDIR)$(LIBDIR)/heapsift/libheapsift-agent.so
	rmdir $(DESTDIR)$(LIBDIR)/heapsift 2>/dev/null || true

clean:
	rm -rf build build-check build-clang build-cov build-fuzz heapsift

-include $(LIB_OBJ:.o=.d) $(MAIN_OBJ:.o=.d) $(UNIT_OBJ:.o=.d) $(AGENT_OBJ:.o=.d) $(BUILD)/tests/bench/store_bench.d
