#!/usr/bin/env bash
# `make bench-fuzz`: exec/s of every fuzz target without a sanitizer and
# under AddressSanitizer, printed as rows of `make bench`'s table (figure,
# measured, baseline, ratio, bar, spread).
#
#   fuzz/bench.sh NONE_BIN_DIR ADDRESS_BIN_DIR TARGET...
#
# Each target runs FUZZ_BENCH_SECONDS (default 30) from its committed seeds
# with -seed=1, once per build, the two runs back to back so both see the
# same machine load; the measured figure is libFuzzer's own
# stat::average_exec_per_sec. The ratio is what dropping the sanitizer buys
# (fuzz/asan-targets names the targets that keep it).
set -euo pipefail
cd "$(dirname "$0")/.."
none=${1:?usage: fuzz/bench.sh NONE_BIN_DIR ADDRESS_BIN_DIR TARGET...}
address=${2:?usage: fuzz/bench.sh NONE_BIN_DIR ADDRESS_BIN_DIR TARGET...}
shift 2
secs=${FUZZ_BENCH_SECONDS:-30}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# exec/s of one binary on one target's seeds (a fresh, empty work folder so
# both builds start from the same inputs).
rate() { # BIN TARGET
  local dir log
  dir=$(mktemp -d -p "$work")
  log="$dir.log"
  "$1/$2" -seed=1 -max_total_time="$secs" -dict=fuzz/inquiry.dict -print_final_stats=1 \
    -artifact_prefix="$dir/" "$dir" "fuzz/corpus/$2" >"$log" 2>&1 || {
    # A crash ends the run early: the rate is then of a shorter run, and the
    # finding is `make fuzz-smoke`'s to report.
    echo "bench-fuzz: $1/$2 crashed (rate of the run until then):" >&2
    grep -m 1 -A 1 'panicked at' "$log" >&2 || tail -n 5 "$log" >&2
  }
  sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1
}

rows=()
for t in "$@"; do
  if grep -qx "$t" fuzz/asan-targets; then keeps="keeps ASan"; else keeps="runs without"; fi
  n=$(rate "$none" "$t")
  a=$(rate "$address" "$t")
  ratio=$(awk -v n="$n" -v a="$a" 'BEGIN { if (a > 0) printf "%.1fx", n / a; else print "-" }')
  rows+=("fuzz $t exec/s, no sanitizer ($keeps)|$n exec/s|$a exec/s under ASan|$ratio|-|-")
done

# The table, padded like `make bench`'s (first column left, others right).
{
  echo "figure|measured|baseline|ratio|bar|spread"
  printf '%s\n' "${rows[@]}"
} | awk -F'|' '
  { for (i = 1; i <= NF; i++) { c[NR, i] = $i; if (length($i) > w[i]) w[i] = length($i) } n = NR }
  END {
    for (r = 1; r <= n; r++) {
      line = "|"
      for (i = 1; i <= 6; i++) {
        if (i == 1) line = line sprintf(" %-" w[i] "s |", c[r, i]);
        else line = line sprintf(" %" w[i] "s |", c[r, i]);
      }
      print line
      if (r == 1) {
        sep = "|"
        for (i = 1; i <= 6; i++) {
          dash = ""; for (k = 1; k < w[i]; k++) dash = dash "-"
          sep = sep " " dash (i == 1 ? "- |" : ": |")
        }
        print sep
      }
    }
  }'
echo
echo "$(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg) at end; ${secs} s per target and build, -seed=1, from the committed seeds."
