#!/bin/bash -eu
# Builds every cargo-fuzz target of fuzz/fuzz_targets/ unchanged and hands
# each to the fuzzing engine the way OSS-Fuzz and ClusterFuzzLite expect:
#   $OUT/<target>                 the libFuzzer binary
#   $OUT/<target>_seed_corpus.zip the committed seeds of fuzz/corpus/<target>/
#   $OUT/<target>.dict            the shared dictionary fuzz/inquiry.dict
# The same targets run locally with `make fuzz TARGET=<name>`.
cd "$SRC/inquiry-model"

cargo fuzz build -O --debug-assertions

built=fuzz/target/x86_64-unknown-linux-gnu/release
count=0
for src in fuzz/fuzz_targets/*.rs; do
  target=$(basename "$src" .rs)
  if [ ! -x "$built/$target" ]; then
    echo "build.sh: cargo fuzz build did not produce $built/$target" >&2
    exit 1
  fi
  cp "$built/$target" "$OUT/$target"
  cp fuzz/inquiry.dict "$OUT/$target.dict"
  if [ -d "fuzz/corpus/$target" ] && [ -n "$(ls -A "fuzz/corpus/$target")" ]; then
    (cd "fuzz/corpus/$target" && zip -q -r "$OUT/${target}_seed_corpus.zip" .)
  fi
  count=$((count + 1))
done
echo "build.sh: $count fuzz targets in $OUT"
