#!/bin/sh
# make check's driver: runs each stage (a make target) in turn, times it,
# and prints every stage's wall time at the end -- also when a stage fails,
# which then ends the run with its exit status.
#
#   sh scripts/check-stages.sh MAKE NAME=TARGET ...
#
# Stages run one after another so that each time is the stage's own; each
# stage runs its own jobs in parallel (make -j passes its job slots down).
make=$1
shift
report=""
status=0
total_start=$(date +%s)
for stage in "$@"; do
  name=${stage%%=*}
  target=${stage#*=}
  echo "check: stage $name ($target)"
  start=$(date +%s)
  $make --no-print-directory $target || status=$?
  end=$(date +%s)
  line=$(printf '  %-12s %5d s' "$name" $((end - start)))
  [ $status = 0 ] || line="$line  FAILED (exit $status)"
  report="$report$line
"
  [ $status = 0 ] || break
done
echo "check: wall time of each stage"
printf '%s' "$report"
printf '  %-12s %5d s\n' total $(($(date +%s) - total_start))
exit $status
