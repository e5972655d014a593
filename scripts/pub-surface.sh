#!/usr/bin/env bash
# The public surface, counted the project's agreed way: pub items and pub
# fields by grep, over every file of the crate (default features) and over
# the files a build with default features off compiles (lean).
#
#   scripts/pub-surface.sh [SRC]     prints four lines:
#     items <n>            every `pub` item line in SRC (default: src)
#     fields <n>           every `pub name:` field line in SRC
#     lean-items <n>       the same over the lean files
#     lean-fields <n>      the same over the lean files
#
#   PUB_SURFACE_MAX=N  exit 1 (naming the count) when `items` is above N.
#   PUB_SURFACE_LEAN_FILES=1  print the lean files instead.
#
# Lean files: the module tree walked from SRC/lib.rs, leaving out a
# `mod x;` whose attributes just above it gate it on `feature = "testkit"`,
# `feature = "cli"` or `test` (the binary, src/bin/, needs `cli`). Items
# gated inside a compiled file still count: the measure is per file.
set -euo pipefail
src=${1:-src}
src=${src%/}

item_re='^\s*pub (async )?(unsafe )?(fn|struct|enum|const|static|type|trait|mod|use|union|macro)\b'
field_re='^\s*pub [a-z_][a-z0-9_]*\s*:'

# The files compiled without default features, one a line.
lean_files() {
  local queue=("$src/lib.rs") file dir name
  while [ "${#queue[@]}" -gt 0 ]; do
    file=${queue[0]}
    queue=("${queue[@]:1}")
    [ -f "$file" ] || continue
    echo "$file"
    case $file in
      "$src/lib.rs") dir=$src ;;
      *) dir=${file%.rs} ;;
    esac
    # A `mod name;` line not gated by the attributes right above it.
    for name in $(awk '
      /^\s*#\[cfg\(/ {
        if ($0 ~ /feature *= *"(testkit|cli)"/ && $0 !~ /not\(/) gated = 1
        else if ($0 ~ /cfg\((all\()?test[,)]/) gated = 1
        next
      }
      /^\s*#\[/ || /^\s*\/\// || /^\s*$/ { next }
      /^\s*(pub(\([a-z]+\))? )?mod [a-z_0-9]+;/ {
        if (!gated) { s = $0; sub(/^.*mod /, "", s); sub(/;.*$/, "", s); print s }
      }
      { gated = 0 }
    ' "$file"); do
      queue+=("$dir/$name.rs")
    done
  done
}

if [ "${PUB_SURFACE_LEAN_FILES:-}" = 1 ]; then
  lean_files
  exit 0
fi

count() { # count REGEX FILE...
  local re=$1
  shift
  cat "$@" | grep -cE "$re" || true
}

mapfile -t all < <(find "$src" -name '*.rs' | sort)
mapfile -t lean < <(lean_files | sort)
items=$(count "$item_re" "${all[@]}")
fields=$(count "$field_re" "${all[@]}")
lean_items=$(count "$item_re" "${lean[@]}")
lean_fields=$(count "$field_re" "${lean[@]}")
echo "items $items"
echo "fields $fields"
echo "lean-items $lean_items"
echo "lean-fields $lean_fields"

max=${PUB_SURFACE_MAX:-}
if [ -n "$max" ] && [ "$items" -gt "$max" ]; then
  echo "scripts/pub-surface.sh: $items pub items in $src, above the bar of $max" >&2
  exit 1
fi
