#!/usr/bin/env python3
"""Summary of the peer kit's passes in one directory (pass*_tridlab_*.csv,
pass*_peers.csv): per pass and P, PaScaL_TDMA's and PDDTSV's times, and per
tridlab MPI program its time, limit_ratio and the ratios to both:
python3 summarize-peers.py peers > peers/summary.txt (likewise peers-head,
peers-distd2)"""
import csv
import math
import os
import sys


RAW = sys.argv[1] if len(sys.argv) > 1 else '.'


def rows(f):
    return {r['name']: r for r in csv.DictReader(open(os.path.join(RAW, f)))}


PROGRAMS = ('pdd_mpi', 'rpdd_mpi', 'distd2_mpi', 'its_mpi', 'ptdma_mpi', 'tridsolver_mpi',
            'hybrid_pcr_mpi', 'nshaped_mpi')
for ps in (1, 2):
    peers = {}
    for r in csv.DictReader(open(os.path.join(RAW, f'pass{ps}_peers.csv'))):
        peers.setdefault(r['block'], {})[r['name']] = r
    for P in (1, 2):
        t = [rows(f'pass{ps}_tridlab_P{P}_t{b}.csv') for b in (1, 2)]
        pb = [float(peers[f'P{P}_p{b}']['pascal_base']['t_med_s']) for b in (1, 2)]
        pn = [float(peers[f'P{P}_p{b}']['pascal_native']['t_med_s']) for b in (1, 2)]
        pdt = [float(t[b]['pddtsv']['t_med_s']) if 'pddtsv' in t[b] else math.nan for b in (0, 1)]
        print(f"pass {ps} P={P}: PaScaL base {pb[0]*1e3:.1f},{pb[1]*1e3:.1f} "
              f"native {pn[0]*1e3:.1f},{pn[1]*1e3:.1f} ms; PDDTSV {pdt[0]*1e3:.0f},{pdt[1]*1e3:.0f}")
        for a in PROGRAMS:
            tt = [float(t[b][a]['t_med_s']) for b in (0, 1)]
            fr = [float(t[b][a]['limit_ratio']) for b in (0, 1)]
            print(f"   {a:16s} {tt[0]*1e3:6.1f},{tt[1]*1e3:6.1f} ms  limit {fr[0]:.2f},{fr[1]:.2f}  "
                  f"PaScaL/this {pb[0]/tt[0]:.2f},{pb[1]/tt[1]:.2f}  "
                  f"PDDTSV/this {pdt[0]/tt[0]:.1f},{pdt[1]/tt[1]:.1f}")
