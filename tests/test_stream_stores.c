/* tests/test_stream_stores.c -- the batched local phases of the MPI rank
 * programs write whole tiles with streaming stores when their results are
 * larger than the cache and on 64-byte boundaries (optimized/cpu/lanes.h,
 * tl_cpu_set_stream_min_bytes): the same bits as with plain stores, for
 * every kernel that has them (Tridsolver's sweeps, the hybrid's modified
 * Thomas, P-TDMA's initialization and runtime, and its step 4 with them
 * run again, N-shaped's reduction, DistD2's plans and decoupling, apart
 * and in one pass), on slices of m = 64 rows (whole
 * tiles, on cache lines) and 36 (not: plain stores), in three groups
 * (Tridsolver's groups go two at a time: one is left over). The
 * threshold is lowered to 0 so that small batches take the streaming
 * path.
 */
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "helpers.h"
#include "tridlab/cpu.h"
#include "tridlab/verify.h"

enum { NSYS = 24, OUTS = 11 };

typedef struct batch {
  size_t m, cnt;
  double *a, *b, *c, *d;     /* inputs, dominant                     */
  double *out[OUTS];         /* outputs, 5 cnt each, on cache lines  */
  double extra[3][5 * NSYS]; /* per-system outputs                   */
  unsigned char bad[NSYS];
  unsigned char flags[2 * NSYS]; /* P-TDMA's step 4: redo, tiny         */
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
  tl_cpu_ptdma_finish_d(3 * m, 0, m, m, NSYS, bt->a, bt->b, bt->c, bt->d, F, bt->bad,
                        o[6] + bt->cnt, bt->flags, bt->flags + NSYS);
  tl_cpu_nshaped_reduce_d(m, m - 1, NSYS, bt->a, bt->b, bt->c, bt->d, o[7], bt->extra[1],
                          bt->bad);
  tl_cpu_distd2_preprocess_lines_d(3 * m, 0, m, m, NSYS, bt->a, bt->b, bt->c, o[8], F + 2 * NSYS,
                                   F + 3 * NSYS, bt->bad, NULL);
  tl_cpu_distd2_decouple_lines_d(m, NSYS, o[8], F + 2 * NSYS, bt->d, o[5] + bt->cnt, bt->bad);
  double *G = bt->extra[2];
  tl_cpu_distd2_plan_decouple_lines_d(3 * m, 0, m, m, NSYS, bt->a, bt->b, bt->c, bt->d, o[9], o[10],
                                      G, G + NSYS, bt->bad, NULL);
}

/* The lane-path tests skip where th_lanes_built() says the build has no
 * lanes; a compiler that has the shuffles must build them, so that those
 * tests cannot skip unseen. */
Test(stream_stores, a_compiler_with_shuffles_builds_the_lanes)
{
#if !defined(TL_CPU_NO_SHUFFLE) && (defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 12))
  cr_assert(th_lanes_built(), "GCC 12+ or Clang, and no SIMD lanes");
#else
  cr_skip_test("a compiler without vector shuffles, or -DTL_CPU_NO_SHUFFLE");
#endif
}

Test(stream_stores, the_bits_of_plain_stores)
{
  int lanes = th_lanes_built();
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
                  !memcmp(plain.bad, nt.bad, sizeof plain.bad) &&
                  !memcmp(plain.flags, nt.flags, sizeof plain.flags),
              "m %zu: the per-system outputs differ", ms[z]);
    for (size_t s = 0; s < NSYS; s++) /* without lanes: all left to the reference */
      cr_expect_eq(plain.bad[s], lanes ? 0 : 1, "m %zu: system %zu flagged %d", ms[z], s,
                   plain.bad[s]);
    drop(&plain);
    drop(&nt);
  }
  cr_expect_eq(tl_cpu_stream_min_bytes(), (size_t)32 << 20, "the default is restored");
}

/* (No test here can see a missing fence: the stores of one thread are
 * seen by that thread in order.)
 *
 * The x-line kernel (tl_cpu_thomas_lines_d, thomas_3d along x) writes
 * whole tiles of a separate x with streaming stores when x lies as far
 * past a cache line as b and the lines are a multiple of a tile long
 * (thomas_lines_cpu.c, stream_x), and the same-traffic limit of
 * tl_solve's backends (tl_cpu_stream_abcdx_d) writes x's whole lines so.
 * Each: the same bits and flags as with plain stores, with x on b's
 * offset (streaming) and on another (plain), at lengths that are and are
 * not a multiple of a tile, in whole and partial groups; float lines,
 * which keep plain stores, the same either way. */
static void *offset_block(size_t count, size_t past, size_t elem, void **mem)
{
  *mem = aligned_alloc(64, ((count + 16) * elem + 63) / 64 * 64);
  cr_assert(*mem);
  memset(*mem, 0, ((count + 16) * elem + 63) / 64 * 64);
  return (char *)*mem + past * elem;
}

static void lines_case(size_t n, size_t nsys, size_t pb, size_t px)
{
  size_t count = n * nsys;
  void *mb[4], *mx[4];
  double *in[4];
  tl_rng st;
  tl_rng_seed(&st, 0xa11ce + n + nsys + 8 * pb + px);
  for (int k = 0; k < 4; k++)
    in[k] = offset_block(count, pb, sizeof(double), &mb[k]);
  for (size_t i = 0; i < count; i++) {
    in[0][i] = tl_rng_uniform(&st, -1.0, 1.0), in[2][i] = tl_rng_uniform(&st, -1.0, 1.0);
    in[1][i] = 3.0 + tl_rng_uniform(&st, 0.0, 1.0), in[3][i] = tl_rng_uniform(&st, -4.0, 4.0);
  }
  for (size_t s = 0; s < nsys; s++) /* the corners a[0], c[n-1] */
    in[0][s * n] = in[2][s * n + n - 1] = 0.0;
  double *x[4];
  float *fin[4], *fx[2];
  void *mf[4], *mfx[2];
  for (int k = 0; k < 4; k++) {
    x[k] = offset_block(count, px, sizeof(double), &mx[k]);
    fin[k] = offset_block(count, 2 * pb, sizeof(float), &mf[k]);
    for (size_t i = 0; i < count; i++)
      fin[k][i] = (float)in[k][i];
  }
  for (int k = 0; k < 2; k++)
    fx[k] = offset_block(count, 2 * px, sizeof(float), &mfx[k]);
  unsigned char flag[2][64];
  size_t dims[3] = {n, nsys, 1};
  tl_info info;
  for (int nt = 0; nt < 2; nt++) {
    size_t was = tl_cpu_set_stream_min_bytes(nt ? 0 : SIZE_MAX);
    cr_assert_eq(tl_cpu_thomas_lines_d(n, nsys, in[0], in[1], in[2], in[3], x[nt], flag[nt], &info),
                 TL_OK);
    cr_assert_eq(
        tl_cpu_thomas_3d_d(dims, TL_DIR_X, 8, in[0], in[1], in[2], in[3], x[2 + nt], &info), TL_OK);
    cr_assert_eq(
        tl_cpu_thomas_3d_f(dims, TL_DIR_X, 8, fin[0], fin[1], fin[2], fin[3], fx[nt], &info),
        TL_OK);
    tl_cpu_set_stream_min_bytes(was);
  }
  cr_expect(!memcmp(x[0], x[1], count * sizeof(double)) && !memcmp(flag[0], flag[1], nsys),
            "thomas_lines n %zu nsys %zu, b %zu x %zu doubles past a line: other bits", n, nsys, pb,
            px);
  cr_expect(!memcmp(x[2], x[3], count * sizeof(double)) &&
                !memcmp(x[0], x[2], count * sizeof(double)),
            "thomas_3d x n %zu nsys %zu, b %zu x %zu: other bits", n, nsys, pb, px);
  cr_expect(!memcmp(fx[0], fx[1], count * sizeof(float)),
            "float thomas_3d x n %zu nsys %zu, b %zu x %zu floats past: other bits", n, nsys,
            2 * pb, 2 * px);
  for (size_t s = 0; s < nsys; s++)
    cr_expect_eq(flag[0][s], 0, "n %zu: dominant system %zu flagged", n, s);
  for (int k = 0; k < 4; k++)
    free(mb[k]), free(mx[k]), free(mf[k]);
  free(mfx[0]), free(mfx[1]);
}

Test(stream_stores, x_lines_are_the_bits_of_plain_stores, .timeout = 60)
{
  static const size_t ns[] = {64, 72, 16, 37};
  static const size_t nsyss[] = {8, 17};
  static const size_t past[][2] = {{0, 0}, {2, 2}, {5, 5}, {2, 0}, {0, 3}};
  for (size_t in = 0; in < sizeof ns / sizeof ns[0]; in++)
    for (size_t ic = 0; ic < sizeof nsyss / sizeof nsyss[0]; ic++)
      for (size_t ip = 0; ip < sizeof past / sizeof past[0]; ip++) {
        /* one and two threads: a thread holding two groups runs them as a
         * pair (thomas_lines_cpu.c, lines_pairs) on a machine of many cores too */
        tl_cpu_set_threads(1 + (int)(ip % 2));
        lines_case(ns[in], nsyss[ic], past[ip][0], past[ip][1]);
      }
  tl_cpu_set_threads(0);
}

Test(stream_stores, the_limit_computes_what_it_says)
{
  enum { COUNT = 1000 };
  double a[COUNT], b[COUNT], c[COUNT], d[COUNT];
  for (size_t k = 0; k < COUNT; k++)
    a[k] = 0.5 + (double)k, b[k] = 2.0 + (double)(k % 3), c[k] = 0.25, d[k] = (double)k;
  /* one and two threads: each thread's share has whole blocks of 64
   * (more threads would leave none, and only the plain path would run) */
  for (int threads = 1; threads <= 2; threads++)
    for (size_t past = 0; past < 8; past++) {
      void *mem;
      double *x = offset_block(COUNT, past, sizeof(double), &mem);
      size_t was = tl_cpu_set_stream_min_bytes(0);
      tl_cpu_set_threads(threads);
      tl_cpu_stream_abcdx_d(COUNT, a, b, c, d, x);
      tl_cpu_set_threads(0);
      tl_cpu_set_stream_min_bytes(was);
      size_t bad = 0;
      for (size_t k = 0; k < COUNT; k++)
        bad += x[k] != (d[k] - a[k] * c[k]) * b[k];
      cr_expect_eq(bad, 0, "%d thread(s), x %zu doubles past a line: %zu values wrong", threads,
                   past, bad);
      free(mem);
    }
}

/* The registry's periodic path reads the lines in tiles on b's cache
 * lines and writes x's whole tiles by streaming stores where x is as
 * far past a line as b (optimized/cpu/thomas_periodic_cpu.c,
 * periodic_share_regs). Wherever the arrays lie, streaming or not, x
 * must be the reference's bits (the kernel makes its operations in its
 * order); and a system with one row not strictly dominant -- row 0,
 * a middle row, the last row -- or a NaN sends the batch to the
 * reference, whose answer and status come back. */
static void periodic_case(size_t n, size_t nsys, size_t pb, size_t px, size_t weak, int nan)
{
  size_t count = n * nsys;
  void *mb[4], *mx[3];
  double *in[4], *x[3];
  tl_rng st;
  tl_rng_seed(&st, 0xc1c1e + n + nsys + 8 * pb + px);
  for (int k = 0; k < 4; k++)
    in[k] = offset_block(count, pb, sizeof(double), &mb[k]);
  for (int k = 0; k < 3; k++) { /* x between guards: what the solve must not touch */
    x[k] = offset_block(count, px, sizeof(double), &mx[k]);
    for (size_t i = 0; i < count + 16 - px; i++)
      x[k][i] = -7.0;
    for (size_t i = 1; i <= px; i++)
      x[k][-(ptrdiff_t)i] = -7.0;
  }
  for (size_t i = 0; i < count; i++) {
    in[0][i] = tl_rng_uniform(&st, -1.0, 1.0), in[2][i] = tl_rng_uniform(&st, -1.0, 1.0);
    in[1][i] = 3.0 + tl_rng_uniform(&st, 0.0, 1.0), in[3][i] = tl_rng_uniform(&st, -4.0, 4.0);
  }
  size_t q = (nsys - 1) * n + weak; /* system nsys-1, row `weak`: NaN, or |b| = |a| + |c| */
  if (weak != SIZE_MAX)
    in[1][q] = nan ? NAN : fabs(in[0][q]) + fabs(in[2][q]);
  tl_batch sys = {.dtype = TL_F64,
                  .n = n,
                  .nsys = nsys,
                  .periodic = 1,
                  .a = in[0],
                  .b = in[1],
                  .c = in[2],
                  .d = in[3]};
  const tl_algorithm *opt = tl_find("thomas_periodic_cpu"), *ref = tl_find("thomas_periodic");
  cr_assert(opt && ref);
  tl_info info, rinfo;
  int rst = tl_solve(ref, &sys, x[2], NULL, &rinfo);
  for (int nt = 0; nt < 2; nt++) {
    size_t was = tl_cpu_set_stream_min_bytes(nt ? 0 : SIZE_MAX);
    int ost = tl_solve(opt, &sys, x[nt], NULL, &info);
    tl_cpu_set_stream_min_bytes(was);
    cr_expect_eq(ost, rst,
                 "n %zu nsys %zu b %zu x %zu past, weak row %zu, nt %d: status %d, the "
                 "reference's %d",
                 n, nsys, pb, px, weak, nt, ost, rst);
    if (rst == TL_OK)
      cr_expect(!memcmp(x[nt], x[2], count * sizeof(double)),
                "n %zu nsys %zu b %zu x %zu past, weak row %zu, nt %d: not the reference's bits", n,
                nsys, pb, px, weak, nt);
    else
      cr_expect(info.system == rinfo.system && info.row == rinfo.row,
                "n %zu nsys %zu, weak row %zu: system %ld row %ld, the reference's %ld %ld", n,
                nsys, weak, info.system, info.row, rinfo.system, rinfo.row);
    int guards = 1;
    for (size_t i = count; i < count + 16 - px; i++)
      guards &= x[nt][i] == -7.0;
    for (size_t i = 1; i <= px; i++)
      guards &= x[nt][-(ptrdiff_t)i] == -7.0;
    cr_expect(guards, "n %zu nsys %zu b %zu x %zu past, nt %d: written outside x", n, nsys, pb, px,
              nt);
  }
  for (int k = 0; k < 4; k++)
    free(mb[k]);
  for (int k = 0; k < 3; k++)
    free(mx[k]);
}

Test(stream_stores, periodic_lines_at_any_offset_are_the_references_bits, .timeout = 60)
{
  static const size_t ns[] = {3, 8, 16, 37, 64, 72};
  static const size_t nsyss[] = {8, 13, 17};
  static const size_t past[][2] = {{0, 0}, {2, 2}, {5, 5}, {2, 0}, {0, 3}, {7, 7}};
  for (size_t in = 0; in < sizeof ns / sizeof ns[0]; in++)
    for (size_t ic = 0; ic < sizeof nsyss / sizeof nsyss[0]; ic++)
      for (size_t ip = 0; ip < sizeof past / sizeof past[0]; ip++) {
        size_t n = ns[in];
        periodic_case(n, nsyss[ic], past[ip][0], past[ip][1], SIZE_MAX, 0);
        if (ip < 2) { /* rows 0, n-1 and a middle one weak, and a NaN, in the last group */
          periodic_case(n, nsyss[ic], past[ip][0], past[ip][1], 0, 0);
          periodic_case(n, nsyss[ic], past[ip][0], past[ip][1], n - 1, 0);
          periodic_case(n, nsyss[ic], past[ip][0], past[ip][1], n / 2, 0);
          periodic_case(n, nsyss[ic], past[ip][0], past[ip][1], n / 2, 1);
        }
      }
}

/* DistD2's packed substitution with du streamed (the compact scheme's
 * rounds): the bits of tl_cpu_distd2_substitute_sz_d for every SZ, on the
 * second of three partitions (rows 40-79 of 120), into an x 16 bytes past
 * a line (a group's first and last lines partial), past 8 bytes and onto
 * dt itself (both: plain stores). */
Test(stream_stores, distd2_substitution_streamed_is_the_plain_bits)
{
  size_t n = 120, nsys = 21;
  tl_problem p;
  tl_info info;
  tl_distd2_plan plan;
  th_distd2_gallery_plan(n, nsys, 3, &p, &plan);
  double xf[21], xl[21];
  for (size_t s = 0; s < nsys; s++)
    xf[s] = 0.25 * (double)s - 1.0, xl[s] = 1.5 - 0.125 * (double)s;
  static const size_t szs[] = {8, 16, 32, 64}, offs[] = {2, 1};
  for (size_t z = 0; z < 4; z++) {
    size_t sz = szs[z], cnt = tl_cpu_packed_count(n, nsys, sz);
    double *dt = lines(cnt), *want = lines(cnt), *buf = lines(cnt + 8);
    for (size_t q = 0; q < cnt; q++)
      dt[q] = sin(0.37 * (double)q);
    size_t was = tl_cpu_set_stream_min_bytes(0);
    cr_assert_eq(tl_cpu_distd2_substitute_sz_d(&plan, 1, nsys, sz, xf, xl, dt, want, &info), TL_OK,
                 "%s", info.msg);
    for (size_t o = 0; o < 2; o++) { /* x 16 bytes past a line (streamed), 8 (plain) */
      double *x = buf + offs[o];
      memset(buf, 0, (cnt + 8) * sizeof *buf);
      cr_assert_eq(tl_cpu_distd2_substitute_stream_sz_d(&plan, 1, nsys, sz, xf, xl, dt, x, &info),
                   TL_OK, "%s", info.msg);
      cr_expect(!memcmp(x, want, cnt * sizeof *x), "SZ %zu, x %zu bytes past a line", sz,
                8 * offs[o]);
    }
    double *same = lines(cnt), *same_want = lines(cnt); /* x = dt: in place, plain */
    memcpy(same, dt, cnt * sizeof *same);
    memcpy(same_want, dt, cnt * sizeof *same);
    cr_assert_eq(
        tl_cpu_distd2_substitute_sz_d(&plan, 1, nsys, sz, xf, xl, same_want, same_want, &info),
        TL_OK);
    cr_assert_eq(
        tl_cpu_distd2_substitute_stream_sz_d(&plan, 1, nsys, sz, xf, xl, same, same, &info), TL_OK);
    cr_expect(!memcmp(same, same_want, cnt * sizeof *same), "SZ %zu, in place", sz);
    tl_cpu_set_stream_min_bytes(was);
    free(dt), free(want), free(buf), free(same), free(same_want);
  }
  tl_distd2_plan_destroy(&plan);
  tl_problem_free(&p);
}
