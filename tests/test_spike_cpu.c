/* tests/test_spike_cpu.c -- SPIKE's batched local phase
 * (optimized/cpu/spike_cpu.c) against the reference phases it runs
 * (reference/spike_ref.c): g, V, W and the six tips bit for bit, on
 * random indefinite blocks that pivot in some lanes and not in others,
 * at every size around the tile and group edges, in every shape of a
 * partition (alone, first, middle, last), with the systems' rows packed
 * or strided; a singular block is flagged, alone in its group; and the
 * registry backend spike_cpu agrees with spike (status, system, row and
 * the bits of x) over the gallery at P = 1, 2, 3, 7. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "tridlab/cpu.h"
#include "tridlab/part_spike.h"
#include "tridlab/tridlab.h"

/* 1 when the n doubles at p and q are the same bits. */
static int same_bits(const double *p, const double *q, size_t n)
{
  return !memcmp(p, q, n * sizeof *p);
}

/* nsys systems of m rows, ld apart: a, b, c, d uniform in [-1, 1] (no
 * dominance: partial pivoting swaps about every other row), except every
 * third system, strictly dominant (b in [4, 5]: no swap at all). Every
 * fourth from system 1 has a tie at step 0, |a[1]| = |b[0]|, where
 * DGTTRF keeps row 0. */
static double *indefinite_slices(size_t m, size_t ld, size_t nsys, uint64_t seed)
{
  size_t cnt = ld * nsys;
  double *v = calloc(4 * cnt, sizeof *v);
  tl_rng rng;
  tl_rng_seed(&rng, seed);
  for (size_t s = 0; s < nsys; s++)
    for (size_t i = 0; i < m; i++) {
      size_t k = s * ld + i;
      v[k] = tl_rng_uniform(&rng, -1, 1);
      v[cnt + k] = s % 3 == 0 ? tl_rng_uniform(&rng, 4, 5) : tl_rng_uniform(&rng, -1, 1);
      v[2 * cnt + k] = tl_rng_uniform(&rng, -1, 1);
      v[3 * cnt + k] = tl_rng_uniform(&rng, -1, 1);
    }
  for (size_t s = 1; s < nsys && m > 1; s += 4)
    v[s * ld + 1] = -v[cnt + s * ld];
  return v;
}

/* The reference phases 1-3 of one system: status, g, v, w, tips, and the
 * number of row swaps its factorization made. */
static int reference_local(size_t m, int left, int right, const double *a, const double *b,
                           const double *c, const double *d, double *g, double *v, double *w,
                           double *tips, size_t *swaps)
{
  double *f = calloc(4 * m, sizeof *f);
  unsigned char *swap = calloc(m, 1);
  tl_info info;
  int st = tl_spike_factor_d(0, m, 0, a, b, c, f, f + m, f + 2 * m, f + 3 * m, swap, &info);
  *swaps = 0;
  for (size_t i = 0; i < m; i++)
    *swaps += swap[i];
  if (st == TL_OK)
    st = tl_spike_local_d(0, m, left, right, a, c, d, f, f + m, f + 2 * m, f + 3 * m, swap, g, v, w,
                          &info);
  if (st == TL_OK)
    tl_spike_tips_d(m, left, right, g, v, w, tips);
  free(f);
  free(swap);
  return st;
}

/* The kernel against the reference on nsys systems of m rows, ld apart,
 * in the shape (left, right); system `broken` (nsys or more: none) gets a
 * singular block (column 0 zero: b[0] = a[1] = 0). Returns the number of
 * systems whose factorization swapped rows. */
static size_t compare(size_t m, size_t ld, size_t nsys, int left, int right, size_t broken,
                      uint64_t seed)
{
  size_t cnt = ld * nsys, pivoted = 0;
  double *in = indefinite_slices(m, ld, nsys, seed);
  double *a = in, *b = in + cnt, *c = in + 2 * cnt, *d = in + 3 * cnt;
  if (broken < nsys) {
    b[broken * ld] = 0.0;
    if (m > 1)
      a[broken * ld + 1] = 0.0;
  }
  /* g, v, w, tips: the kernel's, then the reference's; v and w filled
   * with a sentinel, which a missing spike must leave. */
  double *out = malloc((6 * cnt + 12 * nsys) * sizeof *out);
  for (size_t k = 0; k < 6 * cnt + 12 * nsys; k++)
    out[k] = -7.25;
  double *g = out, *v = g + cnt, *w = v + cnt, *rg = w + cnt, *rv = rg + cnt, *rw = rv + cnt;
  double *tips = rw + cnt, *rtips = tips + 6 * nsys;
  unsigned char *flagged = malloc(nsys);
  memset(flagged, 9, nsys);
  tl_cpu_spike_local_d(m, ld, nsys, left, right, a, b, c, d, g, v, w, tips, flagged);
  for (size_t s = 0; s < nsys; s++) {
    size_t o = s * ld, swaps;
    int st = reference_local(m, left, right, a + o, b + o, c + o, d + o, rg + o, rv + o, rw + o,
                             rtips + 6 * s, &swaps);
    pivoted += swaps > 0;
    cr_expect_eq(flagged[s], st < 0,
                 "m=%zu ld=%zu nsys=%zu shape %d%d: system %zu flagged %d, reference %d", m, ld,
                 nsys, left, right, s, flagged[s], st);
    if (st < 0)
      continue;
    cr_expect(same_bits(g + o, rg + o, m), "m=%zu ld=%zu nsys=%zu shape %d%d: g of system %zu", m,
              ld, nsys, left, right, s);
    cr_expect(same_bits(v + o, rv + o, m), "m=%zu ld=%zu nsys=%zu shape %d%d: v of system %zu", m,
              ld, nsys, left, right, s);
    cr_expect(same_bits(w + o, rw + o, m), "m=%zu ld=%zu nsys=%zu shape %d%d: w of system %zu", m,
              ld, nsys, left, right, s);
    cr_expect(same_bits(tips + 6 * s, rtips + 6 * s, 6),
              "m=%zu nsys=%zu shape %d%d: the tips of system %zu", m, nsys, left, right, s);
    th_expect_spikes_untouched(v, w, o, m, left, right, s, -7.25);
  }
  free(in);
  free(out);
  free(flagged);
  return pivoted;
}

static void partial_lanes(size_t m, int left, int right, const double *a, const double *b,
                          const double *c, const double *d, unsigned char *flagged)
{
  double *out = malloc(3 * 8 * m * sizeof *out), tips[48];
  tl_cpu_spike_local_d(m, m, 8, left, right, a, b, c, d, out, out + 8 * m, out + 16 * m, tips,
                       flagged);
  free(out);
}

/* Every entry the pass uses reaches a pivot or a result, where an inf or
 * a NaN cannot become finite again: one bad entry flags its system and
 * no other; the corners it does not use (a[0] without a left neighbour,
 * c[m-1] without a right one) flag nothing, and spike_mpi checks them
 * apart (its own entry check relies on both). */
Test(spike_cpu, a_bad_entry_flags_its_system)
{
  th_expect_bad_entries_flagged(partial_lanes, 1);
}

static const size_t ms[] = {1, 2, 3, 8, 9, 33, 100};
static const size_t ns[] = {1, 7, 8, 9, 17};
#define NMS (sizeof ms / sizeof ms[0])
#define NNS (sizeof ns / sizeof ns[0])

/* Every size, count and shape, rows packed (ld = m) and strided (ld = m +
 * 5, a partition of a longer system); the blocks pivot in some systems
 * and not in others. */
Test(spike_cpu, local_phase_is_the_reference_bits)
{
  uint64_t seed = 1;
  for (size_t i = 0; i < NMS; i++)
    for (size_t j = 0; j < NNS; j++)
      for (int shape = 0; shape < 4; shape++)
        for (size_t ld = ms[i]; ld <= ms[i] + 5; ld += 5) {
          size_t pivoted = compare(ms[i], ld, ns[j], shape & 1, shape >> 1, (size_t)-1, seed++);
          if (ms[i] >= 3 && ns[j] >= 2) /* dominant systems 0, 3, .. never swap */
            cr_expect(pivoted > 0 && pivoted < ns[j], "m=%zu nsys=%zu: %zu systems pivoted", ms[i],
                      ns[j], pivoted);
        }
}

/* Within one group of eight the lanes choose differently row by row:
 * both outcomes of DGTTRF's test occur at one row in one group. */
Test(spike_cpu, lanes_of_a_group_pivot_differently)
{
  size_t m = 33, nsys = 8, cnt = m * nsys, mixed = 0;
  double *in = indefinite_slices(m, m, nsys, 42);
  double *f = calloc(4 * m, sizeof *f);
  unsigned char *swap = calloc(cnt, 1);
  tl_info info;
  for (size_t s = 0; s < nsys; s++) {
    size_t o = s * m;
    tl_spike_factor_d(0, m, 0, in + o, in + cnt + o, in + 2 * cnt + o, f, f + m, f + 2 * m,
                      f + 3 * m, swap + o, &info);
  }
  for (size_t i = 0; i + 1 < m; i++) {
    int any = 0, all = 1;
    for (size_t s = 0; s < nsys; s++)
      any |= swap[s * m + i], all &= swap[s * m + i];
    mixed += any && !all;
  }
  cr_expect(mixed > m / 4, "only %zu of %zu rows had lanes that swap and lanes that keep", mixed,
            m - 1);
  cr_expect_eq(compare(m, m, nsys, 1, 1, (size_t)-1, 42), 5, "systems 1, 2, 4, 5, 7 pivot");
  free(in);
  free(f);
  free(swap);
}

/* A singular block (a zero column) is flagged; the other systems of its
 * group keep the reference's bits. */
Test(spike_cpu, a_singular_block_is_flagged_alone)
{
  static const size_t sizes[] = {2, 3, 9, 33};
  uint64_t seed = 100;
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
    for (size_t broken = 0; broken < 17; broken += 4)
      for (int shape = 0; shape < 4; shape++)
        compare(sizes[i], sizes[i], 17, shape & 1, shape >> 1, broken, seed++);
}

/* ---------------------------------------------------------------- */
/* The registry backend against spike                                */

/* Every float64 gallery type (dominant or not, singular blocks included). */
Test(spike_cpu, backend_agrees_with_spike, .timeout = 300)
{
  th_expect_backend_is_reference_bits("spike_cpu", "spike");
}

/* Truncated SPIKE (phase 4 on the host is the reference's): the same. */
Test(spike_cpu, truncated_agrees_with_spike)
{
  const tl_algorithm *ca = tl_find("spike_cpu"), *ra = tl_find("spike");
  for (int P = 2; P <= 7; P += 5) {
    tl_problem p;
    tl_info info;
    cr_assert_eq(tl_gallery_make(th_gallery_id("toeplitz-4"), 400, 9, 3, &p, &info), TL_OK, "%s",
                 info.msg);
    tl_options oc, orr;
    tl_options_init(&oc);
    tl_options_init(&orr);
    oc.parts = orr.parts = P;
    cr_assert_eq(tl_options_set_param_kv(&oc, ca, "truncate=1", &info), TL_OK, "%s", info.msg);
    cr_assert_eq(tl_options_set_param_kv(&orr, ra, "truncate=1", &info), TL_OK, "%s", info.msg);
    size_t cnt = p.sys.n * p.sys.nsys;
    double *xc = calloc(cnt, sizeof *xc), *xr = calloc(cnt, sizeof *xr);
    tl_info ci, ri;
    int cs = tl_solve(ca, &p.sys, xc, &oc, &ci), rs = tl_solve(ra, &p.sys, xr, &orr, &ri);
    cr_expect_eq(cs, rs, "P=%d: %s | %s", P, ci.msg, ri.msg);
    cr_expect(ci.dropped == ri.dropped && ci.bound == ri.bound, "P=%d: dropped %g vs %g", P,
              ci.dropped, ri.dropped);
    cr_expect(same_bits(xc, xr, cnt), "P=%d: x differs", P);
    free(xc);
    free(xr);
    tl_problem_free(&p);
  }
}

/* Float64 only: another dtype is unsupported, with a message. */
Test(spike_cpu, complex_is_unsupported)
{
  tl_problem p;
  tl_info info;
  int id = th_gallery_id("helmholtz-damped");
  cr_assert(id >= 0);
  cr_assert_eq(tl_gallery_make(id, 16, 1, 1, &p, &info), TL_OK, "%s", info.msg);
  const tl_algorithm *ca = tl_find("spike_cpu");
  double complex_x[64];
  tl_options opt;
  tl_options_init(&opt);
  int st = ca->solve(ca, &p.sys, complex_x, &opt, &info);
  cr_expect_eq(st, TL_ERR_UNSUPPORTED);
  cr_expect(strstr(info.msg, "float64") != NULL, "%s", info.msg);
  tl_problem_free(&p);
}
