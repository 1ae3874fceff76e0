/* examples/gpu_regions.c -- a GPU kernel written as regions and barriers,
 * run on the host (tutorials/11-gpu-kernel.md walks through it). Build
 * with `make`; run build/examples/gpu_regions.
 *
 *   1. a block sum by tree reduction, written with tl_gpu_port.h: the
 *      same answer in every thread order, because every step ends at a
 *      barrier and no thread writes what another reads in the same step;
 *   2. the same sum with the barrier's work done in place inside one
 *      region: the thread orders disagree -- the emulator has found the
 *      race a GPU would show only sometimes;
 *   3. PCR for n = 100 (not a power of two) with tridlab's kernel, one
 *      block of threads, in three orders: bit-identical to the serial
 *      reference every time;
 *   4. the registry: pcr_gpu on a gallery batch with a broken system
 *      reports the same system and row as pcr.
 *
 * Exit status 0 when every check passes.
 */
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
  double *part = TL_SHARED_MEM(double);
  TL_REGION(t)
  {
    part[t] = v[t];
  }
  TL_BARRIER();
  for (int h = TL_BLOCK_THREADS / 2; h > 0; h /= 2) { /* uniform: the same h in every thread */
    TL_PER_THREAD(double, mine);                      /* read in one region, written in the next */
    TL_REGION(t)
    {
      TL_MY(mine, t) = t < h ? part[t] + part[t + h] : 0;
    }
    TL_BARRIER();
    TL_REGION(t)
    {
      if (t < h)
        part[t] = TL_MY(mine, t);
    }
    TL_BARRIER();
  }
  TL_REGION(t)
  {
    if (t == 0)
      *out = part[0];
  }
  TL_BARRIER();
}

/* 2. The same with all the steps in ONE region, no barrier between
 * them: thread t reads part[t + h] at step h, but thread t + h may not
 * have finished adding into it yet (on a GPU: it may not have run; on
 * the host: it runs after t in the forward order). A race. */
TL_KERNEL(racy_sum, const double *v, double *out)
{
  double *part = TL_SHARED_MEM(double);
  TL_REGION(t)
  {
    part[t] = v[t];
  }
  TL_BARRIER();
  TL_REGION(t) /* every step inside one region: the race */
  {
    for (int h = TL_BLOCK_THREADS / 2; h > 0; h /= 2)
      if (t < h)
        part[t] += part[t + h];
  }
  TL_BARRIER();
  TL_REGION(t)
  {
    if (t == 0)
      *out = part[0];
  }
  TL_BARRIER();
}

static const char *order_name[] = {"forward", "reverse", "shuffled"};

int main(void)
{
  int ok = 1;
  double v[T_BLOCK], sum[3], racy[3];
  for (int k = 0; k < T_BLOCK; k++)
    v[k] = 1.0 / (1.0 + k); /* sums whose value depends on the order of the additions */

  printf("1. and 2. a block sum of %d values, 64 threads, in three thread orders:\n", T_BLOCK);
  for (int o = 0; o < 3; o++) {
    tl_gpu_set_order((tl_gpu_order)o, 1);
    TL_LAUNCH(block_sum, 1, T_BLOCK, T_BLOCK * sizeof(double), v, &sum[o]);
    TL_LAUNCH(racy_sum, 1, T_BLOCK, T_BLOCK * sizeof(double), v, &racy[o]);
    printf("   %-8s  tree reduction %.17g   racy %.17g\n", order_name[o], sum[o], racy[o]);
  }
  int same = sum[0] == sum[1] && sum[1] == sum[2];
  int caught = racy[0] != racy[1] || racy[1] != racy[2];
  printf("   tree reduction: %s; racy version: %s\n", same ? "the same in every order" : "DIFFERS",
         caught ? "the orders disagree (race found)" : "NOT CAUGHT");
  ok &= same && caught && tl_gpu_launch_status(NULL) == TL_OK;

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
  tl_gpu_set_order(TL_GPU_SHUFFLE, 1);
  printf("\n%s\n", ok ? "all checks passed" : "A CHECK FAILED");
  return ok ? 0 : 1;
}
