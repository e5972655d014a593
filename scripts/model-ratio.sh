#!/usr/bin/env bash
# `make model-ratio`: the bench's two model rows in instructions. Runs
# examples/model_steps.rs under callgrind with its cache simulation, the
# bare model and the same scenarios with every invariant after every step
# (the bench's `model_bars`), and prints per run the instructions, those
# per step, the allocations per step, the first-level cache misses and an
# estimate of cycles; then the checked run against the bare one.
#
# The host's speed moves the bench's clock rows by more than most changes
# do (docs/performance-log.md); these counts are nearly deterministic for
# one build (the model's maps are hashed with random seeds, which move a
# count by well under 0.1% and the ratios by about 0.002). The estimate
# charges each first-level miss (instruction or data) ten cycles on top of
# one per instruction: about a second-level hit, which is where nearly all
# of these misses land (the last-level misses are a few thousand). It is a
# model of the clock, not a reading of it, and it overstates an instruction
# miss on the host's CPU: a change that moves mostly cache misses is
# confirmed by bench runs alternated with the code before
# (docs/decisions/performance.md, "Performance: measure in instructions,
# report in time"); the instruction ratio is the exact figure.
#
#   MODEL_RATIO_STRIDE=20   every STRIDE-th scenario of the small scope
#   MODEL_RATIO_OUT=/tmp    where the callgrind files go
set -euo pipefail
cd "$(dirname "$0")/.."
for tool in valgrind callgrind_annotate; do
  command -v "$tool" >/dev/null || { echo "model-ratio: needs $tool (Debian's valgrind package)" >&2; exit 2; }
done
# Cycles charged for each first-level miss by the estimate.
miss=10
stride=${MODEL_RATIO_STRIDE:-20}
out=${MODEL_RATIO_OUT:-/tmp}
[ -d "$out" ] && [ -w "$out" ] ||
  { echo "model-ratio: $out is not a writable folder (MODEL_RATIO_OUT)" >&2; exit 2; }
cargo build --quiet --release --locked --example model_steps
bin=target/release/examples/model_steps
run() {
  valgrind --tool=callgrind --cache-sim=yes --callgrind-out-file="$out/model-ratio-$1.cg" \
    --toggle-collect="model_steps::$1" "$bin" "$stride" 1 "$1" >"$out/model-ratio-$1.log" \
    2>"$out/model-ratio-$1.err" ||
    { echo "model-ratio: the $1 run failed; valgrind said:" >&2; tail -n 20 "$out/model-ratio-$1.err" >&2; return 1; }
}
# The two runs are independent: one per core.
run bare & bare=$!
run checked & checked=$!
wait "$bare" && wait "$checked" || exit 1
# Prints: steps Ir I1mr D1mr D1mw allocations
figures() {
  local cg="$out/model-ratio-$1.cg"
  local steps
  steps=$(sed -n 's/^\([0-9]*\) steps, .*/\1/p' "$out/model-ratio-$1.log")
  local totals
  totals=$(callgrind_annotate --show=Ir,I1mr,D1mr,D1mw --threshold=100 "$cg" 2>/dev/null |
    grep 'PROGRAM TOTALS' | tr -d ',' | awk '{print $1, $3, $5, $7}')
  # Calls into the allocator's four allocating entry points, summed over
  # their callers (reallocations are not counted: they move a block).
  local allocs
  allocs=$(callgrind_annotate --tree=caller --threshold=100 "$cg" 2>/dev/null | awk '
    /^ *[0-9,]+ .*< / { if (match($0, /\(([0-9,]+)x\)/)) { n = substr($0, RSTART + 1, RLENGTH - 3); gsub(",", "", n); pending += n } next }
    /\* / { if ($0 ~ /:(mi_malloc|mi_zalloc|mi_malloc_aligned|mi_zalloc_aligned) \[/) total += pending; pending = 0; next }
    { pending = 0 }
    END { print total + 0 }')
  echo "$steps $totals $allocs"
}
read -r bs bir bi1 bd1r bd1w ba < <(figures bare)
read -r cs cir ci1 cd1r cd1w ca < <(figures checked)
printf '%-8s %8s %14s %8s %10s %12s %12s %15s\n' \
  run steps Ir Ir/step allocs/step I1_misses D1_misses est_cycles
row() {
  awk -v r="$1" -v s="$2" -v ir="$3" -v i1="$4" -v d1r="$5" -v d1w="$6" -v a="$7" -v m="$miss" 'BEGIN {
    printf "%-8s %8d %14d %8.0f %10.1f %12d %12d %15d\n", r, s, ir, ir / s, a / s, i1, d1r + d1w, ir + m * (i1 + d1r + d1w) }'
}
row bare "$bs" "$bir" "$bi1" "$bd1r" "$bd1w" "$ba"
row checked "$cs" "$cir" "$ci1" "$cd1r" "$cd1w" "$ca"
awk -v bir="$bir" -v cir="$cir" -v b="$((bi1 + bd1r + bd1w))" -v c="$((ci1 + cd1r + cd1w))" -v m="$miss" 'BEGIN {
  printf "every invariant / bare model: %.3fx instructions, %.3fx estimated cycles (bar 1.50x)\n",
    cir / bir, (cir + m * c) / (bir + m * b) }'
