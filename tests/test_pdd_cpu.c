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
 * correction at the ends of short spikes; the ends of y, v and w by
 * two eliminations (optimized/cpu/pdd_ends_cpu.c) against the whole
 * reference solutions, and their breakdown flags.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "tridlab/algorithms.h"
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
        double *mem = malloc(5 * m * sizeof *mem); /* spikes (2 m), x0, xr, xs */
        cr_assert(mem);
        double *spikes = mem, *x0 = mem + 2 * m, *xr = x0 + m, *xs = xr + m;
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
        free(mem);
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

/* The margin from the x-line kernel's row minima: rowmin is the margin of
 * a partition without neighbours, and with rows 0 and m-1 of the
 * neighbours a partition has, tl_cpu_pdd_margin_from_rows_d gives the
 * reference's margin bit for bit where it is positive; it declines a
 * margin that is not (its row is then searched for) or a NaN in the end
 * rows. The kernel's largest |x| is tl_cpu_max_abs_d's; with d's end
 * rows changed as it reads them (d_ends) and x by streaming stores, x
 * and it are the bits of a solve of a changed copy. Batches of 1 to 13
 * systems (whole and partial groups of 8), entries on a cache line or
 * one double past it (the kernel's whole and shifted tiles). */
/* The x-line kernel with `more` on a, b, c, d (into x) gives the bits
 * of its solve with `plain` (no row changed) of the copies (into xc),
 * and the same largest |x| (more->xmax, plain->xmax). */
static void same_as_copies(size_t m, size_t k, const double *const abcd[4],
                           const tl_cpu_lines_more *more, const double *const copies[4],
                           const tl_cpu_lines_more *plain, double *x, double *xc,
                           unsigned char *flag, const char *what, int variant)
{
  tl_info info;
  const double *const *v = abcd, *const *w = copies;
  cr_assert_eq(tl_cpu_thomas_lines_more_d(m, k, v[0], v[1], v[2], v[3], x, flag, more, &info),
               TL_OK);
  cr_assert_eq(tl_cpu_thomas_lines_more_d(m, k, w[0], w[1], w[2], w[3], xc, flag, plain, &info),
               TL_OK);
  cr_expect(!memcmp(x, xc, m * k * sizeof *x) && !memcmp(more->xmax, plain->xmax, k * sizeof *x),
            "m %zu, %zu systems, variant %d: x or its largest |x| differ (%s)", m, k, variant,
            what);
}

Test(pdd_cpu, margin_from_the_kernels_rows_same_bits)
{
  static const size_t counts[] = {1, 8, 13};
  tl_rng st;
  tl_rng_seed(&st, 0x5151u);
  for (size_t z = 1; z < NSIZES; z++)
    for (size_t ic = 0; ic < 3; ic++)
      for (int variant = 0; variant < 6; variant++) {
        size_t m = sizes[z], k = counts[ic], cnt = m * k;
        size_t bytes = ((14 * cnt + 8) * sizeof(double) + 63) / 64 * 64;
        double *mem = aligned_alloc(64, bytes), *rowmin = malloc(8 * k * sizeof *rowmin);
        unsigned char *flag = malloc(k);
        cr_assert(mem && rowmin && flag);
        /* on a cache line (whole tiles in registers to the last row) or one
         * double past it (shifted tiles) */
        double *a = mem + variant % 2, *b = a + cnt, *c = b + cnt, *d = c + cnt, *x = d + cnt,
               *x2 = x + cnt;
        double *dm = x2 + cnt, *x3 = dm + cnt;
        double *xmax = rowmin + k, *xmax2 = xmax + k, *xmax3 = xmax2 + k, *ends = xmax3 + k;
        for (size_t i = 0; i < cnt; i++) {
          a[i] = tl_rng_uniform(&st, -1.0, 1.0);
          c[i] = tl_rng_uniform(&st, -1.0, 1.0);
          b[i] = tl_rng_uniform(&st, 2.0, 4.0);
          d[i] = tl_rng_uniform(&st, -1.0, 1.0);
        }
        for (size_t s = 0; s < k; s++) {
          double *sa = a + s * m, *sb = b + s * m, *sc = c + s * m;
          if (variant == 1) /* ties, the end rows among them */
            for (size_t i = 0; i < m; i += 3)
              sa[i] = 1.0, sb[i] = 2.5, sc[i] = -1.0;
          if (variant == 2) /* a middle row not dominant */
            sb[m / 2] = 0.5;
          if (variant == 3) /* row 0 dominant only without its left neighbour */
            sa[0] = 10.0;
          if (variant == 4) /* row m-1 dominant only without its right one */
            sc[m - 1] = -10.0;
          if (variant == 5 && s % 2) /* NaN outside the solve's rows */
            sa[0] = NAN, sc[m - 1] = NAN;
        }
        tl_info info;
        tl_cpu_lines_more more = {rowmin, xmax, NULL, 0, NULL, NULL};
        cr_assert_eq(tl_cpu_thomas_lines_more_d(m, k, a, b, c, d, x, flag, &more, &info), TL_OK);
        /* d's end rows changed as the kernel reads them, x by streaming
         * stores where it can (part of a pass larger than the cache, n a
         * multiple of 8, x on b's offset): the bits of a solve of a
         * changed copy of d with plain stores */
        memcpy(dm, d, cnt * sizeof *d);
        for (size_t s = 0; s < k; s++) {
          ends[s] = tl_rng_uniform(&st, -1.0, 1.0);
          ends[k + s] = tl_rng_uniform(&st, -1.0, 1.0);
          dm[s * m] -= ends[s];
          dm[s * m + m - 1] -= ends[k + s];
        }
        tl_cpu_lines_more more2 = {NULL, xmax2, ends, (size_t)1 << 30, NULL, NULL};
        tl_cpu_lines_more more3 = {NULL, xmax3, NULL, 0, NULL, NULL};
        const double *const abcd[4] = {a, b, c, d};
        same_as_copies(m, k, abcd, &more2, (const double *const[4]){a, b, c, dm}, &more3, x2, x3,
                       flag, "end rows, streamed", variant);
        /* and row m-1 read as the identity row x_{m-1} = last[s] (x_last,
         * ITS's N^p) is the solve of copies of a, b and d with that row */
        double *am = x3 + cnt, *bm = am + cnt, *x4 = bm + cnt, *last = ends + 2 * k;
        memcpy(am, a, cnt * sizeof *a), memcpy(bm, b, cnt * sizeof *b);
        for (size_t s = 0; s < k; s++) {
          last[s] = tl_rng_uniform(&st, -1.0, 1.0);
          am[s * m + m - 1] = 0.0, bm[s * m + m - 1] = 1.0, dm[s * m + m - 1] = last[s];
        }
        tl_cpu_lines_more more4 = {NULL, xmax2, ends, 0, last, NULL};
        same_as_copies(m, k, abcd, &more4, (const double *const[4]){am, bm, c, dm}, &more3, x2, x4,
                       flag, "identity last row", variant);
        /* rows 0 and m-1 both read as identity rows (x_first and x_last,
         * P-TDMA's interior solve): the solve of copies of a, b, c and d
         * with those rows, d's end rows not changed (d_ends is not given) */
        double *cm = x4 + cnt, *x5 = cm + cnt, *first = last + k;
        memcpy(cm, c, cnt * sizeof *c), memcpy(dm, d, cnt * sizeof *d);
        for (size_t s = 0; s < k; s++) {
          first[s] = tl_rng_uniform(&st, -1.0, 1.0);
          am[s * m] = 0.0, bm[s * m] = 1.0, cm[s * m] = 0.0, dm[s * m] = first[s];
          dm[s * m + m - 1] = last[s];
        }
        tl_cpu_lines_more more5 = {.xmax = xmax2, .x_last = last, .x_first = first};
        same_as_copies(m, k, abcd, &more5, (const double *const[4]){am, bm, cm, dm}, &more3, x2, x5,
                       flag, "identity end rows", variant);
        for (size_t s = 0; s < k; s++) {
          const double *sa = a + s * m, *sb = b + s * m, *sc = c + s * m;
          cr_assert_neq(flag[s], 1, "m %zu system %zu: flagged", m, s);
          for (int q = 0; q < 3; q++) {
            double spikes[2 * 1000] = {0};
            tl_pdd_part_d pt;
            part3(&pt, m, q, spikes);
            tl_pdd_bound_local_d(&pt, sa, sb, sc);
            double mg = -7.0;
            int took = tl_cpu_pdd_margin_from_rows_d(m, q > 0, q < 2, sa, sb, sc, rowmin[s], &mg);
            int positive = pt.margin > 0.0 && pt.margin < INFINITY;
            cr_expect_eq(took, positive,
                         "m %zu variant %d system %zu partition %d: took %d, "
                         "reference margin %a",
                         m, variant, s, q, took, pt.margin);
            if (took && positive)
              cr_expect(!memcmp(&mg, &pt.margin, sizeof mg),
                        "m %zu variant %d system %zu partition %d: %a, reference %a", m, variant, s,
                        q, mg, pt.margin);
            tl_pdd_part_free_d(&pt);
          }
          double want = tl_cpu_max_abs_d(m, x + s * m);
          cr_expect(!memcmp(&want, &xmax[s], sizeof want), "m %zu system %zu: largest |x| %a, %a",
                    m, s, xmax[s], want);
          /* rowmin is the margin of a partition without neighbours */
          double alone = 0.0;
          long row;
          if (tl_cpu_pdd_margin_d(m, 0, 0, sa, sb, sc, &alone, &row))
            cr_expect(!memcmp(&alone, &rowmin[s], sizeof alone), "m %zu system %zu: %a, %a", m, s,
                      rowmin[s], alone);
        }
        free(mem);
        free(rowmin);
        free(flag);
      }
}

/* The correction at the ends (RPDD's short spikes): x and the largest |x|
 * bit for bit with the reference, the largest |x| of the rows between the
 * spikes given by tl_cpu_max_abs_d; overlapping spikes go to the whole
 * correction; an overflow is declined, x untouched. */
Test(pdd_cpu, correction_at_the_ends_same_bits)
{
  tl_rng st;
  tl_rng_seed(&st, 0x4321u);
  for (size_t z = 0; z < NSIZES; z++)
    for (int q = 0; q < 3; q++)
      for (int reach = 0; reach < 4; reach++) {
        size_t m = sizes[z];
        double *mem = malloc(5 * m * sizeof *mem); /* spikes (2 m), x0, xr, xs */
        cr_assert(mem);
        double *spikes = mem, *x0 = mem + 2 * m, *xr = x0 + m, *xs = xr + m;
        tl_pdd_part_d pt;
        part3(&pt, m, q, spikes);
        size_t kvs[4] = {pt.kv / 4, pt.kv ? 1 : 0, 0, pt.kv}, kws[4] = {pt.kw / 5, 0, 0, pt.kw};
        pt.kv = kvs[reach], pt.kw = kws[reach]; /* reach 3: whole (overlapping in the middle) */
        for (size_t i = 0; i < m; i++) { /* beyond the spikes: garbage, never read */
          pt.v[i] = i < pt.kv ? tl_rng_uniform(&st, -1.0, 1.0) : NAN;
          pt.w[i] = i + pt.kw >= m ? tl_rng_uniform(&st, -1.0, 1.0) : NAN;
          x0[i] = tl_rng_uniform(&st, -3.0, 3.0);
        }
        if (reach == 3)
          for (size_t i = 0; i < m; i++)
            pt.v[i] = i < pt.kv ? pt.v[i] : 0.0, pt.w[i] = i + pt.kw >= m ? pt.w[i] : 0.0;
        pt.x_left = tl_rng_uniform(&st, -2.0, 2.0), pt.x_right = tl_rng_uniform(&st, -2.0, 2.0);
        memcpy(xr, x0, m * sizeof *xr);
        memcpy(xs, x0, m * sizeof *xs);
        tl_info info;
        cr_assert_eq(tl_pdd_ref_correct_d(&pt, xr, &info), TL_OK);
        size_t mid = pt.kv + pt.kw <= m ? m - pt.kv - pt.kw : 0;
        double mid_max = tl_cpu_max_abs_d(mid, x0 + pt.kv), xmax = -1.0;
        cr_assert(tl_cpu_pdd_correct_ends_d(m, pt.kv, pt.kw, pt.v, pt.w, pt.x_left, pt.x_right,
                                            xs, mid_max, &xmax));
        cr_expect(!memcmp(xr, xs, m * sizeof *xs) && !memcmp(&xmax, &pt.xmax, sizeof xmax),
                  "m %zu, partition %d, reach %d: x or max |x| (%a, %a) differ", m, q, reach,
                  xmax, pt.xmax);
        if (pt.kw > 0 && pt.kv + pt.kw <= m) { /* an overflow at the far end */
          pt.w[m - 1] = 1e308, pt.x_right = -1e10;
          memcpy(xs, x0, m * sizeof *xs);
          cr_expect(!tl_cpu_pdd_correct_ends_d(m, pt.kv, pt.kw, pt.v, pt.w, pt.x_left,
                                               pt.x_right, xs, mid_max, &xmax),
                    "m %zu: an overflow is not the kernel's to report", m);
          cr_expect(!memcmp(xs, x0, m * sizeof *xs), "m %zu: x was touched", m);
        }
        tl_pdd_part_free_d(&pt);
        free(mem);
      }
  double none = -1.0, three[3] = {-2.0, 5.0, -7.5};
  cr_expect(tl_cpu_max_abs_d(0, &none) == 0.0 && tl_cpu_max_abs_d(3, three) == 7.5);
}

/* nsys systems of m rows, strictly dominant (|b| >= |a| + |c| + 1), the
 * couplings a[0], c[m-1] not zero. */
static void dominant_batch(tl_rng *st, size_t m, size_t nsys, double *a, double *b, double *c,
                           double *d)
{
  for (size_t k = 0; k < m * nsys; k++) {
    a[k] = tl_rng_uniform(st, -1.0, 1.0), c[k] = tl_rng_uniform(st, -1.0, 1.0);
    b[k] = (fabs(a[k]) + fabs(c[k]) + tl_rng_uniform(st, 1.0, 2.0)) * (k % 3 ? 1.0 : -1.0);
    d[k] = tl_rng_uniform(st, -5.0, 5.0);
  }
}

/* |got - want| within 64 eps of scale, or of |want| for the far ends of
 * the spikes (they decay, to below the smallest normal number at the
 * larger m). */
static int close_to(double got, double want, double scale)
{
  return fabs(got - want) <= 64 * 0x1p-52 * scale + 0x1p-1000;
}

/* The ends of y, v and w (tl_cpu_pdd_ends_d) against the reference's
 * whole solutions: Thomas for y, the spike sweeps for v and w; in SIMD
 * groups of 8 and the systems after them; each sweep alone writes only
 * its ends. */
Test(pdd_cpu, ends_of_y_v_w_as_the_reference)
{
  static const size_t counts[] = {1, 7, 8, 9, 17};
  tl_rng st;
  tl_rng_seed(&st, 0xe4d5u);
  for (size_t z = 0; z < NSIZES; z++)
    for (size_t h = 0; h < sizeof counts / sizeof counts[0]; h++) {
      size_t m = sizes[z], nsys = counts[h], cnt = m * nsys;
      double *mem = malloc((4 * cnt + 3 * m) * sizeof *mem), *ends = malloc(6 * nsys * 8);
      unsigned char *bad = malloc(nsys);
      cr_assert(mem && ends && bad);
      double *a = mem, *b = a + cnt, *c = b + cnt, *d = c + cnt, *y = d + cnt, *v = y + m;
      double *w = v + m;
      dominant_batch(&st, m, nsys, a, b, c, d);
      for (int sweeps = 1; sweeps <= 3; sweeps++) { /* down, up, both */
        int down = sweeps & 1, up = (sweeps >> 1) & 1;
        for (size_t k = 0; k < 6 * nsys; k++)
          ends[k] = 12345.0; /* what no sweep writes stays */
        tl_cpu_pdd_ends_d(m, nsys, down, up, a, b, c, d, ends, bad, NULL);
        for (size_t s = 0; s < nsys; s++) {
          const double *as = a + s * m, *bs = b + s * m, *cs = c + s * m, *ds = d + s * m;
          double *cp = malloc(m * sizeof *cp);
          cr_assert(cp);
          tl_info info;
          cr_assert_eq(tl_thomas_ref_d(m, as, bs, cs, ds, y, &info), TL_OK);
          cr_assert_eq(tl_pdd_ref_spike_first_fwd_d(m, as, bs, cs, 0, m, v, cp), -1);
          tl_pdd_ref_spike_first_back_d(m, v, cp);
          cr_assert_eq(tl_pdd_ref_spike_last_fwd_d(m, as, bs, cs, 0, m, w, cp), -1);
          tl_pdd_ref_spike_last_back_d(m, m, w, cp);
          double ys = 0, vs = 0, ws = 0;
          for (size_t i = 0; i < m; i++)
            ys = fmax(ys, fabs(y[i])), vs = fmax(vs, fabs(v[i])), ws = fmax(ws, fabs(w[i]));
          const double *e = ends + 6 * s;
          cr_expect_eq(bad[s], 0, "m %zu nsys %zu system %zu flagged", m, nsys, s);
          if (up)
            cr_expect(close_to(e[0], y[0], ys) && close_to(e[2], v[0], vs) &&
                          close_to(e[4], w[0], fabs(w[0])),
                      "m %zu nsys %zu system %zu: y_0 %g/%g, v_0 %g/%g, w_0 %g/%g", m, nsys, s,
                      e[0], y[0], e[2], v[0], e[4], w[0]);
          if (down)
            cr_expect(close_to(e[1], y[m - 1], ys) && close_to(e[3], v[m - 1], fabs(v[m - 1])) &&
                          close_to(e[5], w[m - 1], ws),
                      "m %zu nsys %zu system %zu: y_m-1 %g/%g, v_m-1 %g/%g, w_m-1 %g/%g", m,
                      nsys, s, e[1], y[m - 1], e[3], v[m - 1], e[5], w[m - 1]);
          for (int k = 0; k < 6; k++)
            if ((k % 2 == 0 && !up) || (k % 2 == 1 && !down))
              cr_expect(e[k] == 12345.0, "m %zu system %zu: end %d written", m, s, k);
          free(cp);
        }
      }
      free(mem);
      free(ends);
      free(bad);
    }
}

/* strict: whether every row is strictly dominant with |b| < 2^1023,
 * from either sweep, both or none, in a SIMD group and after the groups:
 * a row whose margin is exactly 0 (the first, an inner or the last row),
 * a NaN, or a strictly dominant row with b = 1.7e308 clears it
 * for its system alone. */
Test(pdd_cpu, ends_say_which_blocks_are_strictly_dominant)
{
  const size_t m = 37, nsys = 17;
  tl_rng st;
  tl_rng_seed(&st, 0x5717u);
  double *mem = malloc(4 * m * nsys * sizeof *mem), *ends = malloc(6 * nsys * sizeof *ends);
  unsigned char *bad = malloc(nsys), *strict = malloc(nsys);
  cr_assert(mem && ends && bad && strict);
  double *a = mem, *b = a + m * nsys, *c = b + m * nsys, *d = c + m * nsys;
  static const size_t rows[] = {0, 20, 36};
  for (int sweeps = 0; sweeps <= 3; sweeps++) /* none, down, up, both */
    for (int k = 0; k < 5; k++) {
      size_t s = k < 3 ? 3 + 5 * (size_t)k : k == 3 ? 16 : 10; /* 3, 8, 13, 10 (groups), 16 */
      dominant_batch(&st, m, nsys, a, b, c, d);
      size_t i = s * m + rows[k % 3];
      if (k == 3)
        a[i] = NAN;
      else if (k == 4) /* |b| + |c| = 3.3e308: not finite */
        a[i] = 0.0, b[i] = 1.7e308, c[i] = 1.6e308;
      else
        b[i] = fabs(a[i]) + fabs(c[i]); /* margin exactly 0: not strict, still no breakdown */
      memset(strict, 7, nsys);
      tl_cpu_pdd_ends_d(m, nsys, sweeps & 1, sweeps >> 1, a, b, c, d, ends, bad, strict);
      for (size_t q = 0; q < nsys; q++)
        cr_expect_eq(strict[q], q != s, "sweeps %d, system %zu not strict: strict[%zu] = %d",
                     sweeps, s, q, strict[q]);
    }
  free(mem);
  free(ends);
  free(bad);
  free(strict);
}

/* A zero pivot of either sweep, or a non-finite entry, flags its system
 * (and only it), in a SIMD group and after the groups. */
Test(pdd_cpu, ends_flag_what_breaks_down)
{
  const size_t m = 37, nsys = 9;
  tl_rng st;
  tl_rng_seed(&st, 0xbadu);
  double *mem = malloc(4 * m * nsys * sizeof *mem), *ends = malloc(6 * nsys * sizeof *ends);
  unsigned char *bad = malloc(nsys);
  cr_assert(mem && ends && bad);
  double *a = mem, *b = a + m * nsys, *c = b + m * nsys, *d = c + m * nsys;
  for (int twist = 0; twist < 4; twist++)
    for (size_t s = 3; s < nsys; s += 5) { /* system 3 (a group), system 8 (after it) */
      dominant_batch(&st, m, nsys, a, b, c, d);
      size_t o = s * m;
      int down = 1, up = 1;
      if (twist == 0) /* the top-down pivot of row 0 */
        b[o] = 0.0, down = 1, up = 0;
      if (twist == 1) /* the bottom-up pivot of row m-1 */
        b[o + m - 1] = 0.0, down = 0, up = 1;
      if (twist == 2) /* a NaN right-hand side, met by either sweep */
        d[o + 20] = NAN, down = s == 3, up = s != 3;
      if (twist == 3) /* an infinite coupling of the last row: w_{m-1} */
        c[o + m - 1] = INFINITY, down = 1, up = 0;
      tl_cpu_pdd_ends_d(m, nsys, down, up, a, b, c, d, ends, bad, NULL);
      for (size_t k = 0; k < nsys; k++)
        cr_expect_eq(bad[k], k == s, "twist %d, system %zu of %zu broken: flag of %zu is %d",
                     twist, s, nsys, k, bad[k]);
    }
  free(mem);
  free(ends);
  free(bad);
}
