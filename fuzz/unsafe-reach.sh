#!/usr/bin/env bash
# Which fuzz targets can reach the crate's own `unsafe` code, read from the
# built binaries (`make fuzz-unsafe-reach`; fuzz/README.md "Sanitizers").
#
#   fuzz/unsafe-reach.sh BIN_DIR
#
# BIN_DIR holds the targets built without a sanitizer, in the fuzz crate's
# release profile (`debug = 1`: line tables). A line table maps every
# instruction, inlined ones included, to the source line it came from, so a
# target none of whose instructions comes from a file of `src/` holding an
# `unsafe` block cannot execute that block. The check is by file, not by
# block (coarser, so it can only add targets to the list).
#
# Prints one line per target (the files it reaches) and fails when a target
# that reaches one is not listed in fuzz/asan-targets (it must move to
# AddressSanitizer); a listed target that reaches none is named (it could
# leave the list).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:?usage: fuzz/unsafe-reach.sh BIN_DIR}

# The crate's files that hold an `unsafe` block, fn or impl (code, not
# comments).
mapfile -t unsafe_files < <(grep -rlE --include='*.rs' '^[^/]*\bunsafe *(\{|fn\b|impl\b)' src | sort)
[ "${#unsafe_files[@]}" -gt 0 ] || { echo "unsafe-reach: no unsafe code in src/?" >&2; exit 2; }
listed=$(grep -v '^#' fuzz/asan-targets | sed '/^$/d' | sort)

reaching=""
printf '%-24s %s\n' target "reaches unsafe code in"
for src in fuzz/fuzz_targets/*.rs; do
  t=$(basename "$src" .rs)
  [ -x "$bin/$t" ] || { echo "unsafe-reach: $bin/$t not built" >&2; exit 2; }
  # Decoded line table: the full path of each source file contributing code.
  paths=$(objdump --dwarf=decodedline "$bin/$t" 2>/dev/null | sed -n 's/^\(\/.*\.rs\):$/\1/p; s/^CU: \(\/.*\.rs\):$/\1/p' | sort -u)
  hits=""
  for f in "${unsafe_files[@]}"; do
    if grep -qF "$PWD/$f" <<<"$paths"; then hits="$hits $f"; fi
  done
  printf '%-24s %s\n' "$t" "${hits:- (none)}"
  [ -n "$hits" ] && reaching="$reaching$t"$'\n'
done
reaching=$(sed '/^$/d' <<<"$reaching" | sort)
missing=$(comm -23 <(echo "$reaching") <(echo "$listed") | sed '/^$/d')
extra=$(comm -13 <(echo "$reaching") <(echo "$listed") | sed '/^$/d')
if [ -n "$extra" ]; then
  echo "unsafe-reach: listed but reaching no unsafe code (could run without a sanitizer):" $extra
fi
if [ -n "$missing" ]; then
  echo "unsafe-reach: these targets reach unsafe code but are not in fuzz/asan-targets:" $missing >&2
  exit 1
fi
echo "unsafe-reach: every target that reaches unsafe code is listed (unsafe files: ${unsafe_files[*]})"
