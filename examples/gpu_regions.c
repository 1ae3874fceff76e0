/* examples/gpu_regions.c -- a GPU kernel written as regions and barriers,
 * run on the host (tutorials/11-gpu-kernel.md walks through it). Build
 * with `make`; run build/examples/gpu_regions.
 *
 *   1. a block sum by tree reduction, written with tl_gpu_port.h: the
 *      same answer in every thread order, because every step ends at a
 *      barrier and no thread writes what another reads in the same step;
 *   2. the same sum with the barrier's work done in place inside one
 *      region: the thread orders disagree -- the emulator has found the
 *      race a GPU would show only sometimes -- and in every order, the
 *      one whose answer is right included, the checker names it from
 *      the loads and stores (TL_LD, TL_ST);
 *   3. PCR for n = 100 (not a power of two) with tridlab's kernel, one
 *      block of threads, in three orders: bit-identical to the serial
 *      reference every time;
 *   4. the registry: pcr_gpu on a gallery batch with a broken system
 *      reports the same system and row as pcr;
 *   5. with --plot PREFIX: PCR's regions as a picture (PREFIX.png, with
 *      gnuplot through the library's helpers, tridlab/study.h): a kernel
 *      with pcr_kernel's regions and row loop records, run on the
 *      emulator, which thread handles which row in which region, and
 *      checks that each row has exactly one thread per region.
 *
 * Exit status 0 when every check passes.
 */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "optimized/gpu/tl_gpu_port.h"
#include "tridlab/tridlab.h"

#define T_BLOCK 64

/* 1. Sum of v[0..63] by one block of 64 threads. Each step halves the
 * number of partial sums: thread t < h adds partial t + h to partial t.
 * Partials live in shared memory; every step is a region, every region
 * ends at a barrier, so thread t reads t + h only after the step that
 * wrote it has finished in every thread. */
TL_KERNEL(block_sum, const double *v, double *out)
{
  TL_SHARED_BEGIN();
  double *part = TL_SHARED_ARRAY(double, TL_BLOCK_THREADS);
  TL_REGION(t)
  {
    TL_ST(part, t) = TL_LD(v, t);
  }
  TL_BARRIER();
  for (int h = TL_BLOCK_THREADS / 2; h > 0; h /= 2) { /* uniform: the same h in every thread */
    TL_PER_THREAD(double, mine);                      /* read in one region, written in the next */
    TL_REGION(t)
    {
      TL_MY(mine) = t < h ? TL_LD(part, t) + TL_LD(part, t + h) : 0;
    }
    TL_BARRIER();
    TL_REGION(t)
    {
      if (t < h)
        TL_ST(part, t) = TL_MY(mine);
    }
    TL_BARRIER();
  }
  TL_REGION(t)
  {
    if (t == 0)
      TL_ST(out, 0) = TL_LD(part, 0);
  }
  TL_BARRIER();
}

/* 2. The same with all the steps in ONE region, no barrier between
 * them: thread t reads part[t + h] at step h, but thread t + h may not
 * have finished adding into it yet (on a GPU: it may not have run; on
 * the host: it runs after t in the forward order). A race. */
TL_KERNEL(racy_sum, const double *v, double *out)
{
  TL_SHARED_BEGIN();
  double *part = TL_SHARED_ARRAY(double, TL_BLOCK_THREADS);
  TL_REGION(t)
  {
    TL_ST(part, t) = TL_LD(v, t);
  }
  TL_BARRIER();
  TL_REGION(t) /* every step inside one region: the race */
  {
    for (int h = TL_BLOCK_THREADS / 2; h > 0; h /= 2)
      if (t < h)
        TL_ST(part, t) = TL_LD(part, t) + TL_LD(part, t + h);
  }
  TL_BARRIER();
  TL_REGION(t)
  {
    if (t == 0)
      TL_ST(out, 0) = TL_LD(part, 0);
  }
  TL_BARRIER();
}

/* 5. pcr_kernel's regions (optimized/gpu/gpu_kernels.h) with its row
 * loop, recording instead of computing: rows[r * n + i] counts the
 * threads that handled row i in region r (one, in a race-free kernel),
 * owner[] says which, busy[r * T + t] says whether thread t did anything
 * in region r. The regions: each thread's first failure set to none;
 * one per step s = 1, 2, 4, ... (row i from rows i - s, i, i + s of the
 * other buffer); x_i = d_i / b_i; thread 0 picks the first failure. */
#define MAP_N 20
#define MAP_T 8
#define MAP_REGIONS 16
TL_KERNEL(pcr_map, long n, int *rows, int *owner, int *busy, int *regions)
{
  int r = 0; /* kernel scope: the same region count in every thread */
  TL_REGION(t)
  {
    busy[r * TL_BLOCK_THREADS + t] = 1;
  }
  TL_BARRIER();
  for (long s = 1; s < n; s *= 2) { /* uniform: the same s in every thread */
    r++;
    TL_REGION(t)
    {
      for (long i = t; i < n; i += TL_BLOCK_THREADS) { /* row i of the next buffer */
        rows[r * n + i]++;
        owner[r * n + i] = t;
        busy[r * TL_BLOCK_THREADS + t] = 1;
      }
    }
    TL_BARRIER();
  }
  r++;
  TL_REGION(t)
  {
    for (long i = t; i < n; i += TL_BLOCK_THREADS) { /* x_i = d_i / b_i */
      rows[r * n + i]++;
      owner[r * n + i] = t;
      busy[r * TL_BLOCK_THREADS + t] = 1;
    }
  }
  TL_BARRIER();
  r++;
  TL_REGION(t)
  {
    if (t == 0) {
      busy[r * TL_BLOCK_THREADS + t] = 1;
      *regions = r + 1;
    }
  }
  TL_BARRIER();
}

/* The region names, as the picture's tics. */
static void region_name(int r, int regions, char *name, size_t size)
{
  if (r == 0)
    snprintf(name, size, "no failure yet");
  else if (r == regions - 2)
    snprintf(name, size, "x = d / b");
  else if (r == regions - 1)
    snprintf(name, size, "thread 0 picks");
  else
    snprintf(name, size, "step s = %d: i-%d, i, i+%d", 1 << (r - 1), 1 << (r - 1), 1 << (r - 1));
}

/* PREFIX.dat: region thread busy "rows" (one line per cell); PREFIX.gp:
 * the threads as lanes, the regions as columns, the barriers between. */
static void write_map(FILE *fd, FILE *fg, const char *dat, const char *png, const int *owner,
                      const int *busy, int regions)
{
  fprintf(fd, "# region thread busy rows\n");
  for (int r = 0; r < regions; r++)
    for (int t = 0; t < MAP_T; t++) {
      char text[64] = "";
      size_t len = 0;
      for (int i = 0; i < MAP_N; i++)
        if (r > 0 && r < regions - 1 && owner[r * MAP_N + i] == t)
          len += (size_t)snprintf(text + len, sizeof text - len, "%s%d", len ? " " : "", i);
      if (!busy[r * MAP_T + t])
        snprintf(text, sizeof text, "idle");
      else if (!len)
        snprintf(text, sizeof text, r == 0 ? "key = none" : "min of keys");
      fprintf(fd, "%d %d %d \"%s\"\n", r, t, busy[r * MAP_T + t], text);
    }
  tl_gp_begin(fg, png, 1300, 560);
  fprintf(fg,
          "unset grid\nset title 'PCR as regions and barriers: n = %d rows, a block of %d "
          "threads (thread t handles rows t, t + %d, ...)' noenhanced\n",
          MAP_N, MAP_T, MAP_T);
  fprintf(fg,
          "set xrange [-0.5:%d.5]\nset yrange [%d.5:-0.5]\nset ytics 1\nset ylabel "
          "'thread t of the block'\nset xlabel 'regions, in the order they run (dashed: "
          "TL_BARRIER, where every thread waits)' noenhanced\nset key off\nset xtics (",
          regions - 1, MAP_T - 1);
  for (int r = 0; r < regions; r++) {
    char name[32];
    region_name(r, regions, name, sizeof name);
    fprintf(fg, "%s'%s' %d", r ? ", " : "", name, r);
  }
  fputs(") noenhanced rotate by 20 right\n", fg);
  for (int r = 0; r < regions; r++)
    fprintf(fg, "set arrow from %d.5, graph 0 to %d.5, graph 1 nohead dt 2 lw 2 lc rgb 'black'\n",
            r, r);
  fputs("plot ", fg);
  tl_gp_str(fg, dat);
  fputs(" using 1:2:(0.46):(0.42):($3 > 0 ? 0xcfe0f5 : 0xeeeeee) with boxxyerror fs solid "
        "noborder lc rgb variable, \\\n  '' using 1:2:4 with labels font ',10'\n",
        fg);
}

/* Run pcr_map, check one thread per row per region, and draw it. 1 when
 * the check passes and the picture was made. */
static int plot_regions(const char *prefix)
{
  int rows[MAP_REGIONS * MAP_N] = {0}, owner[MAP_REGIONS * MAP_N], busy[MAP_REGIONS * MAP_T] = {0};
  int regions = 0, once = 1;
  memset(owner, 0xff, sizeof owner); /* -1: no thread */
  tl_gpu_set_order(TL_GPU_SHUFFLE, 5);
  TL_LAUNCH(pcr_map, 1, MAP_T, 0, (long)MAP_N, rows, owner, busy, &regions);
  once &= tl_gpu_launch_status(NULL) == TL_OK && regions <= MAP_REGIONS;
  for (int r = 1; r < regions - 1; r++)
    for (int i = 0; i < MAP_N; i++)
      once &= rows[r * MAP_N + i] == 1;
  printf("\n5. PCR's regions, n = %d, a block of %d threads: %d regions, every row handled by "
         "%s\n",
         MAP_N, MAP_T, regions, once ? "exactly one thread in each" : "SEVERAL THREADS");
  char copy[1024], base[1024], dat[1100], gp[1100], png[1100];
  snprintf(copy, sizeof copy, "%s", prefix);
  snprintf(base, sizeof base, "%s", prefix);
  const char *dir = dirname(copy), *stem = basename(base);
  snprintf(dat, sizeof dat, "%s.dat", stem);
  snprintf(gp, sizeof gp, "%s.gp", stem);
  snprintf(png, sizeof png, "%s.png", stem);
  tl_info info;
  FILE *fd = tl_out_open(dir, dat, &info), *fg = fd ? tl_out_open(dir, gp, &info) : NULL;
  int made = fd && fg;
  if (made) {
    write_map(fd, fg, dat, png, owner, busy, regions);
    made = tl_out_close(fd, dir, dat, &info) == TL_OK;
    made = tl_out_close(fg, dir, gp, &info) == TL_OK && made;
    made = made && tl_gnuplot_make(dir, gp, png, &info) == TL_OK;
  } else if (fd) {
    fclose(fd);
  }
  if (made)
    printf("   plot: %s.png\n", prefix);
  else
    fprintf(stderr, "gpu_regions: %s\n", info.msg);
  return once && made;
}

static const char *order_name[] = {"forward", "reverse", "shuffled"};

int main(int argc, char **argv)
{
  const char *plot = NULL;
  if (argc == 3 && !strcmp(argv[1], "--plot") && argv[2][0]) {
    plot = argv[2];
  } else if (argc != 1) {
    fprintf(stderr, "usage: gpu_regions [--plot PREFIX]\n");
    return 1;
  }
  int ok = 1;
  double v[T_BLOCK], sum[3], racy[3];
  tl_gpu_set_check(1); /* this example shows the checker: on, whatever TRIDLAB_GPU_CHECK says */
  for (int k = 0; k < T_BLOCK; k++)
    v[k] = 1.0 / (1.0 + k); /* sums whose value depends on the order of the additions */

  printf("1. and 2. a block sum of %d values, 64 threads, in three thread orders:\n", T_BLOCK);
  tl_info race[3]; /* what the checker said of the racy kernel */
  int clean = 1, named = 1;
  for (int o = 0; o < 3; o++) {
    tl_gpu_set_order((tl_gpu_order)o, 1);
    TL_LAUNCH(block_sum, 1, T_BLOCK, T_BLOCK * sizeof(double), v, &sum[o]);
    clean &= tl_gpu_launch_status(NULL) == TL_OK;
    TL_LAUNCH(racy_sum, 1, T_BLOCK, T_BLOCK * sizeof(double), v, &racy[o]);
    named &= tl_gpu_launch_status(&race[o]) == TL_ERR_ARG && !strcmp(race[o].arg, "race");
    printf("   %-8s  tree reduction %.17g   racy %.17g\n", order_name[o], sum[o], racy[o]);
  }
  int same = sum[0] == sum[1] && sum[1] == sum[2];
  int caught = racy[0] != racy[1] || racy[1] != racy[2];
  printf("   tree reduction: %s; racy version: %s\n", same ? "the same in every order" : "DIFFERS",
         caught ? "the orders disagree (race found)" : "NOT CAUGHT");
  printf("   the checker, tree reduction: %s; racy version, in each order:\n",
         clean ? "nothing to report" : "A REPORT");
  for (int o = 0; o < 3; o++)
    printf("   %-8s  %s\n", order_name[o], race[o].msg);
  ok &= same && caught && clean && named;

  /* 3. tridlab's PCR kernel: one block for one system of 100 rows. */
  size_t n = 100;
  tl_problem p;
  tl_info info;
  if (tl_gallery_make(20, n, 1, 3, &p, &info) != TL_OK)
    return 1;
  double xr[100], xg[100];
  int stat[TL_GPU_STAT_WORDS];
  tl_pcr_ref_d(n, p.a, p.b, p.c, p.d, xr, &info);
  printf("\n3. PCR, n = %zu, one block of %d threads, against the serial reference:\n", n,
         (int)((n + 31) / 32 * 32));
  for (int o = 0; o < 3; o++) {
    tl_gpu_set_order((tl_gpu_order)o, 7);
    int st = tl_gpu_pcr_d(n, 1, p.a, p.b, p.c, p.d, xg, stat, &info);
    int bits = !memcmp(xr, xg, sizeof xr);
    printf("   %-8s  status %s, answer %s\n", order_name[o], tl_status_name(st),
           bits ? "bit-identical to pcr" : "DIFFERENT");
    ok &= st == TL_OK && bits;
  }
  tl_problem_free(&p);

  /* 4. The registry: a batch of 8 systems, system 5 with a zero diagonal. */
  if (tl_gallery_make(20, n, 8, 4, &p, &info) != TL_OK)
    return 1;
  ((double *)p.b)[5 * n + 40] = 0;
  double *x = malloc(8 * n * sizeof *x);
  tl_info gi, ri;
  int sg = tl_solve(tl_find("pcr_gpu"), &p.sys, x, NULL, &gi);
  int sr = tl_solve(tl_find("pcr"), &p.sys, x, NULL, &ri);
  printf("\n4. registry, 8 systems, b[40] = 0 in system 5:\n   pcr_gpu (%s): %s\n   pcr: %s\n",
         tl_find("pcr_gpu")->backend, gi.msg, ri.msg);
  ok &= sg == sr && sg == TL_ERR_BREAKDOWN && gi.system == ri.system && gi.row == ri.row;
  free(x);
  tl_problem_free(&p);
  if (plot)
    ok &= plot_regions(plot);
  tl_gpu_set_order(TL_GPU_SHUFFLE, 1);
  printf("\n%s\n", ok ? "all checks passed" : "A CHECK FAILED");
  return ok ? 0 : 1;
}
