/* tests/test_stream_stores.c -- the batched local phases of the MPI rank
 * programs write whole tiles with streaming stores when their results are
 * larger than the cache and on 64-byte boundaries (optimized/cpu/lanes.h,
 * tl_cpu_set_stream_min_bytes): the same bits as with plain stores, for
 * every kernel that has them (Tridsolver's sweeps, the hybrid's modified
 * Thomas, P-TDMA's initialization and runtime, N-shaped's reduction,
 * DistD2's plans and decoupling), on slices of m = 64 rows (whole
 * tiles, on cache lines) and 36 (not: plain stores), in three groups
 * (Tridsolver's groups go two at a time: one is left over). The
 * threshold is lowered to 0 so that small batches take the streaming
 * path.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "tridlab/cpu.h"
#include "tridlab/verify.h"

enum { NSYS = 24, OUTS = 9 };

typedef struct batch {
  size_t m, cnt;
  double *a, *b, *c, *d;     /* inputs, dominant                     */
  double *out[OUTS];         /* outputs, 5 cnt each, on cache lines  */
  double extra[2][5 * NSYS]; /* per-system outputs                   */
  unsigned char bad[NSYS];
} batch;

static double *lines(size_t n)
{
  double *p = aligned_alloc(64, (n * sizeof *p + 63) / 64 * 64);
  cr_assert(p);
  memset(p, 0, n * sizeof *p);
  return p;
}

static void make(batch *bt, size_t m, uint64_t seed)
{
  memset(bt, 0, sizeof *bt);
  bt->m = m, bt->cnt = m * NSYS;
  tl_rng st;
  tl_rng_seed(&st, seed);
  double **in[4] = {&bt->a, &bt->b, &bt->c, &bt->d};
  for (int k = 0; k < 4; k++)
    *in[k] = lines(bt->cnt);
  for (size_t i = 0; i < bt->cnt; i++) {
    bt->a[i] = tl_rng_uniform(&st, -1.0, 1.0), bt->c[i] = tl_rng_uniform(&st, -1.0, 1.0);
    bt->b[i] = 3.0 + tl_rng_uniform(&st, 0.0, 1.0), bt->d[i] = tl_rng_uniform(&st, -4.0, 4.0);
  }
  for (int k = 0; k < OUTS; k++)
    bt->out[k] = lines(5 * bt->cnt);
}

static void drop(batch *bt)
{
  free(bt->a), free(bt->b), free(bt->c), free(bt->d);
  for (int k = 0; k < OUTS; k++)
    free(bt->out[k]);
}

/* Every kernel with streaming stores, once, into bt's outputs. */
static void run_all(batch *bt)
{
  size_t m = bt->m;
  double **o = bt->out, *F = bt->extra[0];
  for (size_t k = 0; k < 2 * NSYS; k++)
    F[k] = 0.25 * (double)(k % 7) - 0.5;
  tl_cpu_tridsolver_forward_d(m, m, NSYS, 1, 1, bt->a, bt->b, bt->c, bt->d, o[0], o[1], o[2],
                              bt->bad);
  tl_cpu_tridsolver_backward_d(m, m, NSYS, o[0], o[1], o[2], F, o[3], bt->bad);
  tl_cpu_hybrid_pcr_forward_d(m, m, NSYS, 1, 1, bt->a, bt->b, bt->c, bt->d, o[4], o[5], o[6],
                              bt->bad);
  tl_cpu_ptdma_init_d(3 * m, 0, m, m, NSYS, bt->a, bt->b, bt->c, o[0] + bt->cnt,
                      o[1] + bt->cnt, o[2] + bt->cnt, bt->bad);
  tl_cpu_ptdma_runtime_d(m, m, NSYS, bt->a, bt->c, o[1] + bt->cnt, bt->d, o[3] + bt->cnt, NULL);
  tl_cpu_nshaped_reduce_d(m, m - 1, NSYS, bt->a, bt->b, bt->c, bt->d, o[7], bt->extra[1],
                          bt->bad);
  tl_cpu_distd2_preprocess_lines_d(3 * m, 0, m, m, NSYS, bt->a, bt->b, bt->c, o[8],
                                   F + 2 * NSYS, F + 3 * NSYS, bt->bad);
  tl_cpu_distd2_decouple_lines_d(m, NSYS, o[8], F + 2 * NSYS, bt->d, o[5] + bt->cnt, bt->bad);
}

Test(stream_stores, the_bits_of_plain_stores)
{
  static const size_t ms[] = {64, 36};
  for (size_t z = 0; z < sizeof ms / sizeof ms[0]; z++) {
    batch plain, nt;
    make(&plain, ms[z], 0x5eedu + z);
    make(&nt, ms[z], 0x5eedu + z);
    size_t was = tl_cpu_set_stream_min_bytes(SIZE_MAX);
    run_all(&plain);
    tl_cpu_set_stream_min_bytes(0);
    run_all(&nt);
    tl_cpu_set_stream_min_bytes(was);
    for (int k = 0; k < OUTS; k++)
      cr_expect(!memcmp(plain.out[k], nt.out[k], 5 * plain.cnt * sizeof(double)),
                "m %zu: output %d differs with streaming stores", ms[z], k);
    cr_expect(!memcmp(plain.extra, nt.extra, sizeof plain.extra) &&
                  !memcmp(plain.bad, nt.bad, sizeof plain.bad),
              "m %zu: the per-system outputs differ", ms[z]);
    for (size_t s = 0; s < NSYS; s++)
      cr_expect_eq(plain.bad[s], 0, "m %zu: system %zu flagged", ms[z], s);
    drop(&plain);
    drop(&nt);
  }
  cr_expect_eq(tl_cpu_stream_min_bytes(), (size_t)32 << 20, "the default is restored");
}
