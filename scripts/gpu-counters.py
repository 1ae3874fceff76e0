#!/usr/bin/env python3
"""scripts/gpu-counters.py -- the hardware counters of one device run as a
Markdown table (docs/gpu.md, "Counters").

Input: what scripts/gpu-measure.sh writes to counters.csv, one run of
`ncu --csv --print-units base --metrics ... tridlab-gpu-bench --n N --reps 1`
after another: each run prints the benchmark's own CSV rows (which say n)
and then Nsight Compute's rows, one per (launch, metric). Every kernel is
launched twice per run (a warm-up and one timed run): the table keeps the
later half of the launches of each (n, kernel, grid, block), summed where a
solve launches one kernel more than once (cuSPARSE's), so cold caches and
first-launch costs stay out of it. The division-rate kernel (ddiv_chains)
is left out: it solves nothing.

Columns, per unknown of the batch (--unknowns, 2^25 by default; one word is
the element size: 8 bytes for double kernels, 4 for float ones):
  DRAM words   bytes read and written at the device memory / unknowns / word
  DRAM %       dram__throughput as a percentage of its peak
  warps %      warps active over the multiprocessors' most (achieved occupancy)
  sectors/req  32-byte sectors per global load request: 4 (float) or 8
               (double) when a warp's 32 lanes read consecutive words,
               up to 32 when every lane reads its own sector (uncoalesced)
  inst         warp instructions executed per unknown

Usage: python3 scripts/gpu-counters.py counters.csv [--unknowns N]
"""
import csv
import re
import sys

METRICS = {
    "t": "gpu__time_duration.sum",
    "rd": "dram__bytes_read.sum",
    "wr": "dram__bytes_write.sum",
    "dram": "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "warps": "sm__warps_active.avg.pct_of_peak_sustained_active",
    "sect": "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "req": "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "inst": "smsp__inst_executed.sum",
}


def number(text):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def short(name):
    """The kernel's name without its parameter list and template noise."""
    name = re.sub(r"^void ", "", name)
    name = name.split("(")[0]
    return name


def read(path):
    """Launches as dicts: kernel, grid, n, metric values, in file order."""
    launches = {}
    order = []
    n = None
    header = None
    with open(path, newline="") as f:
        for row in csv.reader(f):
            if not row or row[0].startswith("=="):
                continue
            if row[0] == "ID":
                header = row
                continue
            if len(row) == 10 and row[1] in ("double", "float"):
                n = int(row[2])  # a benchmark row (kernel,precision,n,...): the run's n
                header = None
                continue
            if header and len(row) == len(header) and row[0].isdigit():
                d = dict(zip(header, row))
                key = (d["Process ID"], d["ID"])
                if key not in launches:
                    launches[key] = {"kernel": short(d["Kernel Name"]), "grid": d["Grid Size"],
                                     "block": d["Block Size"], "n": n, "pid": d["Process ID"]}
                    order.append(key)
                launches[key][d["Metric Name"]] = number(d["Metric Value"])
    return [launches[k] for k in order]


def combine(launches):
    """One row for the launches of one solve: counts summed, percentages averaged."""
    out = dict(launches[0])
    for name in METRICS.values():
        vals = [l[name] for l in launches if l.get(name) is not None]
        if not vals:
            continue
        out[name] = sum(vals) / len(vals) if "pct" in name else sum(vals)
    return out


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    unknowns = float(1 << 25)
    if "--unknowns" in argv:
        i = argv.index("--unknowns")
        if i + 1 >= len(argv):
            print("gpu-counters: --unknowns takes a count", file=sys.stderr)
            return 2
        unknowns = float(argv[i + 1])
        del argv[i:i + 2]
    rows = read(argv[0])
    groups = {}
    for r in rows:
        if r["kernel"] != "ddiv_chains":
            groups.setdefault((r["n"], r["pid"], r["kernel"], r["grid"], r["block"]), []).append(r)
    seen = {}
    for key, launches in groups.items():  # the later half: the timed solve's launches
        seen[key] = combine(launches[len(launches) // 2:])
    print("| n | kernel | grid, block | ms | DRAM words read + written | DRAM % | warps % | sectors/req | inst / unknown |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in seen.values():
        get = lambda k: r.get(METRICS[k])
        word = 4 if re.search(r"_f$|<float", r["kernel"]) else 8
        rd, wr = get("rd") or 0, get("wr") or 0
        per = lambda b: b / word / unknowns
        sect = get("sect") / get("req") if get("sect") is not None and get("req") else float("nan")
        inst = get("inst") / unknowns if get("inst") is not None else float("nan")
        print("| %s | `%s` | %s, %s | %.3f | %.2f + %.2f = %.2f | %.0f | %.0f | %.1f | %.2f |" % (
            r["n"], r["kernel"], r["grid"].replace(" ", ""), r["block"].replace(" ", ""), (get("t") or 0) / 1e6, per(rd),
            per(wr), per(rd + wr), get("dram") or 0, get("warps") or 0, sect, inst))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
