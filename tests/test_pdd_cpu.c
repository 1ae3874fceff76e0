/* tests/test_pdd_cpu.c -- PDD's loops in SIMD lanes (optimized/cpu/pdd_cpu.c)
 * against the reference's (reference/pdd_ref.c, reference/spike_bound.c),
 * on partitions of 1 to 1000 rows (the SIMD loops' remainders and the
 * margin's blocks of 256 rows), first, middle and last of their system:
 * the correction's x and largest |x| bit for bit, with spikes of every
 * reach (none, part, whole), and a value that overflows (left to the
 * reference, x untouched); the margin and its first row bit for bit, with
 * ties, a row that is not dominant, a NaN and infinite diagonals (left to
 * the reference); a correction whose values are finite but whose sum
 * overflows (left to the reference, which succeeds); the
 * mirrored block and the reversal.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "tridlab/backend.h"
#include "tridlab/cpu.h"
#include "tridlab/part_pdd.h"
#include "tridlab/verify.h"

static const size_t sizes[] = {1, 2, 3, 7, 8, 9, 17, 255, 256, 257, 600, 1000};
#define NSIZES (sizeof sizes / sizeof sizes[0])

/* Partition q of three (the first, the middle, the last) of m rows each,
 * its spikes in `spikes` (2 m values). */
static void part3(tl_pdd_part_d *pt, size_t m, int q, double *spikes)
{
  size_t ps[3] = {m, m, m};
  tl_info info;
  cr_assert_eq(tl_pdd_part_init_in_d(pt, 3 * m, 3, ps, q, spikes, &info), TL_OK, "%s", info.msg);
  tl_pdd_ref_spike_lengths_d(pt);
}

Test(pdd_cpu, correction_same_bits_as_reference)
{
  tl_rng st;
  tl_rng_seed(&st, 0x1234u);
  for (size_t z = 0; z < NSIZES; z++)
    for (int q = 0; q < 3; q++)
      for (int reach = 0; reach < 3; reach++) {
        size_t m = sizes[z];
        double *spikes = malloc(2 * m * sizeof *spikes), *x0 = malloc(m * sizeof *x0);
        double *xr = malloc(m * sizeof *xr), *xs = malloc(m * sizeof *xs);
        cr_assert(spikes && x0 && xr && xs);
        tl_pdd_part_d pt;
        part3(&pt, m, q, spikes);
        if (reach == 1) /* truncated spikes, as RPDD keeps them */
          pt.kv = pt.kv / 2, pt.kw = pt.kw / 3;
        if (reach == 2) /* none */
          pt.kv = pt.kw = 0;
        for (size_t i = 0; i < m; i++) {
          pt.v[i] = tl_rng_uniform(&st, -1.0, 1.0);
          pt.w[i] = tl_rng_uniform(&st, -1.0, 1.0);
          x0[i] = tl_rng_uniform(&st, -3.0, 3.0);
        }
        pt.x_left = tl_rng_uniform(&st, -2.0, 2.0), pt.x_right = tl_rng_uniform(&st, -2.0, 2.0);
        memcpy(xr, x0, m * sizeof *xr);
        memcpy(xs, x0, m * sizeof *xs);
        tl_info info;
        cr_assert_eq(tl_pdd_ref_correct_d(&pt, xr, &info), TL_OK);
        double xmax = -1.0;
        cr_assert(tl_cpu_pdd_correct_d(m, pt.kv, pt.kw, pt.v, pt.w, pt.x_left, pt.x_right, xs,
                                       &xmax));
        cr_expect(!memcmp(xr, xs, m * sizeof *xs) && !memcmp(&xmax, &pt.xmax, sizeof xmax),
                  "m %zu, partition %d, reach %d: x or max |x| (%a, %a) differ", m, q, reach,
                  xmax, pt.xmax);
        /* an overflow: the kernel declines and leaves x alone */
        if (pt.kv > 0) {
          pt.v[pt.kv - 1] = 1e308, pt.x_left = 1e10;
          memcpy(xs, x0, m * sizeof *xs);
          cr_expect(!tl_cpu_pdd_correct_d(m, pt.kv, pt.kw, pt.v, pt.w, pt.x_left, pt.x_right, xs,
                                          &xmax),
                    "m %zu: an overflow is not the kernel's to report", m);
          cr_expect(!memcmp(xs, x0, m * sizeof *xs), "m %zu: x was touched", m);
          cr_expect_eq(tl_pdd_ref_correct_d(&pt, xs, &info), TL_ERR_BREAKDOWN);
        }
        /* every value finite, but their sum overflows: the kernel declines
         * and the reference, on the untouched x, succeeds */
        if (m >= 2 && reach == 2) {
          for (size_t i = 0; i < m; i++)
            x0[i] = 1.5e308;
          memcpy(xs, x0, m * sizeof *xs);
          cr_expect(!tl_cpu_pdd_correct_d(m, pt.kv, pt.kw, pt.v, pt.w, pt.x_left, pt.x_right, xs,
                                          &xmax),
                    "m %zu: a sum that overflows is the reference's to judge", m);
          cr_expect(!memcmp(xs, x0, m * sizeof *xs), "m %zu: x was touched", m);
          cr_expect_eq(tl_pdd_ref_correct_d(&pt, xs, &info), TL_OK);
        }
        tl_pdd_part_free_d(&pt);
        free(spikes);
        free(x0);
        free(xr);
        free(xs);
      }
}

Test(pdd_cpu, margin_same_bits_as_reference)
{
  tl_rng st;
  tl_rng_seed(&st, 0x9876u);
  for (size_t z = 0; z < NSIZES; z++)
    for (int q = 0; q < 3; q++)
      for (int variant = 0; variant < 5; variant++) {
        size_t m = sizes[z];
        double *spikes = calloc(2 * m, sizeof *spikes), *a = malloc(3 * m * sizeof *a);
        cr_assert(spikes && a);
        double *b = a + m, *c = b + m;
        for (size_t i = 0; i < m; i++) {
          a[i] = tl_rng_uniform(&st, -1.0, 1.0);
          c[i] = tl_rng_uniform(&st, -1.0, 1.0);
          b[i] = tl_rng_uniform(&st, 2.0, 4.0);
        }
        if (variant == 1) /* ties: the first must win, across blocks too */
          for (size_t i = 0; i < m; i += 130)
            a[i] = 1.0, b[i] = 2.5, c[i] = -1.0;
        if (variant == 2) /* not dominant, at the end */
          b[m - 1] = 0.0;
        if (variant == 3) /* a NaN: the reference's rules */
          b[m / 2] = NAN;
        if (variant == 4) /* every |b| infinite: no margin below +inf */
          for (size_t i = 0; i < m; i++)
            b[i] = INFINITY;
        tl_pdd_part_d pt;
        part3(&pt, m, q, spikes);
        tl_pdd_bound_local_d(&pt, a, b, c);
        double margin = 0.0;
        long row = -7;
        int took = tl_cpu_pdd_margin_d(m, q > 0, q < 2, a, b, c, &margin, &row);
        if (variant >= 3) {
          cr_expect(!took, "m %zu, variant %d: the reference's to judge", m, variant);
        } else {
          cr_expect(took && !memcmp(&margin, &pt.margin, sizeof margin) &&
                        (long)pt.begin + row == pt.margin_row,
                    "m %zu, partition %d, variant %d: margin %a row %ld, reference %a row %ld", m,
                    q, variant, margin, (long)pt.begin + row, pt.margin, pt.margin_row);
        }
        tl_pdd_part_free_d(&pt);
        free(spikes);
        free(a);
      }
}

Test(pdd_cpu, mirror_and_reverse)
{
  const size_t m = 37, k = 3;
  double *in = malloc(3 * m * k * sizeof *in), *out = malloc(3 * m * k * sizeof *out);
  cr_assert(in && out);
  for (size_t i = 0; i < 3 * m * k; i++)
    in[i] = (double)i;
  const double *a = in, *b = in + m * k, *c = in + 2 * m * k;
  double *ma = out, *mb = out + m * k, *mc = out + 2 * m * k;
  tl_cpu_mirror_rows_d(m, k, a, b, c, ma, mb, mc);
  for (size_t j = 0; j < k; j++)
    for (size_t t = 0; t < m; t++) {
      size_t at = j * m + t, from = j * m + m - 1 - t;
      cr_expect(ma[at] == c[from] && mb[at] == b[from] && mc[at] == a[from],
                "system %zu, mirrored row %zu", j, t);
    }
  double back[37];
  tl_cpu_reverse_d(m, ma, back);
  for (size_t t = 0; t < m; t++)
    cr_expect(back[t] == c[t], "reversed row %zu", t);
  free(in);
  free(out);
}
