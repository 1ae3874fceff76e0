/* tests/test_spike_givens_cpu.c -- spike_givens's batched local phase
 * (optimized/cpu/spike_givens_cpu.c) against the reference phases it
 * runs (reference/spike_givens_ref.c): g, V, W, K and the eight tips bit
 * for bit, and a flag exactly where the reference fails, at every size
 * around the tile and group edges, in every shape of a partition (alone,
 * first, middle, last: the last factored bottom up), rows packed or
 * strided. The systems of a batch mix the rotations' cases: general ones,
 * a zero below the diagonal (the identity), a zero on it (a swap), a
 * singular block (R's last entry replaced, K != 0, where a neighbour can
 * carry it), a zero column and an infinite R(m-1,m-1) (breakdowns). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "tridlab/cpu.h"
#include "tridlab/part_spike_givens.h"
#include "tridlab/tridlab.h"

static int same_bits(const double *p, const double *q, size_t n)
{
  return !memcmp(p, q, n * sizeof *p);
}

/* Row i of the block as it is factored: i itself, or m-1-i bottom up. */
static size_t row_of(size_t m, int flip, size_t i)
{
  return flip ? m - 1 - i : i;
}

/* b[m-1] (the row factored last) such that the block's determinant is 0
 * up to rounding (the continuant D_i = b_i D_i-1 - a_i c_i-1 D_i-2 of the
 * rows in the order factored). */
static void make_singular(size_t m, int flip, double *a, double *b, double *c)
{
  double d2 = 1, d1 = b[row_of(m, flip, 0)];
  for (size_t i = 1; i + 1 < m; i++) {
    size_t r = row_of(m, flip, i), up = row_of(m, flip, i - 1);
    double sub = flip ? c[r] : a[r], sup = flip ? a[up] : c[up]; /* (i, i-1), (i-1, i) */
    double d0 = b[r] * d1 - sub * sup * d2;
    d2 = d1, d1 = d0;
  }
  size_t r = row_of(m, flip, m - 1), up = row_of(m, flip, m - 2);
  double sub = flip ? c[r] : a[r], sup = flip ? a[up] : c[up];
  b[r] = d1 != 0 ? sub * sup * d2 / d1 : 1;
}

/* nsys systems of m rows, ld apart, entries uniform in [-1, 1], system s
 * of kind s % 6: 0 general, 1 zeros below the diagonal of the factored
 * rows 0 and 2 (rotations that are the identity), 2 a zero diagonal entry
 * at the first row factored (a rotation that swaps), 3 a singular block,
 * 4 a zero column (the first row factored: diagonal and below), 5 an
 * infinite diagonal entry in the row factored last (R(m-1,m-1) = inf,
 * which no result shows: x / inf = 0). */
static double *givens_slices(size_t m, size_t ld, size_t nsys, int flip, uint64_t seed)
{
  size_t cnt = ld * nsys;
  double *v = calloc(4 * cnt, sizeof *v);
  tl_rng rng;
  tl_rng_seed(&rng, seed);
  for (size_t s = 0; s < nsys; s++) {
    double *a = v + s * ld, *b = a + cnt, *c = b + cnt, *d = c + cnt;
    for (size_t i = 0; i < m; i++) {
      a[i] = tl_rng_uniform(&rng, -1, 1), b[i] = tl_rng_uniform(&rng, -1, 1);
      c[i] = tl_rng_uniform(&rng, -1, 1), d[i] = tl_rng_uniform(&rng, -1, 1);
    }
    /* the entry below the diagonal at row i factored: a of row i+1, or
     * (bottom up) c of the row above */
    size_t r0 = row_of(m, flip, 1), r2 = m > 3 ? row_of(m, flip, 3) : r0;
    switch (s % 6) {
    case 1: *(flip ? &c[r0] : &a[r0]) = 0, *(flip ? &c[r2] : &a[r2]) = 0; break;
    case 2: b[row_of(m, flip, 0)] = 0; break;
    case 3: make_singular(m, flip, a, b, c); break;
    case 4: b[row_of(m, flip, 0)] = 0, *(flip ? &c[r0] : &a[r0]) = 0; break;
    case 5: b[row_of(m, flip, m - 1)] = INFINITY; break;
    }
  }
  return v;
}

/* The kernel against the reference on nsys systems; counts the systems
 * the reference modified (K != 0) and those it failed on. */
static void compare(size_t m, size_t ld, size_t nsys, int left, int right, uint64_t seed,
                    size_t *shifted, size_t *failed)
{
  int flip = left && !right;
  size_t cnt = ld * nsys;
  double *in = givens_slices(m, ld, nsys, flip, seed);
  double *a = in, *b = in + cnt, *c = in + 2 * cnt, *d = in + 3 * cnt;
  size_t total = 8 * cnt + 16 * nsys;
  double *out = malloc(total * sizeof *out);
  for (size_t k = 0; k < total; k++)
    out[k] = -7.25; /* a sentinel: V and W without their neighbour stay */
  double *g = out, *v = g + cnt, *w = v + cnt, *k = w + cnt, *rg = k + cnt, *rv = rg + cnt;
  double *rw = rv + cnt, *rk = rw + cnt, *tips = rk + cnt, *rtips = tips + 8 * nsys;
  unsigned char *flagged = malloc(nsys), *flags = malloc(m);
  double *f = malloc(tl_spike_givens.words * m * sizeof *f);
  memset(flagged, 9, nsys);
  tl_cpu_spike_givens_local_d(m, ld, nsys, left, right, a, b, c, d, g, v, w, k, tips, flagged);
  for (size_t s = 0; s < nsys; s++) {
    size_t o = s * ld;
    tl_info info;
    int st = tl_spike_givens.local_d(0, m, 0, left, right, a + o, b + o, c + o, d + o, f, flags,
                                     rg + o, rv + o, rw + o, &info);
    cr_expect_eq(flagged[s], st < 0,
                 "m=%zu ld=%zu nsys=%zu shape %d%d: system %zu flagged %d, reference %d (%s)", m,
                 ld, nsys, left, right, s, flagged[s], st, st < 0 ? info.msg : "");
    *failed += st < 0;
    if (st < 0)
      continue;
    *shifted += (flags[0] & TL_SPIKE_GIVENS_SHIFTED) != 0;
    memcpy(rk + o, f + (tl_spike_givens.words - 1) * m, m * sizeof *rk);
    tl_spike_tips_kernel_d(m, left, right, rg + o, rv + o, rw + o, rk + o, rtips + 8 * s);
    const char *what[4] = {"g", "v", "w", "K"};
    const double *got[4] = {g + o, v + o, w + o, k + o},
                 *want[4] = {rg + o, rv + o, rw + o, rk + o};
    for (int j = 0; j < 4; j++)
      cr_expect(same_bits(got[j], want[j], m), "m=%zu ld=%zu nsys=%zu shape %d%d: %s of system %zu",
                m, ld, nsys, left, right, what[j], s);
    cr_expect(same_bits(tips + 8 * s, rtips + 8 * s, 8),
              "m=%zu nsys=%zu shape %d%d: the tips of system %zu", m, nsys, left, right, s);
    th_expect_spikes_untouched(v, w, o, m, left, right, s, -7.25);
  }
  free(in);
  free(out);
  free(flagged);
  free(flags);
  free(f);
}

static void givens_lanes(size_t m, int left, int right, const double *a, const double *b,
                         const double *c, const double *d, unsigned char *flagged)
{
  double *out = malloc(4 * 8 * m * sizeof *out), tips[64];
  tl_cpu_spike_givens_local_d(m, m, 8, left, right, a, b, c, d, out, out + 8 * m, out + 16 * m,
                              out + 24 * m, tips, flagged);
  free(out);
}

/* Every entry the pass reads, the corners too, goes into its lane's
 * check sum: one bad entry flags its system and no other, at sizes with
 * a tile cut short and in every shape, bottom up included (what
 * spike_givens_mpi's own entry check relies on). */
Test(spike_givens_cpu, a_bad_entry_flags_its_system)
{
  th_expect_bad_entries_flagged(givens_lanes, 0);
}

/* The registry backend spike_givens_cpu against spike_givens over the
 * gallery (singular blocks, modified, included): the same status, system,
 * row and bits. */
Test(spike_givens_cpu, backend_agrees_with_spike_givens, .timeout = 300)
{
  th_expect_backend_is_reference_bits("spike_givens_cpu", "spike_givens");
}

/* Every size, count and shape, rows packed (ld = m) and strided (ld = m +
 * 5): the bits, and the flags where the reference fails; blocks were
 * modified in every shape with a neighbour, and the alone and the others
 * failed where their columns are zero. */
Test(spike_givens_cpu, local_phase_is_the_reference_bits)
{
  static const size_t ms[] = {1, 2, 3, 4, 8, 9, 17, 33, 100};
  static const size_t ns[] = {1, 7, 8, 9, 17};
  uint64_t seed = 1;
  for (int shape = 0; shape < 4; shape++) {
    size_t shifted = 0, failed = 0;
    for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++)
      for (size_t j = 0; j < sizeof ns / sizeof ns[0]; j++)
        for (size_t ld = ms[i]; ld <= ms[i] + 5; ld += 5)
          compare(ms[i], ld, ns[j], shape & 1, shape >> 1, seed++, &shifted, &failed);
    cr_expect(failed > 0, "shape %d: no system failed", shape);
    if (shape != 0) /* alone: no neighbour carries a null vector, no modification */
      cr_expect(shifted > 0, "shape %d: no block was modified", shape);
  }
}
