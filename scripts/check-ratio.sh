#!/usr/bin/env bash
# `make check-ratio`: `check` against IgnoredAny in instructions. Runs
# examples/check_ratio.rs under callgrind on the committed corpus and, when
# INQUIRY_MODEL_REAL_STREAMS names a folder, on the real streams, and prints
# per layout the instructions of `check` and of serde_json's `IgnoredAny`
# over the same bytes and their ratio (deterministic, unlike wall clock).
#
#   CHECK_RATIO_MB=4        corpus size per layout (megabytes)
#   CHECK_RATIO_OUT=/tmp    where the callgrind files go
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --quiet --release --locked --example check_ratio
bin=target/release/examples/check_ratio
out=${CHECK_RATIO_OUT:-/tmp}
real=${INQUIRY_MODEL_REAL_STREAMS:-}
corpora=("committed=")
if [ -n "$real" ]; then corpora+=("real=$real"); fi
printf '%-10s %-6s %10s %8s %14s %14s %7s %9s %9s\n' \
  corpus layout bytes events check_Ir ignored_Ir ratio Ir/byte Ir/event
for c in "${corpora[@]}"; do
  name=${c%%=*}; dir=${c#*=}
  cg="$out/check-ratio-$name.cg"
  if [ -n "$dir" ]; then
    log=$(INQUIRY_MODEL_REAL_STREAMS="$dir" valgrind --tool=callgrind \
      --callgrind-out-file="$cg" "$bin" 2>/dev/null)
  else
    log=$(env -u INQUIRY_MODEL_REAL_STREAMS valgrind --tool=callgrind \
      --callgrind-out-file="$cg" "$bin" 2>/dev/null)
  fi
  ann=$(callgrind_annotate --inclusive=yes --threshold=100 "$cg" 2>/dev/null)
  ir() { echo "$ann" | grep "check_ratio::$1" | head -n 1 | awk '{gsub(",","",$1); print $1}'; }
  for layout in array lines; do
    read -r bytes events < <(echo "$log" | sed -n "s/^$layout: \([0-9]*\) bytes, \([0-9]*\) events/\1 \2/p")
    chk=$(ir "measure_check_$layout"); ign=$(ir "measure_ignored_$layout")
    awk -v n="$name" -v l="$layout" -v b="$bytes" -v e="$events" -v c="$chk" -v i="$ign" \
      'BEGIN { printf "%-10s %-6s %10d %8d %14d %14d %6.3fx %9.2f %9.0f\n", n, l, b, e, c, i, c / i, c / b, c / e }'
  done
done
