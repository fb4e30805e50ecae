#!/bin/bash
# Instructions and branch mispredicts per RouteOPT query, Newton solver against the 0.x breakpoint search,
# counted by valgrind (cachegrind with branch simulation): (run with S solves - run with 0 solves) / S, so
# Node's start-up and the warm-up cancel. Needs valgrind (apt-get install valgrind); slow (minutes).
# Usage: bash bench/instructions.sh [sizes, default "2 6 10"] [S, default 1000000]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
sizes=${1:-"2 6 10"}
S=${2:-1000000}
tmp=$(mktemp -d)
"$here/../../../node_modules/.bin/esbuild" "$here/instructions-entry.ts" --bundle --platform=node --format=esm \
  --outfile="$tmp/solve.mjs" --log-level=warning
count() {
  valgrind --tool=cachegrind --branch-sim=yes --cache-sim=no --cachegrind-out-file=/dev/null \
    node --single-threaded "$tmp/solve.mjs" "$1" "$2" "$3" 2>&1 |
    awk '/I *refs:/ { gsub(",", "", $4); ir = $4 } /Mispredicts:/ { gsub(",", "", $3); mp = $3 } END { print ir, mp }'
}
echo "n solver instructions/query mispredicts/query"
for n in $sizes; do
  for w in newton breakpoints; do
    read -r i0 m0 < <(count "$w" "$n" 0)
    read -r i1 m1 < <(count "$w" "$n" "$S")
    echo "$n $w $(( (i1 - i0) / S )) $(( (m1 - m0) / S ))"
  done
done
rm -rf "$tmp"
