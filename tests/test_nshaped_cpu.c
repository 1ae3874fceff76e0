/* tests/test_nshaped_cpu.c -- N-shaped's batched local stages
 * (optimized/cpu/nshaped_cpu.c) against the reference stages they run
 * (reference/nshaped_ref.c): RD, RU and JU (the block rows, the block
 * row that goes to the next partition, the joint line's reduced row),
 * then SS (x and the near-underflow flag). The same bits in every system
 * of a whole group of eight, the same systems flagged, at every size
 * around the tile and group edges, for a first, middle and last
 * partition, plain and periodic. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "tridlab/cpu.h"
#include "tridlab/part_nshaped.h"
#include "tridlab/backend.h"

/* 1 when the n doubles at p and q are the same bits. */
static int same_bits(const double *p, const double *q, size_t n)
{
  return !memcmp(p, q, n * sizeof *p);
}

/* SS on the reference's block rows of `ref` (rc[s]: RD's status; a
 * failed system is skipped), batched and reference, with support values
 * per system. System nsys-1 has d = 0 and zero support values: every
 * term of SS is zero, below the underflow threshold (tiny). System 1 of
 * three or more has an infinite support value: SS breaks down. */
static void compare_ss(size_t m, size_t L, size_t nsys, int q, tl_nshaped_state_d *st,
                       const int *rc, const double *ref)
{
  size_t cnt = m * nsys;
  double *sup = malloc(2 * nsys * sizeof *sup);
  double *x = calloc(2 * cnt, sizeof *x), *rx = x + cnt;
  unsigned char *skip = calloc(3 * nsys, 1), *tiny = skip + nsys, *bad = skip + 2 * nsys;
  for (size_t s = 0; s < nsys; s++) {
    sup[2 * s] = 0.25 * (double)(s % 7) - 0.5, sup[2 * s + 1] = 0.125 * (double)(s % 5) + 0.3;
    if (s + 1 == nsys && nsys > 1)
      sup[2 * s] = sup[2 * s + 1] = 0.0;
    if (s == 1 && nsys > 2)
      sup[2 * s + 1] = INFINITY;
    skip[s] = rc[s] < 0;
  }
  tl_cpu_nshaped_substitute_d(m, L, nsys, ref, sup, skip, x, tiny, bad);
  for (size_t s = 0; s < nsys; s++) {
    size_t o = s * m;
    if (skip[s]) { /* left alone: its x as it was (rx's zeros) */
      cr_expect(!bad[s] && !tiny[s] && same_bits(x + o, rx + o, m),
                "m=%zu: skipped system %zu was touched", m, s);
      continue;
    }
    tl_info info;
    st[s].rx[q] = sup[2 * s], st[s].rx[((size_t)q + 1) % st[s].nj] = sup[2 * s + 1];
    int ss = tl_nshaped_ss_d(&st[s], q, rx + o, &info);
    int rt = ss == TL_OK ? tl_nshaped_ss_tiny_d(&st[s], q) : 0;
    if (L == 0) { /* no block: always left to the reference */
      cr_expect(bad[s], "m=%zu: system %zu without a block is not flagged", m, s);
      continue;
    }
    cr_expect_eq(bad[s], ss < 0, "m=%zu nsys=%zu part %d: SS of system %zu flagged %d, "
                 "reference %d", m, nsys, q, s, bad[s], ss);
    if (ss == TL_OK) {
      cr_expect(same_bits(x + o, rx + o, m), "m=%zu nsys=%zu part %d: system %zu's x differs",
                m, nsys, q, s);
      cr_expect_eq(tiny[s], rt, "m=%zu nsys=%zu part %d: system %zu tiny %d, reference %d", m,
                   nsys, q, s, tiny[s], rt);
    }
  }
  if (nsys > 1 && L > 0 && !skip[nsys - 1])
    cr_expect(tiny[nsys - 1], "m=%zu nsys=%zu: the zero system is not tiny", m, nsys);
  free(sup);
  free(x);
  free(skip);
}

/* Partition q of 3 (rows [q m, (q+1) m) of n = 3 m) of nsys dominant
 * systems; broken_sys < nsys gets a zero pivot at local row `row` (a = b
 * = 0 there: RD breaks down when the row is in the block). */
static void compare(size_t m, size_t nsys, int q, int periodic, size_t broken_sys, size_t row,
                    uint64_t seed)
{
  size_t cnt = m * nsys, n = 3 * m, whole = nsys / 8 * 8;
  /* The block: rows 1 .. L below the joint line J_q (row 0); the last
   * partition of a plain system ends on the last joint line, row n-1. */
  size_t L = (q < 2 || periodic) ? m - 1 : m - 2;
  double *v = th_dominant_slices(m, nsys, seed);
  double *a = v, *b = v + cnt, *c = v + 2 * cnt, *d = v + 3 * cnt;
  if (broken_sys < nsys)
    b[broken_sys * m + row] = 0.0, a[broken_sys * m + row] = 0.0;
  if (nsys > 1)
    memset(d + (nsys - 1) * m, 0, m * sizeof *d); /* see compare_ss */
  double *rows = calloc(4 * cnt, sizeof *rows), *ref = calloc(4 * cnt, sizeof *ref);
  double *ju = calloc(3 * nsys, sizeof *ju);
  unsigned char *bad = calloc(nsys, 1);
  tl_nshaped_state_d *st = calloc(nsys, sizeof *st);
  int *rc = calloc(nsys, sizeof *rc);
  tl_cpu_nshaped_reduce_d(m, L, nsys, a, b, c, d, rows, ju, bad);
  for (size_t s = 0; s < nsys; s++) {
    tl_info info;
    size_t o = s * m;
    cr_assert_eq(tl_nshaped_init_rank_in_d(&st[s], n, periodic, 3, NULL, q, ref + 4 * o, &info),
                 TL_OK, "%s", info.msg);
    rc[s] = tl_nshaped_rd_d(&st[s], q, a + o, b + o, c + o, d + o, &info);
    if (rc[s] == TL_OK) {
      tl_nshaped_ru_d(&st[s], q, c + o);
      tl_nshaped_ju_d(&st[s], q, a + o, b + o, c + o, d + o, &info);
    }
    if (s >= whole || L == 0) { /* past the last group, or no block: the reference's */
      cr_expect(bad[s], "m=%zu nsys=%zu: system %zu is not flagged", m, nsys, s);
      continue;
    }
    cr_expect_eq(bad[s], rc[s] < 0, "m=%zu nsys=%zu part %d periodic %d: system %zu flagged "
                 "%d, reference %d", m, nsys, q, periodic, s, bad[s], rc[s]);
    if (rc[s] != TL_OK)
      continue;
    /* left, diag, right, rhs of rows 1 .. L; the block row RD packs for
     * the next partition (row L); the joint line's rb, rc, rd from JU. */
    double mine[4], joint[3] = {st[s].rb[q], st[s].rc[q], st[s].rd[q]};
    for (int k = 0; k < 4; k++) {
      cr_expect(same_bits(rows + 4 * o + k * m + 1, ref + 4 * o + k * m + 1, L),
                "m=%zu nsys=%zu part %d periodic %d: system %zu differs in array %d", m, nsys, q,
                periodic, s, k);
      mine[k] = rows[4 * o + k * m + L];
    }
    cr_expect(same_bits(mine, st[s].msg + 4 * q, 4), "m=%zu: system %zu's block row differs", m,
              s);
    cr_expect(same_bits(ju + 3 * s, joint, 3), "m=%zu nsys=%zu part %d periodic %d: system "
              "%zu's joint row differs", m, nsys, q, periodic, s);
  }
  compare_ss(m, L, nsys, q, st, rc, ref);
  for (size_t s = 0; s < nsys; s++)
    tl_nshaped_free_d(&st[s]);
  free(v);
  free(rows);
  free(ref);
  free(ju);
  free(bad);
  free(st);
  free(rc);
}

Test(nshaped_cpu, stages_are_the_reference_bits)
{
  TH_NEEDS_LANES();
  th_slices_every_size(compare);
}

Test(nshaped_cpu, a_broken_system_is_flagged_alone)
{
  TH_NEEDS_LANES();
  th_slices_one_broken(compare, 17);
}

/* A zero pivot in the first and in the last row of the block, which no
 * later row of RD divides by: RU's and JU's multipliers must flag it
 * (JU's alone when the block has one row). */
Test(nshaped_cpu, a_zero_pivot_at_either_end_of_the_block_is_flagged)
{
  TH_NEEDS_LANES();
  static const size_t ms[] = {2, 3, 4, 9, 17};
  uint64_t seed = 200;
  for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++)
    for (int q = 0; q < 3; q++)
      for (int periodic = 0; periodic < 2; periodic++) {
        size_t L = (q < 2 || periodic) ? ms[i] - 1 : ms[i] - 2;
        if (L >= 1) {
          compare(ms[i], 9, q, periodic, 3, 1, seed++);
          compare(ms[i], 9, q, periodic, 3, L, seed++);
        }
      }
}

/* The verdict's measure of rows 1 .. L-1, taken by the two stages
 * (tl_cpu_nshaped_reduce_scan_d, _substitute_scan_d), finished by
 * tl_cpu_nshaped_dd_max_scan_d: the bits of the pass that reads the
 * slice (tl_cpu_nshaped_dd_max_slice_d) in every system neither stage
 * flagged. The systems of the batch, s mod 10 (mid = m / 2):
 *   0  dominant (random: |a|, |c| < 1, b in [4, 5))
 *   1  b = 0 on row mid (its margin / |b| is -inf)
 *   2  row mid not dominant
 *   3  scaled to 1e307 (the pass's finiteness sum could overflow)
 *   4  rows 5 .. m-1 copies of row 4 (ties for the weakest row)
 *   5  |b| = |a| + |c| on every row (margins exactly 0)
 *   6  column mid not dominant, every row strictly dominant
 *   7  scaled to 1e-300
 *   8  row mid's margin exactly 0, the others' positive
 *   9  column mid's margin exactly 0, the others' positive */
enum { KINDS = 10 };

static void hostile_rows(size_t m, size_t s, double *a, double *b, double *c)
{
  size_t k = s % KINDS, mid = m / 2;
  for (size_t i = 0; i < m; i++) {
    if (k == 4 && i > 4)
      a[i] = a[4], b[i] = b[4], c[i] = c[4];
    if (k == 5)
      b[i] = fabs(a[i]) + fabs(c[i]);
    if (k == 3 || k == 7) {
      double f = k == 3 ? 1e307 : 1e-300;
      a[i] *= f, b[i] *= f, c[i] *= f;
    }
  }
  if (k == 1)
    b[mid] = 0.0;
  if (k == 2)
    c[mid] = 3.0 * b[mid];
  if (k == 8)
    b[mid] = fabs(a[mid]) + fabs(c[mid]);
  if ((k == 6 || k == 9) && mid >= 1 && mid + 1 < m) {
    a[mid] = c[mid] = 0.0;
    if (k == 6)
      b[mid] = 1.0, c[mid - 1] = 0.9, a[mid + 1] = 0.9;
    else
      b[mid] = fabs(c[mid - 1]) + fabs(a[mid + 1]);
  }
}

/* A batch of 27 slices of m rows (three groups of eight and three more)
 * with hostile_rows, through both stages with a scan for block rows
 * 1 .. L; ok[s]: neither stage flagged system s. */
typedef struct scan_batch {
  size_t nsys;
  double *v, *a, *b, *c, *x;
  unsigned char *ok;
  tl_cpu_nshaped_scan *scan;
} scan_batch;

static scan_batch scan_batch_run(size_t m, size_t L, uint64_t seed)
{
  scan_batch t = {.nsys = 3 * 8 + 3};
  size_t nsys = t.nsys, cnt = m * nsys;
  t.v = th_dominant_slices(m, nsys, seed);
  t.a = t.v, t.b = t.v + cnt, t.c = t.v + 2 * cnt;
  for (size_t s = 0; s < nsys; s++)
    hostile_rows(m, s, t.a + s * m, t.b + s * m, t.c + s * m);
  double *rows = calloc(4 * cnt, sizeof *rows), *ju = calloc(3 * nsys, sizeof *ju);
  double *sup = malloc(2 * nsys * sizeof *sup);
  unsigned char *bad = calloc(3 * nsys, 1), *tiny = bad + nsys, *bad2 = bad + 2 * nsys;
  t.x = calloc(cnt, sizeof *t.x), t.ok = calloc(nsys, 1);
  t.scan = calloc(nsys, sizeof *t.scan);
  for (size_t s = 0; s < 2 * nsys; s++)
    sup[s] = 0.5 + 0.25 * (double)(s % 5);
  tl_cpu_nshaped_reduce_scan_d(m, L, nsys, t.a, t.b, t.c, t.v + 3 * cnt, rows, ju, bad, t.scan);
  tl_cpu_nshaped_substitute_scan_d(m, L, nsys, rows, sup, bad, t.x, tiny, bad2, t.scan);
  for (size_t s = 0; s < nsys; s++)
    t.ok[s] = !bad[s] && !bad2[s]; /* else the rank program reads the slice */
  free(rows);
  free(ju);
  free(sup);
  free(bad);
  return t;
}

static void scan_batch_free(scan_batch *t)
{
  free(t->v);
  free(t->x);
  free(t->ok);
  free(t->scan);
}

static void compare_scan(size_t m, int q, int periodic, double up, double down, uint64_t seed)
{
  size_t n = 3 * m, row0 = (size_t)q * m, L = (q < 2 || periodic) ? m - 1 : m - 2, compared = 0;
  scan_batch t = scan_batch_run(m, L, seed);
  for (size_t s = 0; s < t.nsys; s++) {
    if (!t.ok[s])
      continue;
    size_t o = s * m;
    const double *a = t.a + o, *b = t.b + o, *c = t.c + o, *x = t.x + o;
    int f1[3], f2[3];
    double w1, w2, m1[2], m2[2];
    long r1, r2;
    tl_cpu_nshaped_dd_max_scan_d(n, periodic, row0, m, L, a, b, c, x, up, down, &t.scan[s], f1, &w1,
                                 &r1, m1);
    tl_cpu_nshaped_dd_max_slice_d(n, periodic, row0, m, a, b, c, x, up, down, f2, &w2, &r2, m2);
    cr_expect(!memcmp(f1, f2, sizeof f1) && same_bits(&w1, &w2, 1) && r1 == r2 &&
                  same_bits(m1, m2, 2),
              "m=%zu part %d periodic %d system %zu (kind %zu): flags %d%d%d worst %.17g row %ld "
              "max %g %g, the pass: %d%d%d %.17g row %ld max %g %g",
              m, q, periodic, s, s % KINDS, f1[0], f1[1], f1[2], w1, r1, m1[0], m1[1], f2[0], f2[1],
              f2[2], w2, r2, m2[0], m2[1]);
    compared++;
  }
  cr_expect(compared >= 8 || m < 4, "m=%zu: only %zu systems compared", m, compared);
  scan_batch_free(&t);
}

/* One rank: the slice is the whole matrix (n = m; the block rows 1 .. m-2
 * of a plain system, 1 .. m-1 of a periodic one), whose classes
 * nshaped_mpi then takes from the measure where it took tl_classes_d:
 * the same three flags and weakest row, and the maxima of
 * tl_cpu_residual_slice_max_d. */
static void compare_scan_one(size_t m, int periodic, uint64_t seed)
{
  size_t compared = 0;
  scan_batch t = scan_batch_run(m, periodic ? m - 1 : m - 2, seed);
  for (size_t s = 0; s < t.nsys; s++) {
    if (!t.ok[s])
      continue;
    size_t o = s * m;
    const double *a = t.a + o, *b = t.b + o, *c = t.c + o, *x = t.x + o;
    int f[3];
    double w, mx[2], rmx[2];
    long row, rrow;
    double up = periodic ? fabs(c[m - 1]) : 0.0, down = periodic ? fabs(a[0]) : 0.0;
    tl_cpu_nshaped_dd_max_scan_d(m, periodic, 0, m, periodic ? m - 1 : m - 2, a, b, c, x, up, down,
                                 &t.scan[s], f, &w, &row, mx);
    unsigned cls = tl_classes_d(m, a, b, c, periodic, &rrow);
    tl_cpu_residual_slice_max_d(m, periodic, 0, m, a, b, c, x, rmx);
    int rf[3] = {!(cls & TL_CLASS_ROW_DD), !(cls & TL_CLASS_STRICT_DD), !(cls & TL_CLASS_COL_DD)};
    cr_expect(!memcmp(f, rf, sizeof f) && row == rrow && same_bits(mx, rmx, 2),
              "m=%zu periodic %d system %zu (kind %zu): flags %d%d%d row %ld max %g %g, "
              "tl_classes_d %d%d%d row %ld, max %g %g",
              m, periodic, s, s % KINDS, f[0], f[1], f[2], row, mx[0], mx[1], rf[0], rf[1], rf[2],
              rrow, rmx[0], rmx[1]);
    compared++;
  }
  cr_expect(compared >= 8 || m < 5, "m=%zu: only %zu systems compared", m, compared);
  scan_batch_free(&t);
}

Test(nshaped_cpu, the_measure_on_one_rank_is_the_classes_of_the_matrix)
{
  TH_NEEDS_LANES();
  static const size_t ms[] = {3, 4, 5, 9, 16, 17, 64, 300};
  uint64_t seed = 1900;
  for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++)
    for (int periodic = 0; periodic < 2; periodic++)
      compare_scan_one(ms[i], periodic, seed++);
}

Test(nshaped_cpu, the_verdicts_measure_taken_in_the_stages_is_the_pass_bits)
{
  TH_NEEDS_LANES();
  static const size_t ms[] = {2, 3, 4, 5, 9, 16, 17, 64, 300};
  uint64_t seed = 900;
  for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++)
    for (int q = 0; q < 3; q++)
      for (int periodic = 0; periodic < 2; periodic++) {
        compare_scan(ms[i], q, periodic, 0.5, 0.25, seed++);
        compare_scan(ms[i], q, periodic, 40.0, 1e300, seed++); /* columns 0 and m-1 fail */
      }
}
