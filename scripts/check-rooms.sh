#!/bin/sh
# The rooms depend only downward (docs/design.md §1): every `#include "..."`
# of a .c, .h or .cu file of a room names a header of its own room or of a
# room below it. Run from the repository root (make check-rooms); prints
# one line per include that breaks the rule and exits 1 if there is one.
#
# A public header include/tridlab/NAME.h belongs to the room that defines
# what it declares (HEADERS below); a private header to the directory it
# is in. Private headers of another directory are reached through the
# include path from the repository root (-I. in the Makefile), as
# "core/template.h": an include that climbs with "../" fails, in any file.
# Files outside the rooms (tests/, examples/, apps/) may include anything.
set -eu

# The rooms, lowest first, as ROOM=LEVEL: a room may include its own
# headers and those of a room of a lower level (rooms of one level are
# siblings: neither includes the other).
ROOMS="core=1 reference=2 optimized/layout=3 optimized/cpu=4 optimized/gpu=4 optimized/mpi=5
verify=6 convergence=7 bench=8 cli=9"

# Each public header, as NAME=ROOM.
HEADERS="status=core system=core registry=core backend=core ledger=core residual=core
algorithms=reference part_distd2=reference part_hybrid_pcr=reference part_its=reference
part_nshaped=reference part_pdd=reference part_ptdma=reference part_rpdd=reference
part_tridsolver=reference part_spike=reference part_spike_dp=reference part_spike_givens=reference
phases=reference
layout=optimized/layout cpu=optimized/cpu gpu=optimized/gpu
mpi=optimized/mpi mpi_grid=optimized/mpi
verify=verify npy=verify port=verify trace=verify
convergence=convergence study=convergence sweep=convergence
bench=bench mpi_bench=bench mpi_model=bench
tridlab=cli"
# (tridlab.h, the umbrella that includes every room, only for the top.)

# Known exceptions, as FILE:HEADER, each with its reason on the line
# above it. None at present.
EXCEPTIONS=""

level_of() { # room -> level, empty when not a room
  for r in $ROOMS; do [ "${r%=*}" = "$1" ] && { echo "${r#*=}"; return; }; done
  return 0
}

room_of() { # path -> the longest room that is a prefix of it, else empty
  best=""
  case $1 in
  include/tridlab/*.h)
    name=${1#include/tridlab/}
    name=${name%.h}
    for h in $HEADERS; do [ "${h%%=*}" = "$name" ] && best=${h#*=}; done
    echo "$best"
    return
    ;;
  esac
  for r in $ROOMS; do
    case $1 in "${r%=*}"/*) [ ${#r} -gt ${#best} ] && best=${r%=*} ;; esac
  done
  echo "$best"
}

fail=0
bad() {
  echo "check-rooms: $1:$2: $3"
  fail=1
}

files=$(git ls-files --cached --others --exclude-standard -- '*.c' '*.h' '*.cu' | sort -u)
for f in $files; do
  [ -f "$f" ] || continue
  self=$(room_of "$f")
  case $f in include/tridlab/*.h)
    [ -n "$self" ] || bad "$f" 1 "a public header without a room: add it to HEADERS" ;;
  esac
  incs=$(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" |
    sed 's/^\([0-9]*\):[^"]*"\([^"]*\)".*/\1 \2/')
  [ -n "$incs" ] || continue
  while read -r line inc; do
    case $inc in
    ../* | */../*)
      bad "$f" "$line" "\"$inc\" climbs out of its directory: include it from the root"
      continue
      ;;
    esac
    [ -n "$self" ] || continue
    case " $EXCEPTIONS " in *" $f:$inc "*) continue ;; esac
    if [ -f "$(dirname "$f")/$inc" ]; then
      target="$(dirname "$f")/$inc"
    elif [ -f "include/$inc" ]; then
      target="include/$inc"
    elif [ -f "$inc" ]; then
      target=$inc
    else
      bad "$f" "$line" "\"$inc\" is not found from the include path"
      continue
    fi
    room=$(room_of "$target")
    if [ -z "$room" ]; then
      bad "$f" "$line" "\"$inc\" belongs to no room"
    elif [ "$room" != "$self" ] && [ "$(level_of "$room")" -ge "$(level_of "$self")" ]; then
      bad "$f" "$line" "$self includes \"$inc\" of $room, which is not below it"
    fi
  done <<EOF
$incs
EOF
done
[ $fail = 0 ] && echo "check-rooms: every room includes only its own headers and those below"
exit $fail
