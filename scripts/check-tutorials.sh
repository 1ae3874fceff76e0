#!/bin/sh
# scripts/check-tutorials.sh -- run every command of the tutorials and
# compare its output with the output pasted under it.
#
# In tutorials/*.md, a ```console block holds lines `$ COMMAND` each
# followed by the output it prints. A line `...` in the output stands for
# any number of lines (what the page leaves out; so does any line that
# starts with "..."). Commands run from the
# repository root, in order, page by page, with `sh -c`; their exit
# status is not checked (a page that cares prints it: `; echo "exit $?"`).
# Scratch files go under lab/, which this script empties first.
# Usage: scripts/check-tutorials.sh [PAGE.md ...]   (default: all pages)
set -u
pages=${*:-$(ls tutorials/[0-9]*.md)}
work=$(mktemp -d "${TMPDIR:-/tmp}/tridlab-tutorials-XXXXXX")
trap 'rm -rf "$work"' EXIT
rm -rf lab && mkdir -p lab
# mpirun as root (containers, CI) and on more ranks than cores (docs/mpi.md).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
  OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_rmaps_base_oversubscribe=1
failed=0 ran=0
for page in $pages; do
  rm -f "$work"/cmd.* "$work"/exp.*
  # Split the page into cmd.N (one command) and exp.N (its output).
  awk -v dir="$work" '
    /^```console/ { inside = 1; next }
    /^```/        { inside = 0; next }
    inside && /^\$ / { n++; print substr($0, 3) > (dir "/cmd." n); printf "" > (dir "/exp." n); next }
    inside && n    { print > (dir "/exp." n) }
  ' "$page"
  k=1
  while [ -f "$work/cmd.$k" ]; do
    sh -c "$(cat "$work/cmd.$k")" > "$work/out" 2>&1 < /dev/null
    ran=$((ran + 1))
    # Match exp against out; "..." matches any number of lines.
    if ! awk -v outfile="$work/out" '
      BEGIN { while ((getline l < outfile) > 0) out[++no] = l }
      { want[++ne] = $0 }
      function match_from(i, j,   k) {
        if (i > ne) return j > no
        if (substr(want[i], 1, 3) == "...") {
          for (k = j; k <= no + 1; k++) if (match_from(i + 1, k)) return 1
          return 0
        }
        if (j > no || out[j] != want[i]) return 0
        return match_from(i + 1, j + 1)
      }
      END { exit match_from(1, 1) ? 0 : 1 }
    ' "$work/exp.$k"; then
      echo "FAILED: $page: \$ $(cat "$work/cmd.$k")"
      echo "--- expected"; cat "$work/exp.$k"; echo "--- got"; cat "$work/out"
      failed=$((failed + 1))
    fi
    k=$((k + 1))
  done
done
echo "check-tutorials: $ran commands, $failed failed"
[ "$failed" -eq 0 ]
