#!/usr/bin/env bash
# `make pgo` and `make bench-pgo`: a profile-guided release build
# (docs/decisions/performance.md, "Performance: a profile-guided build,
# beside the plain one"). Three steps, each in its own target folder under
# PGO_DIR so the plain build in target/release is left as it is:
#
#   1. an instrumented build of the command line (`-Cprofile-generate`);
#   2. a training run of the commands the tool is run for, on inputs the
#      bench does not time: `explore` of the small scope at stride 13 (the
#      model with every invariant after every step; the bench's model rows
#      take stride 20), `diff-profiles` at a stride of 7 (two profiles'
#      checked runs), and `check` of 100 MB of the committed corpus's
#      streams in each layout (the reader and the oracle; the bench times
#      the real streams when it has them);
#   3. the build that uses the merged profile (`-Cprofile-use`).
#
# `make pgo` then prints where the binary is; `make bench-pgo` runs the
# bench (`benches/perf.rs`) on that build instead, every row of `make
# bench` the same but for the build it times.
#
# Needs `llvm-profdata` of the compiler's own LLVM, from rustup's
# `llvm-tools` component, which this script installs when it is missing.
#
#   PGO_DIR=target/pgo   where the builds and the profiles go
#   BENCH_TUNABLES       the bench's glibc settings, which `make bench`
#                        sets (required by the bench step, may be empty)
#   CARGO=cargo          the cargo to run
#   CARGO_TARGET_DIR     the plain build's folder (default target), where
#                        the training's stream writer is built
set -euo pipefail
cd "$(dirname "$0")/.."
cargo=${CARGO:-cargo}
plain=${CARGO_TARGET_DIR:-target}
what=${1:-build}
case $what in
  build | bench) ;;
  *) echo "pgo: unknown step '$what' (build or bench)" >&2; exit 2 ;;
esac
if [ "$what" = bench ] && [ -z "${BENCH_TUNABLES+set}" ]; then
  echo "pgo: the bench step needs BENCH_TUNABLES (run it as make bench-pgo)" >&2
  exit 2
fi
dir=${PGO_DIR:-target/pgo}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
sysroot=$(rustc --print sysroot)
host=$(rustc -vV | sed -n 's/^host: //p')
profdata="$sysroot/lib/rustlib/$host/bin/llvm-profdata"
if [ ! -x "$profdata" ]; then
  echo "pgo: installing rustup's llvm-tools component (llvm-profdata)" >&2
  rustup component add llvm-tools >&2 ||
    { echo "pgo: needs llvm-profdata from rustup's llvm-tools component" >&2; exit 2; }
fi

raw="$dir/raw"
echo "pgo: 1/3 the instrumented build ($dir/gen)" >&2
# The instrumented build compiles the crate as the last step will: a
# profile only applies to code compiled the same way, and the bench's
# build compiles the crate graph with its dev-dependencies.
case $what in
  build) instrumented=(build --quiet --release --locked --bin inquiry-model) ;;
  bench) instrumented=(bench --quiet --locked --bench perf --no-run) ;;
esac
RUSTFLAGS="-Cprofile-generate=$raw" CARGO_TARGET_DIR="$dir/gen" "$cargo" "${instrumented[@]}"
gen="$dir/gen/release/inquiry-model"

echo "pgo: 2/3 the training run" >&2
# The build scripts the instrumented build ran wrote profiles of their own.
rm -rf "$raw"
mkdir -p "$raw"
"$gen" explore --stride 13 --threads 1 --format json -q >/dev/null
"$gen" diff-profiles --from rfd082 --to rfd083 --stride 7 --threads 1 --format json >/dev/null ||
  [ $? -eq 1 ]
# `check` on streams of the committed corpus (the bench times the real
# streams when it has them), 100 MB in each layout: about a second of the
# instrumented build's time, against about five for the two runs above.
env -u RUSTFLAGS CARGO_TARGET_DIR="$plain" "$cargo" build --quiet --release --locked --example gen_stream
for layout in array jsonl; do
  env -u INQUIRY_MODEL_REAL_STREAMS "$plain/release/examples/gen_stream" \
    "$dir/train.$layout" 100 "$layout" >/dev/null
  "$gen" check -q "$dir/train.$layout" >/dev/null || [ $? -eq 1 ]
  rm -f "$dir/train.$layout"
done
"$profdata" merge -o "$dir/merged.profdata" "$raw"

echo "pgo: 3/3 the build that uses the profile ($dir/use)" >&2
export RUSTFLAGS="-Cprofile-use=$dir/merged.profdata"
export CARGO_TARGET_DIR="$dir/use"
case $what in
  build)
    "$cargo" build --quiet --release --locked
    echo "pgo: $dir/use/release/inquiry-model"
    ;;
  bench)
    GLIBC_TUNABLES=$BENCH_TUNABLES "$cargo" bench --locked --bench perf
    ;;
esac
