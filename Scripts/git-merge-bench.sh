#!/usr/bin/env bash
# Times `git merge` of two branches that edited one Folio document (issue 30,
# item 9), through folio's merge driver, and then the first open of the merged
# package. The inputs are those a `FolioBenchmarks --merge N` run leaves in its
# folder (base.folio, ours.folio, theirs.folio: zoo-N and two branches of 1,000
# edits each), committed as a repository's base and two branches.
#
#   Scripts/git-merge-bench.sh /tmp/folio-bench/merge-1000000 [path/to/folio]
#
# Prints git's wall time and peak memory (the largest of git and the drivers it
# ran), its exit status (1 when the merge recorded conflicts), and the time and
# answer of `count Animal` on the merged package.
set -euo pipefail
folder=$(cd "$1" && pwd)
folio=$(command -v "${2:-folio}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
git init -q -b main repo
cd repo
git config user.email bench@example.invalid
git config user.name bench
"$folio" git setup >/dev/null
put() { rm -rf Doc.folio; cp -r "$folder/$1.folio" Doc.folio; git add -A; git commit -qm "$1"; }
put base
git checkout -qb theirs
put theirs
git checkout -q main
put ours
status=0
/usr/bin/time -f "git merge: %e s wall, %M KB peak" -o "$work/time" git merge -q --no-edit theirs >"$work/out" 2>&1 || status=$?
cat "$work/time"
echo "git merge exit status: $status ($(grep -c CONFLICT "$work/out" || true) files reported in conflict)"
printf 'count Animal\nconflicts\n' >"$work/script"
/usr/bin/time -f "first open of the merged package (folio --read-only, count Animal): %e s wall, %M KB peak" \
    "$folio" --read-only Doc.folio --script "$work/script" | head -3
