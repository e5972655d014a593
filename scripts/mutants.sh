#!/usr/bin/env bash
# `make mutants`: cargo-mutants over the modules the spec lives in, one run
# per test selection (files sharing one go together), then one table per
# module (docs/mutants.md explains the score).
#
#   MUTANTS_FILES="src/model/routing.rs src/check/"       the files; a folder stands
#                                                  for every .rs file under it
#                                                  but its *_tests.rs
#                                                  (default: all of
#                                                  spec/mutants-tests.tsv)
#   MUTANTS_SHARD=k/n                               this shard of every file
#   MUTANTS_JOBS=1                                  parallel scratch builds
#   MUTANTS_OUT=mutants.out                         where outcomes go
#
# Two passes per file. The first runs only the tests that
# spec/mutants-tests.tsv lists for the file (the unit tests and the
# integration tests that exercise it), so a mutant costs one library build
# and a few test crates rather than the whole suite. The second pass runs
# every mutant the first did not catch again against the WHOLE suite (its
# exact name as a `-F` filter, outcomes in <file>-whole/), so the selection
# can only cost time: a survivor in the table has survived every test there
# is. The second pass takes no shard: its survivors are already this shard's.
set -euo pipefail
cd "$(dirname "$0")/.."

CARGO=${CARGO:-cargo}
OUT=${MUTANTS_OUT:-mutants.out}
JOBS=${MUTANTS_JOBS:-1}
MAP=spec/mutants-tests.tsv

if [ -z "${MUTANTS_FILES:-}" ]; then
  MUTANTS_FILES=$(grep -v '^#' "$MAP" | cut -f1 | tr '\n' ' ')
fi
# A folder stands for every .rs file under it but its unit-test files
# (`*_tests.rs`, which are tests, not code under test); each file is named once.
MUTANTS_FILES=$(for p in $MUTANTS_FILES; do
  if [ -d "$p" ]; then find "${p%/}" -name '*.rs' ! -name '*_tests.rs' | sort; else echo "$p"; fi
done | awk '!seen[$0]++' | tr '\n' ' ')
shard=()
if [ -n "${MUTANTS_SHARD:-}" ]; then
  shard=(--shard "$MUTANTS_SHARD")
fi

mkdir -p "$OUT"
# Files that share a selection go to one cargo-mutants run each pass, so a
# module of many files pays for one baseline build, not one per file.
groups=()          # selection lines, in first-seen order
declare -A members # selection line -> its files
for file in $MUTANTS_FILES; do
  if [ ! -f "$file" ]; then
    echo "mutants: no such file: $file" >&2
    exit 2
  fi
  # The longest entry that is the file or a folder above it.
  line=$(awk -F'\t' -v f="$file" '!/^#/ && index(f, $1) == 1 && length($1) > n { n = length($1); a = $2 } END { print a }' "$MAP")
  if [ -z "$line" ]; then
    echo "mutants: $file has no test selection in $MAP (add a line: file<TAB>cargo test args)" >&2
    exit 2
  fi
  if [ -z "${members[$line]+set}" ]; then
    groups+=("$line")
    members[$line]=$file
  else
    members[$line]="${members[$line]} $file"
  fi
done

for line in "${groups[@]}"; do
  read -r -a files <<<"${members[$line]}"
  name=$(echo "${files[0]}" | sed 's|^src/||; s|\.rs$||; s|/|-|g')
  if [ "${#files[@]}" -gt 1 ]; then name="$name-and-$(( ${#files[@]} - 1 ))-more"; fi
  dir="$OUT/$name"
  file_args=()
  for f in "${files[@]}"; do file_args+=(--file "$f"); done
  read -r -a selected <<<"$line"
  # Cargo's own arguments (the test targets) go to every cargo invocation;
  # the filters after `--` go to the test binaries (`cargo mutants -- --
  # FILTERS`).
  test_args=()
  filters=()
  seen_dashes=""
  for a in "${selected[@]}"; do
    if [ -n "$seen_dashes" ]; then filters+=("$a")
    elif [ "$a" = -- ]; then seen_dashes=1
    else test_args+=(--cargo-arg="$a"); fi
  done
  if [ "${#filters[@]}" -gt 0 ]; then test_args+=(-- -- "${filters[@]}"); fi
  echo "mutants: ${files[*]}, first pass with: cargo test ${selected[*]}"
  start=$(date +%s)
  rc=0
  $CARGO mutants --no-shuffle -j "$JOBS" "${shard[@]}" "${file_args[@]}" \
    -o "$dir" "${test_args[@]}" || rc=$?
  # 0: all caught; 2: some missed; 3: some timed out (cargo-mutants' codes).
  case $rc in 0|2|3) ;; *) echo "mutants: cargo mutants failed ($rc) on ${files[*]}" >&2; exit "$rc" ;; esac
  missed="$dir/mutants.out/missed.txt"
  if [ -s "$missed" ]; then
    echo "mutants: ${files[*]}, second pass (the whole suite) over $(wc -l <"$missed") survivors"
    res=()
    while IFS= read -r m; do
      res+=(-F "^$(printf '%s' "$m" | sed 's/[][\.*^$(){}+?|]/\\&/g')\$")
    done <"$missed"
    rc=0
    $CARGO mutants --no-shuffle -j "$JOBS" "${file_args[@]}" "${res[@]}" \
      -o "$dir-whole" || rc=$?
    case $rc in 0|2|3) ;; *) echo "mutants: cargo mutants failed ($rc) on ${files[*]} (second pass)" >&2; exit "$rc" ;; esac
  fi
  echo "mutants: ${files[*]} took $(( $(date +%s) - start )) s"
done

# The equivalent mutants docs/mutants.md argues are counted apart, not
# against the score (rule MUT-EQUIVALENT).
$CARGO run --quiet --example mutants_table -- --equivalent spec/mutants-equivalent.tsv "$OUT"
