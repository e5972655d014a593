# inquiry-model: every command a user or CI needs.
# `make test` is what CI runs (.ci/run). Heavier exploration has its own targets.

CARGO ?= cargo
PROPTEST_CASES ?= 256
export PROPTEST_CASES

.PHONY: all run test lint fmt explore vectors spec-matrix diff clean

all: test

## The main job on bundled data: judge the bundled example streams and the
## committed realistic corpus with the oracle. The first run builds the
## binary (cargo prints each crate as it compiles).
## make exits 2 for any failed command, so `make run` exits 0 (clean) or 2;
## the last line on stderr names the binary's own code (1: violations, 2:
## unusable input), which running the binary directly returns.
run:
	@echo "make run: building inquiry-model (release; 4 to 7 minutes on 2 cores the first time, by load), then: inquiry-model check spec/examples tests/corpus/jp-like"
	@$(CARGO) run --release --locked -- check spec/examples tests/corpus/jp-like; code=$$?; \
	case $$code in \
	0) ;; \
	1) echo "make run: inquiry-model exited 1: rule violations found (make itself exits 2)" >&2 ;; \
	2) echo "make run: inquiry-model exited 2: unusable input or usage (make itself exits 2)" >&2 ;; \
	*) echo "make run: the build or the binary failed with code $$code (make itself exits 2)" >&2 ;; \
	esac; exit $$code

## The exhaustive small-scope exploration (680 448 scenarios, every invariant
## after every step; about 30 s on 2 cores with two worker threads).
## STRIDE=N checks every Nth; SHARD=k/n checks part k (from 0) of n.
STRIDE ?= 1
SHARD ?= 0/1
explore:
	$(CARGO) run --quiet --release -- explore --stride $(STRIDE) --shard $(SHARD)

## The big exploration: the small scope plus the triples family,
## three tools (built-in, assistant-hooked built-in, local) with one question
## each of 8 kinds, two turns of three parallel calls, every choice of the
## scheduler's first five picks (3^5 interleavings), 2 prompter x 2 backend
## behaviours, TTY on/off, 3 profiles: 2 985 984 + 680 448 = 3 666 432
## scenarios, 58 922 982 coordinator steps (11x the small scope's 5.2
## million), every invariant after every step. About 7 minutes on 2 loaded
## cores; CI splits it over 4 shards (.github/workflows/explore.yml).
.PHONY: explore-big
explore-big:
	$(CARGO) run --quiet --release -- explore --scope big --stride $(STRIDE) --shard $(SHARD)

## The state-graph search (src/explore/states.rs): every
## interleaving of every root of the small scope (its scenarios without
## their scheduler picks: 387 072 single and 98 304 pairs roots), each run
## to the end of the run and checked after every step, not expanding a
## state (history included) already expanded: 4 354 726 runs, 3 884 513
## distinct states, 46 886 976 coordinator steps, about 233 s of CPU.
## Figures in docs/performance-log.md; why it is sound in docs/decisions/exploration.md
## "Exploration: deduplicated states hold their history". The triples
## family's every interleaving runs reduced: `make explore-triples`.
.PHONY: explore-states
explore-states:
	$(CARGO) run --quiet --release -- explore --scope small --states --stride $(STRIDE) --shard $(SHARD)

## The forking search reduced by sleep sets (src/explore/por.rs): one
## interleaving of every equivalence class of independent steps, for every
## root of the triples family (12 288 roots, 2 918 839 344 interleavings);
## reports runs, classes, the reduction factor and violations, and the CPU
## time (bash's `time`). SHARD=k/n splits the roots for the CI matrix.
.PHONY: explore-triples
explore-triples:
	bash -c 'time $(CARGO) run --quiet --release -- explore --scope triples --states --por --stride $(STRIDE) --shard $(SHARD)'

## The bigger scope (src/explore/bigger.rs), every interleaving reduced by
## sleep sets, under no fault and each of the 13 faults of the fault matrix:
## the quads family (four calls in one cycle, two of one tool, plain or
## dotted tool names sharing a cache key; 12 288 roots) and the turns2
## family (two turns of two calls, the token fired by each cause in the
## first or second backend reply; 6 144 roots). Fails on a violation under
## no fault (the legacy gaps and the dotted names' separator flaw are
## counted); per fault, reports the roots that catch it. About 60 min of
## CPU on a loaded 2-core host (docs/performance-log.md); CI splits it
## over 8 shards.
.PHONY: explore-bigger
explore-bigger:
	bash -c 'time $(CARGO) run --quiet --release -- explore --scope bigger --states --por --faults --stride $(STRIDE) --shard $(SHARD)'

## Soundness of the reduction: on every root of the pairs family, under no
## fault and every fault of the fault matrix, the reduced search finds
## exactly the invariants violated that every interleaving finds (exit 1
## where not). `make test` runs a stride of it.
.PHONY: explore-por-check
explore-por-check:
	bash -c 'time $(CARGO) run --quiet --release -- explore --scope pairs --states --por --por-check --stride $(STRIDE) --shard $(SHARD)'

## Soundness of the reduction beyond the families: the language family's
## 360 roots (dotted tool names and question IDs sharing a cache key, a call
## ID twice in a cycle and again in a later one, every token cause,
## `ask_user` beside a permission and a delivery prompt) and 1 000 roots of
## the full scenario generator (seed 0x820083; a root above 2 000
## interleavings is skipped and counted), each under no fault and every
## fault: the reduced search finds exactly the invariants violated that
## every interleaving finds (exit 1 where not). `make test` runs a stride.
## One root given as a file: `inquiry-model explore --scenario FILE
## --states --por --por-check`.
.PHONY: explore-por-drawn
explore-por-drawn:
	bash -c 'time $(CARGO) run --quiet --release -- explore --scope drawn --states --por --por-check --stride $(STRIDE) --shard $(SHARD)'

## Rewrite the committed realistic corpus (tests/corpus/jp-like/): streams in
## the on-disk shape of real pre-082 conversations, from a fixed seed.
.PHONY: corpus
corpus:
	rm -rf tests/corpus/jp-like
	$(CARGO) run --release --example jp_corpus -- tests/corpus/jp-like

## Rewrite the committed conformance vectors (spec/vectors/).
vectors:
	rm -rf spec/vectors
	$(CARGO) run --quiet --release -- vectors --out spec/vectors

## The shipped Python adapter on the built-in vectors and 5 000 generated
## scenarios per profile (core language), run from outside the checkout;
## about 15 s after the release build.
.PHONY: conform-big
conform-big:
	$(CARGO) build --quiet --release --locked
	cd /tmp && $(CURDIR)/target/release/inquiry-model conform \
		--adapter 'python3 $(CURDIR)/examples/conform_adapter.py' --generated 5000

## Rewrite the committed invariant x profile matrix (spec/invariants.md).
spec-matrix:
	$(CARGO) run --quiet --release -- invariants --matrix > spec/invariants.md

## What changes between two profiles, as a Markdown table:
##   make diff FROM=legacy TO=rfd082
FROM ?= legacy
TO ?= rfd082
diff:
	@$(CARGO) run --quiet --release -- diff-profiles --from $(FROM) --to $(TO) --format markdown

## The witness search at scale (rule CONF-WITNESS, spec/DECISIONS.md
## "Witness search: a budget of 2 000 schedules"): the correct
## free-scheduler implementation (the model ordering its own parallel work,
## prompts without call IDs) on 2 000 generated scenarios per profile
## (CONFORM_FREE_CASES), each judged as `conform` judges a free adapter;
## prints the schedules tried per searched scenario (mean, max), the runs
## cut and the time; fails if any scenario has no witness. About 2 s after
## the release build; not part of `make test` (which runs 150 per profile).
CONFORM_FREE_CASES ?= 2000
.PHONY: conform-free
conform-free:
	$(CARGO) run --quiet --release --example witness_cost -- $(CONFORM_FREE_CASES)

## The whole test suite (what CI runs): the unit tests, the one
## integration-test binary (tests/suite/, `cargo test --test suite -- AREA::`
## runs one area), the doc tests, then the repository checks.
test:
	$(CARGO) test --all-targets --locked
	$(CARGO) test --doc --locked
	$(MAKE) --no-print-directory repo-checks

## Repository checks that run cargo themselves, so they are not tests inside
## the test binary: the lean library's dependency set and build
## (.ci/lean-library), and the fuzz crate's lock file is current.
.PHONY: repo-checks
repo-checks: fuzz-lock
	CARGO=$(CARGO) .ci/lean-library

## The man pages (inquiry-model.1 and one per subcommand) into target/man/.
.PHONY: man
man:
	mkdir -p target/man
	$(CARGO) run --quiet --locked -- man --dir target/man

## The GitHub workflows validate against the workflow JSON schema
## (.ci/workflow-check; installs check-jsonschema, pinned, into target/ the
## first time). ci.yml's lint job runs it.
.PHONY: workflow-check
workflow-check:
	.ci/workflow-check

## Formatting and clippy, warnings denied; the library with feature
## `testkit` alone (as the fuzz crate builds it) without a warning; then
## every intra-doc link of the API docs resolves (private items documented
## too, so the maintainers' links to them resolve; docs/decisions/code.md,
## "Code: a lean library" and "Code: doc links resolve").
lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --all-targets --locked -- -D warnings
	RUSTFLAGS="$${RUSTFLAGS:-} -D warnings" $(CARGO) check --lib --no-default-features --features testkit \
	  --locked --quiet --target-dir target/lean-library
	RUSTDOCFLAGS="-D rustdoc::broken_intra_doc_links -A rustdoc::private_intra_doc_links" \
	  $(CARGO) doc --no-deps --document-private-items --locked --quiet

fmt:
	$(CARGO) fmt --all

clean:
	$(CARGO) clean

## Time pairing and sanitize on worst-case streams of 10^4..10^6 events and
## print the ratio per 10x (rule STREAM-LINEAR; linear is ~10x).
.PHONY: stream-scaling
stream-scaling:
	$(CARGO) run --quiet --release --example stream_scaling

## Fuzzing, on nightly with cargo-fuzz (see fuzz/README.md).
##   make fuzz TARGET=<name> SECONDS=<n>   one target (names: fuzz/fuzz_targets/)
##   make fuzz-smoke                       every target for FUZZ_SMOKE_SECONDS
##                                         each; prints exec/s and executions;
##                                         fails on any crash
##   make fuzz-corpus                      rewrites the generated seeds in
##                                         fuzz/corpus/ (stable)
##   make bench-fuzz                       exec/s of every target with and
##                                         without AddressSanitizer
## The targets that can reach the crate's own `unsafe` code (listed in
## fuzz/asan-targets, with how that was decided) run under
## AddressSanitizer; the others, safe Rust only, run without a sanitizer
## (`-s none`): a panic, a hang or a wrong answer needs none to be found.
## A stale fuzz/Cargo.lock fails every fuzz target (fuzz-lock) and `make test`.
## New inputs go to fuzz/work/<target>/ (ignored); the committed seeds in
## fuzz/corpus/<target>/ are only read. `make test` replays them on stable.
FUZZ_TOOLCHAIN ?= +nightly
TARGET ?= response_differential
SECONDS ?= 60
FUZZ_SMOKE_SECONDS ?= 20
FUZZ_BENCH_SECONDS ?= 30
FUZZ_TARGETS := $(sort $(basename $(notdir $(wildcard fuzz/fuzz_targets/*.rs))))
FUZZ_ASAN_TARGETS := $(sort $(shell sed -e '/^\#/d' -e '/^$$/d' fuzz/asan-targets))
FUZZ_FLAGS = -dict=$(CURDIR)/fuzz/inquiry.dict -print_final_stats=1
# `address` for the listed targets, `none` for the others.
fuzz_sanitizer = $(if $(filter $(1),$(FUZZ_ASAN_TARGETS)),address,none)
# Each sanitizer builds into its own folder, so switching costs no rebuild.
fuzz_target_dir = $(CURDIR)/fuzz/target/$(1)
FUZZ_HOST = $$(rustc $(FUZZ_TOOLCHAIN) -vV | sed -n 's/^host: //p')

.PHONY: fuzz fuzz-smoke fuzz-corpus fuzz-install fuzz-build bench-fuzz

## fuzz/Cargo.lock is current: cargo-fuzz has no `--locked`, so the fuzz
## crate's dependencies are resolved `--locked` first (stable is enough); a
## stale lock fails here rather than being rewritten by the fuzz build.
.PHONY: fuzz-lock
fuzz-lock:
	$(CARGO) fetch --locked --quiet --manifest-path fuzz/Cargo.toml

fuzz-install:
	@$(CARGO) fuzz --version >/dev/null 2>&1 || $(CARGO) install cargo-fuzz --locked

fuzz: fuzz-install fuzz-lock
	@mkdir -p fuzz/work/$(TARGET)
	$(CARGO) $(FUZZ_TOOLCHAIN) fuzz run -s $(call fuzz_sanitizer,$(TARGET)) \
		--target-dir $(call fuzz_target_dir,$(call fuzz_sanitizer,$(TARGET))) \
		$(TARGET) $(CURDIR)/fuzz/work/$(TARGET) $(CURDIR)/fuzz/corpus/$(TARGET) \
		-- -max_total_time=$(SECONDS) $(FUZZ_FLAGS)

## Every target without a sanitizer, and the listed ones with
## AddressSanitizer (binaries in fuzz/target/<none|address>/<host>/release/).
fuzz-build: fuzz-install fuzz-lock
	$(CARGO) $(FUZZ_TOOLCHAIN) fuzz build -s none --target-dir $(call fuzz_target_dir,none)
	for t in $(FUZZ_ASAN_TARGETS); do \
	  $(CARGO) $(FUZZ_TOOLCHAIN) fuzz build -s address --target-dir $(call fuzz_target_dir,address) $$t || exit 1; \
	done

fuzz-smoke: fuzz-build
	@host=$(FUZZ_HOST); \
	mkdir -p fuzz/work/smoke; failed=""; \
	printf '%-24s %-9s %10s %14s  %s\n' target sanitizer exec/s executions result; \
	for t in $(FUZZ_TARGETS); do \
	  case " $(FUZZ_ASAN_TARGETS) " in *" $$t "*) san=address ;; *) san=none ;; esac; \
	  bin=$(CURDIR)/fuzz/target/$$san/$$host/release; \
	  mkdir -p fuzz/work/$$t fuzz/artifacts/$$t; log=fuzz/work/smoke/$$t.log; \
	  if $$bin/$$t -artifact_prefix=fuzz/artifacts/$$t/ -max_total_time=$(FUZZ_SMOKE_SECONDS) \
	       $(FUZZ_FLAGS) fuzz/work/$$t fuzz/corpus/$$t >$$log 2>&1; \
	  then res=ok; else res="CRASH (see $$log)"; failed="$$failed $$t"; fi; \
	  execs=$$(sed -n 's/^stat::number_of_executed_units: *//p' $$log | tail -n 1); \
	  rate=$$(sed -n 's/^stat::average_exec_per_sec: *//p' $$log | tail -n 1); \
	  printf '%-24s %-9s %10s %14s  %s\n' $$t $$san "$${rate:-?}" "$${execs:-?}" "$$res"; \
	done; \
	if [ -n "$$failed" ]; then \
	  echo "fuzz-smoke: crash in:$$failed; inputs in fuzz/artifacts/<target>/"; exit 1; \
	fi

## Exec/s of every target without a sanitizer and under AddressSanitizer,
## FUZZ_BENCH_SECONDS each from the committed seeds (-seed=1), the two
## builds of one target run back to back so both see the same load; rows in
## `make bench`'s table format (needs nightly and cargo-fuzz, so not a row of
## `make bench` itself).
bench-fuzz: fuzz-install fuzz-lock
	$(CARGO) $(FUZZ_TOOLCHAIN) fuzz build -s none --target-dir $(call fuzz_target_dir,none)
	$(CARGO) $(FUZZ_TOOLCHAIN) fuzz build -s address --target-dir $(call fuzz_target_dir,address)
	@FUZZ_BENCH_SECONDS=$(FUZZ_BENCH_SECONDS) fuzz/bench.sh \
	  $(call fuzz_target_dir,none)/$(FUZZ_HOST)/release \
	  $(call fuzz_target_dir,address)/$(FUZZ_HOST)/release $(FUZZ_TARGETS)

fuzz-corpus:
	$(CARGO) run --quiet --example fuzz_corpus

## Mutation testing (docs/mutants.md): cargo-mutants over the
## modules the spec lives in (spec/mutants-tests.tsv), installed when absent.
## Each file: a first pass with only the tests that exercise it, then every
## survivor again against the whole suite; then a table per module.
##   make mutants MUTANTS_FILES=src/model/routing.rs   some files (default: all)
##   make mutants MUTANTS_FILES="src/check.rs src/check/"  a folder: its files
##   make mutants MUTANTS_SHARD=0/8              one shard (CI runs 8)
## About 1-3 minutes per mutant on 2 cores; a whole run is ~1 500 mutants,
## so it belongs on the weekly workflow (.github/workflows/mutants.yml).
MUTANTS_VERSION ?= 27.1.0
.PHONY: mutants
mutants:
	@$(CARGO) mutants --version >/dev/null 2>&1 || $(CARGO) install cargo-mutants --locked --version $(MUTANTS_VERSION)
	CARGO=$(CARGO) MUTANTS_FILES="$(MUTANTS_FILES)" MUTANTS_SHARD="$(MUTANTS_SHARD)" bash scripts/mutants.sh

## Every performance figure next to its baseline, printed as one table
## `check` throughput against serde_json's IgnoredAny, scaling of
## read/check/sanitize from 10^4 to 10^6 events, peak memory on a 1 GB stream
## against a 10 MB one, model throughput. A few minutes; BENCH_BIG_MB=100
## shrinks the 1 GB stream (see benches/perf.rs for the other knobs). glibc
## keeps freed memory during the run, so buffers above its 32 MiB mmap limit
## are not fresh pages at 10^6 only (the peak-memory child runs with the
## defaults).
BENCH_TUNABLES ?= glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=68719476736
.PHONY: bench
bench:
	GLIBC_TUNABLES=$(BENCH_TUNABLES) $(CARGO) bench --locked --bench perf

## A profile-guided release build of the command line, in target/pgo/use
## (an instrumented build, a training run of explore, check and
## diff-profiles, then the build that uses the profile; about 13 minutes on
## 2 cores; installs rustup's llvm-tools component if missing). `make
## bench-pgo` runs `make bench`'s table on that build.
.PHONY: pgo bench-pgo
pgo:
	CARGO=$(CARGO) bash scripts/pgo.sh build
bench-pgo:
	CARGO=$(CARGO) BENCH_TUNABLES=$(BENCH_TUNABLES) bash scripts/pgo.sh bench

## `check`'s cost against IgnoredAny in instructions (deterministic): `check` against
## IgnoredAny under callgrind, committed corpus and, when
## INQUIRY_MODEL_REAL_STREAMS is set, the real streams (needs valgrind).
.PHONY: check-ratio
check-ratio:
	bash scripts/check-ratio.sh

## The bench's model rows in instructions (nearly deterministic for one build):
## the bare model's instructions and allocations per step, and every
## invariant's run against it, under callgrind's cache simulation
## (needs valgrind; a few minutes, the two runs on two cores).
.PHONY: model-ratio
model-ratio:
	bash scripts/model-ratio.sh
