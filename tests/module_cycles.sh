#!/bin/sh
# Module dependency graph of src/: one edge "A B" for each top-level module A whose files name
# crate::B (B another top-level module), then tsort, which names any loop it finds.
# Usage: module_cycles.sh [SRC_DIR] [MODULE...]   (modules default to all of them)
set -eu
src=${1:-src}
[ $# -gt 0 ] && shift
edges=$(
    for path in "$src"/*; do
        name=$(basename "$path" .rs)
        case $name in lib | main) continue ;; esac
        if [ -d "$path" ]; then files=$(find "$path" -name '*.rs'); else files=$path; fi
        # shellcheck disable=SC2086
        sed 's:^\([^"]*\)//.*$:\1:' $files | tr '\n' ' ' |
            grep -oE 'crate::(\{[^}]*\}|[a-z_]+)' |
            sed -E 's/^crate:://; s/[{}]//g' | tr ',' '\n' |
            sed -E 's/^ *([a-z_]+).*/\1/' | grep -E '^[a-z_]+$' | sort -u |
            while read -r dep; do
                [ "$dep" != "$name" ] && { [ -e "$src/$dep.rs" ] || [ -d "$src/$dep" ]; } &&
                    echo "$name $dep"
            done
    done
)
if [ $# -gt 0 ]; then
    keep=" $* "
    edges=$(echo "$edges" | while read -r a b; do
        case $keep in *" $a "*) case $keep in *" $b "*) echo "$a $b" ;; esac ;; esac
    done)
fi
echo "$edges"
echo "--- tsort (a loop is reported as 'input contains a loop'):"
echo "$edges" | tsort >/dev/null && echo "acyclic"
