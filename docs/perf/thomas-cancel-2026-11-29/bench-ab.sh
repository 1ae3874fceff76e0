#!/bin/bash
# BASE: a built checkout of 1bbed1c (before); NEW: this one (after). Output: bench-ab.txt.
# before/after, alternating: thomas_cpu and thomas_3d (x, y, z), double and float, 1 thread
for pass in 1 2; do
  for v in before after; do
    B=$BASE; [ $v = after ] && B=$NEW
    echo "== pass $pass $v $(date -u +%T)"
    $B/build/tridlab bench --kernels thomas_cpu,thomas_3d --sizes 256,1024,4096 --threads 1 --precision both --unknowns 262144 --reps 21 2>/dev/null | awk -F, 'NR==1{for(i=1;i<=NF;i++)h[$i]=i; next} {print $h["kernel"], $h["dir"], $h["precision"], $h["n"], $h["ns_per_unknown"]}' 
    $B/build/tridlab bench --kernels thomas_cpu,thomas_3d --sizes 1024 --threads 1 --precision both --unknowns 16777216 --reps 5 2>/dev/null | awk -F, 'NR==1{for(i=1;i<=NF;i++)h[$i]=i; next} {print "mem", $h["kernel"], $h["dir"], $h["precision"], $h["n"], $h["ns_per_unknown"], $h["limit_ratio"]}'
  done
done
