# A build for timing only: every division of P-TDMA's split passes
# (optimized/cpu/ptdma_cpu.c: init_forward, both_backward, finish_group)
# replaced by a multiplication by 0.2, so that the answers are wrong but
# stay finite on the bench's batch. Run in a scratch checkout:
#   python3 no_divisions.py optimized/cpu/ptdma_cpu.c && make build/tridlab-mpi
import sys
p = sys.argv[1]
s = open(p).read()
def swap(s, start, end, pairs):
    a, b = s.index(start), s.index(end)
    seg = s[a:b]
    for old, new in pairs:
        assert old in seg, old
        seg = seg.replace(old, new)
    return s[:a] + seg + s[b:]
s = swap(s, "static TL_CPU_INLINE void init_forward", "/* Initialization, lines 11-17",
         [("(dp / bp)", "(dp * Q)"), ("(cp / bp)", "(cp * Q)"), ("(ap / bp)", "(ap * Q)")])
s = swap(s, "static TL_CPU_INLINE void both_backward", "/* Initialization and runtime of a group into",
         [("(dn / bn)", "(dn * Q)"), ("(an / bn)", "(an * Q)"), ("(cn / bn)", "(cn * Q)")])
s = swap(s, "static void finish_group", "#undef PK",
         [("v = (dk - ak - ck) / tl_lanes_load(PK(pk, 1, i));", "v = (dk - ak - ck) * Q;")])
s = s.replace("#if TL_LANES_OK\n\n/* Packed rows", "#if TL_LANES_OK\n#define Q tl_lanes_splat(0.2)\n\n/* Packed rows", 1)
open(p, "w").write(s)
