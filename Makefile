# inquiry-model: every command a user or CI needs.
# `make test` is what CI runs (.ci/run). Heavier exploration has its own targets.

CARGO ?= cargo
PROPTEST_CASES ?= 256
export PROPTEST_CASES

.PHONY: all run test lint fmt explore vectors bench fuzz fuzz-smoke clean

all: test

## The main job on bundled data.
run:
	$(CARGO) run --quiet --release -- summary spec/examples

## The whole test suite (what CI runs).
test:
	$(CARGO) test --all-targets --locked
	$(CARGO) test --doc --locked

## Formatting and clippy, warnings denied.
lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --all-targets --locked -- -D warnings

fmt:
	$(CARGO) fmt --all

clean:
	$(CARGO) clean
