/* tests/test_residual_pass.c -- the MPI verdict's one pass over a
 * double slice (tl_residual_slice_pass_d, then tl_residual_slice_rescale
 * with the global maxima) against the steps it replaces
 * (tl_slice_weakest_row and tl_residual_slice_max, then
 * tl_residual_slice_norms with the global maxima): the same maxima and
 * weakest row, and the same norms bit for bit whenever the rescaling
 * accepts, so the same ratio. The slices are combined as the verdict's
 * reductions combine them (tl_pair_max, sums in slice order, the largest
 * column sum). Cases: every real gallery type (the scaled ones too: 5, 6,
 * 11, 12 near the ends of the range, 58, 59 near overflow), answers near
 * the solution and far from it, one slice, uneven slices, slices of one
 * row; then matrices and answers scaled by powers of two up to the
 * range's edge, zeros, tiny entries, and values that are not finite.
 * Also the CPU room's SIMD passes against the core loops, on every
 * slice: tl_cpu_residual_slice_pass_d against the one pass, N-shaped's dominance
 * with and without the maxima (tl_cpu_nshaped_dd_max_slice_d); and
 * long slices for the SIMD blocks' edges (256 rows). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "tridlab/backend.h"
#include "tridlab/cpu.h"
#include "tridlab/part_nshaped.h"
#include "tridlab/verify.h"

/* A real system and an answer (the arrays are the test's own). */
typedef struct sys1 {
  size_t n;
  int periodic;
  double *a, *b, *c, *d, *x;
} sys1;

/* The numbers the verdict reduces, and how many slices the one pass
 * served on its own. */
typedef struct verdict_numbers {
  double max[2], weak, norms[3], ratio;
  long weak_row;
  size_t fused;
} verdict_numbers;

static int same_bits(double u, double v)
{
  return memcmp(&u, &v, sizeof u) == 0;
}

/* x[begin-1], x[begin+m], c[begin-1], a[begin+m] (wrapping when periodic;
 * zeros at the ends of a plain system), as the verdict's halo exchange
 * delivers them. */
static void halo_of(const sys1 *s, size_t begin, size_t m, double h[4])
{
  size_t n = s->n, end = begin + m;
  int has_prev = begin > 0 || s->periodic, has_next = end < n || s->periodic;
  size_t prev = begin > 0 ? begin - 1 : n - 1, next = end < n ? end : 0;
  h[0] = has_prev ? s->x[prev] : 0.0;
  h[1] = has_next ? s->x[next] : 0.0;
  h[2] = has_prev ? s->c[prev] : 0.0;
  h[3] = has_next ? s->a[next] : 0.0;
}

/* The combined ratio from the per-slice norms. */
static void add_norms(verdict_numbers *v, const double norms[3])
{
  v->norms[0] += norms[0];
  v->norms[1] += norms[1];
  if (norms[2] > v->norms[2] || isnan(norms[2]))
    v->norms[2] = norms[2];
}

/* The SIMD pass of the CPU room (optimized/cpu/residual_cpu.c) on the
 * same slice: every number of the core pass, bit for bit. */
static void expect_cpu_pass(const sys1 *s, size_t begin, size_t m, const double h[4],
                            const tl_residual_pass *core, const char *what)
{
  tl_residual_pass simd;
  tl_cpu_residual_slice_pass_d(s->n, s->periodic, begin, m, s->a + begin, s->b + begin,
                               s->c + begin, s->d + begin, s->x + begin, h, &simd);
  cr_expect(!memcmp(&simd, core, sizeof simd),
            "%s, rows [%zu, %zu): the SIMD pass differs (weak %a row %ld, max %a %a, norms %a "
            "%a %a; core: weak %a row %ld, max %a %a, norms %a %a %a)",
            what, begin, begin + m, simd.weak, simd.weak_row, simd.max[0], simd.max[1],
            simd.norms[0], simd.norms[1], simd.norms[2], core->weak, core->weak_row, core->max[0],
            core->max[1], core->norms[0], core->norms[1], core->norms[2]);
}

/* The verdict's numbers the way before the one pass: k slices of sizes
 * sizes[0..k). */
static verdict_numbers by_steps(const sys1 *s, const size_t *sizes, size_t k)
{
  verdict_numbers v = {.max = {-INFINITY, -INFINITY}, .weak = -INFINITY, .weak_row = -1};
  long row = -1;
  for (size_t j = 0, begin = 0; j < k; begin += sizes[j++]) {
    double max[2], neg;
    long r, ignored = -1;
    tl_slice_weakest_row(TL_F64, s->n, s->periodic, begin, sizes[j], s->a + begin, s->b + begin,
                         s->c + begin, &neg, &r);
    tl_pair_max(&v.weak, &v.weak_row, neg, r);
    tl_residual_slice_max(TL_F64, s->n, s->periodic, begin, sizes[j], s->a + begin, s->b + begin,
                          s->c + begin, s->x + begin, max);
    double smax[2];
    tl_cpu_residual_slice_max_d(s->n, s->periodic, begin, sizes[j], s->a + begin, s->b + begin,
                                s->c + begin, s->x + begin, smax);
    cr_expect(same_bits(smax[0], max[0]) && same_bits(smax[1], max[1]),
              "slice %zu of %zu: max by SIMD %a %a, by the core %a %a", j, k, smax[0], smax[1],
              max[0], max[1]);
    tl_pair_max(&v.max[0], &row, max[0], -1);
    tl_pair_max(&v.max[1], &ignored, max[1], -1);
  }
  for (size_t j = 0, begin = 0; j < k && v.max[0] < INFINITY; begin += sizes[j++]) {
    double h[4], norms[3];
    halo_of(s, begin, sizes[j], h);
    tl_residual_slice_norms(TL_F64, s->n, s->periodic, begin, sizes[j], s->a + begin, s->b + begin,
                            s->c + begin, s->d + begin, s->x + begin, h, v.max, norms);
    add_norms(&v, norms);
  }
  v.ratio = tl_residual_slice_ratio(s->n, v.max, v.norms);
  return v;
}

/* The same through the one pass; every rescaled slice's norms are also
 * checked against tl_residual_slice_norms's, bit for bit. */
static verdict_numbers by_pass(const sys1 *s, const size_t *sizes, size_t k, const char *what)
{
  verdict_numbers v = {.max = {-INFINITY, -INFINITY}, .weak = -INFINITY, .weak_row = -1};
  tl_residual_pass *pass = calloc(k, sizeof *pass);
  cr_assert(pass);
  long row = -1, ignored = -1;
  for (size_t j = 0, begin = 0; j < k; begin += sizes[j++]) {
    double h[4];
    halo_of(s, begin, sizes[j], h);
    tl_residual_slice_pass_d(s->n, s->periodic, begin, sizes[j], s->a + begin, s->b + begin,
                             s->c + begin, s->d + begin, s->x + begin, h, &pass[j]);
    expect_cpu_pass(s, begin, sizes[j], h, &pass[j], what);
    tl_pair_max(&v.weak, &v.weak_row, pass[j].weak, pass[j].weak_row);
    tl_pair_max(&v.max[0], &row, pass[j].max[0], -1);
    tl_pair_max(&v.max[1], &ignored, pass[j].max[1], -1);
  }
  for (size_t j = 0, begin = 0; j < k && v.max[0] < INFINITY; begin += sizes[j++]) {
    double h[4], norms[3], steps[3];
    halo_of(s, begin, sizes[j], h);
    tl_residual_slice_norms(TL_F64, s->n, s->periodic, begin, sizes[j], s->a + begin, s->b + begin,
                            s->c + begin, s->d + begin, s->x + begin, h, v.max, steps);
    if (tl_residual_slice_rescale(&pass[j], v.max, norms)) {
      v.fused++;
      for (int q = 0; q < 3; q++)
        cr_expect(same_bits(norms[q], steps[q]), "%s, slice %zu: norm %d %a rescaled, %a scaled",
                  what, j, q, norms[q], steps[q]);
    } else {
      memcpy(norms, steps, sizeof norms);
    }
    add_norms(&v, norms);
  }
  free(pass);
  v.ratio = tl_residual_slice_ratio(s->n, v.max, v.norms);
  return v;
}

/* Both ways on the slicing; the number of slices the pass served. */
static size_t expect_same(const sys1 *s, const size_t *sizes, size_t k, const char *what)
{
  verdict_numbers old = by_steps(s, sizes, k), now = by_pass(s, sizes, k, what);
  cr_expect(same_bits(old.max[0], now.max[0]) && same_bits(old.max[1], now.max[1]),
            "%s: max |x| %a, %a; max |A| %a, %a", what, old.max[0], now.max[0], old.max[1],
            now.max[1]);
  cr_expect(same_bits(old.weak, now.weak) && old.weak_row == now.weak_row,
            "%s: weakest row %ld (%a), %ld (%a)", what, old.weak_row, old.weak, now.weak_row,
            now.weak);
  cr_expect(same_bits(old.ratio, now.ratio), "%s: ratio %a by steps, %a by the pass", what,
            old.ratio, now.ratio);
  return now.fused;
}

/* Slicings of n rows: one slice; 2, 3 and 7 uneven ones; one row each. */
static size_t slicing(size_t n, int kind, size_t *sizes)
{
  if (kind == 0 || n < 2) {
    sizes[0] = n;
    return 1;
  }
  if (kind == 4) {
    for (size_t i = 0; i < n; i++)
      sizes[i] = 1;
    return n;
  }
  size_t k = kind == 1 ? 2 : kind == 2 ? 3 : 7, left = n;
  k = k < n ? k : n;
  for (size_t j = 0; j + 1 < k; j++) { /* shrinking sizes, at least 1 row each */
    sizes[j] = (left - (k - 1 - j)) / 2 + 1;
    if (sizes[j] > left - (k - 1 - j))
      sizes[j] = left - (k - 1 - j);
    left -= sizes[j];
  }
  sizes[k - 1] = left;
  return k;
}

/* Every slicing of s; the slices served by the pass and in all. */
static void expect_same_sliced(const sys1 *s, const char *what, size_t *fused, size_t *total)
{
  size_t *sizes = calloc(s->n + 1, sizeof *sizes);
  cr_assert(sizes);
  for (int kind = 0; kind < 5; kind++) {
    size_t k = slicing(s->n, kind, sizes);
    char name[200];
    snprintf(name, sizeof name, "%s, %zu slices", what, k);
    *fused += expect_same(s, sizes, k, name);
    /* a periodic system of 1 or 2 rows whole is folded: not the pass's */
    *total += (k == 1 && s->periodic && s->n <= 2) ? 0 : k;
  }
  free(sizes);
}

/* The types whose values lie far from the ends of the double range. */
static int scaled_type(int id)
{
  return id == 5 || id == 6 || id == 11 || id == 12 || id == 58 || id == 59;
}

Test(residual_pass, gallery_slices_give_the_same_bits)
{
  static const size_t sizes[] = {1, 2, 3, 5, 17, 64};
  for (size_t t = 0; tl_gallery_get(t); t++) {
    const tl_gallery_type *type = tl_gallery_get(t);
    if (type->dtype != TL_F64)
      continue;
    size_t fused = 0, total = 0;
    for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
      size_t n = sizes[z];
      if (n < type->min_n)
        continue;
      tl_problem p;
      tl_info info;
      cr_assert_eq(tl_gallery_make(type->id, n, 1, 7 + n, &p, &info), TL_OK, "%s", info.msg);
      double *x = calloc(n, sizeof *x);
      cr_assert(x);
      tl_rng rng;
      tl_rng_seed(&rng, 11 * n + (uint64_t)type->id);
      /* the solution, the solution a little off, and an answer far off */
      for (int far = 0; far < 3; far++) {
        const double *xt = p.xtrue;
        for (size_t i = 0; i < n; i++) {
          double u = tl_rng_uniform(&rng, -1.0, 1.0);
          x[i] = !xt        ? u
                 : far == 0 ? xt[i]
                 : far == 1 ? xt[i] * (1.0 + 1e-9 * u)
                            : xt[i] + u * xt[i];
        }
        sys1 s = {
            .n = n, .periodic = type->periodic, .a = p.a, .b = p.b, .c = p.c, .d = p.d, .x = x};
        char what[160];
        snprintf(what, sizeof what, "type %d (%s), n = %zu, answer %d", type->id, type->name, n,
                 far);
        expect_same_sliced(&s, what, &fused, &total);
      }
      free(x);
      tl_problem_free(&p);
    }
    /* the pass is the common case: it serves every slice of a type whose
     * values are moderate */
    if (!scaled_type(type->id))
      cr_expect_eq(fused, total, "type %d: the pass served %zu of %zu slices", type->id, fused,
                   total);
  }
}

/* A system of random dominant rows, d = A x; everything from seed. */
static sys1 random_sys(size_t n, int periodic, uint64_t seed)
{
  sys1 s = {.n = n, .periodic = periodic};
  double *mem = calloc(5 * n, sizeof *mem);
  cr_assert(mem);
  s.a = mem, s.b = mem + n, s.c = mem + 2 * n, s.d = mem + 3 * n, s.x = mem + 4 * n;
  tl_rng rng;
  tl_rng_seed(&rng, seed);
  for (size_t i = 0; i < n; i++) {
    s.a[i] = tl_rng_uniform(&rng, -1.0, 1.0);
    s.c[i] = tl_rng_uniform(&rng, -1.0, 1.0);
    s.b[i] = 3.0 + tl_rng_uniform(&rng, 0.0, 1.0);
    s.x[i] = tl_rng_uniform(&rng, -1.0, 1.0);
  }
  for (size_t i = 0; i < n; i++) {
    double ax = s.b[i] * s.x[i];
    if (i > 0 || periodic)
      ax += s.a[i] * s.x[i > 0 ? i - 1 : n - 1];
    if (i + 1 < n || periodic)
      ax += s.c[i] * s.x[i + 1 < n ? i + 1 : 0];
    s.d[i] = ax * (1.0 + 1e-12 * tl_rng_uniform(&rng, -1.0, 1.0)); /* a residual */
  }
  return s;
}

static void scale(double *v, size_t n, int k)
{
  for (size_t i = 0; i < n; i++)
    v[i] = ldexp(v[i], k);
}

/* A scaled by 2^ka, x by 2^kx, d by both: the scalings cover the range
 * the pass serves up to its edge (|d| <= 2^400) and beyond (declined). */
Test(residual_pass, scaled_systems_give_the_same_bits)
{
  static const int k[][2] = {{0, 0},    {300, -300}, {-350, 350}, {390, 0},     {0, -390},
                             {-390, 0}, {0, 395},    {195, 195},  {-200, -199}, {210, 210},
                             {-402, 0}, {0, 403},    {500, -500}, {-900, 0},    {0, 900}};
  size_t fused = 0, total = 0;
  for (int periodic = 0; periodic < 2; periodic++)
    for (size_t j = 0; j < sizeof k / sizeof *k; j++) {
      sys1 s = random_sys(40, periodic, 3 + j);
      scale(s.a, s.n, k[j][0]);
      scale(s.b, s.n, k[j][0]);
      scale(s.c, s.n, k[j][0]);
      scale(s.x, s.n, k[j][1]);
      scale(s.d, s.n, k[j][0] + k[j][1]);
      char what[120];
      snprintf(what, sizeof what, "A 2^%d, x 2^%d, periodic %d", k[j][0], k[j][1], periodic);
      size_t f = 0, t = 0;
      expect_same_sliced(&s, what, &f, &t);
      /* inside [2^-400, 2^400] with room, the pass serves every slice */
      if (abs(k[j][0]) + abs(k[j][1]) <= 400 && abs(k[j][0] + k[j][1]) <= 390)
        cr_expect_eq(f, t, "%s: the pass served %zu of %zu slices", what, f, t);
      fused += f, total += t;
      free(s.a);
    }
  cr_expect(fused > total / 2, "the pass served %zu of %zu slices", fused, total);
}

/* Zeros (they scale exactly, whatever the scale), tiny entries (declined
 * near the edge), x and entries that are not finite (the general loops'
 * maxima and weakest row). */
Test(residual_pass, edges_give_the_same_bits)
{
  size_t fused = 0, total = 0;
  for (int periodic = 0; periodic < 2; periodic++)
    for (int e = 0; e < 12; e++) {
      sys1 s = random_sys(23, periodic, 100 + e);
      size_t i = 5 + (size_t)e;
      switch (e) {
      case 0: /* x = 0 */ memset(s.x, 0, s.n * sizeof *s.x); break;
      case 1: /* d = 0 */ memset(s.d, 0, s.n * sizeof *s.d); break;
      case 2: /* diagonal */
        memset(s.a, 0, s.n * sizeof *s.a);
        memset(s.c, 0, s.n * sizeof *s.c);
        break;
      case 3: /* tiny entries: in range unscaled, not scaled */
        s.a[i] = 0x1p-399, s.x[i] = 0x1p-399, s.d[i] = 0x1p-399;
        break;
      case 4: /* subnormal entries */
        s.c[i] = 0x1p-1060, s.x[i] = -0x1p-1070, s.d[i] = 0x1p-1050;
        break;
      case 5: /* a large one among moderate ones */ s.b[i] = 0x1p399; break;
      case 6: /* a weak row, and a tie of two */
        s.b[i] = 0.5, s.b[i + 2] = -0.5, s.a[i] = s.a[i + 2] = 0.25, s.c[i] = s.c[i + 2] = 0.5;
        break;
      case 7: /* b = 0 */ s.b[i] = 0.0; break;
      case 8: s.x[i] = NAN; break;
      case 9: s.x[i] = -INFINITY; break;
      case 10: /* not in a verdict (tl_mpi_solve checks A), but the same rules */
        s.a[i] = NAN;
        break;
      default: s.c[i] = INFINITY, s.d[i] = NAN; break;
      }
      char what[80];
      snprintf(what, sizeof what, "edge %d, periodic %d", e, periodic);
      expect_same_sliced(&s, what, &fused, &total);
      free(s.a);
    }
  cr_expect(fused > 0, "the pass served %zu of %zu slices", fused, total);
}

/* Where the rescaling would not be exact: x holds 2^300 and values near
 * 2^-760, so scaled by 2^-301 those go subnormal and lose bits, while
 * unscaled they are normal; the residual of their rows is all the
 * residual there is. The pass declines these slices (their smallest
 * |x| is below 2^-400), and the bits stay the scaled pass's. */
Test(residual_pass, values_that_go_subnormal_when_scaled)
{
  sys1 s = random_sys(12, 0, 77);
  tl_rng rng;
  tl_rng_seed(&rng, 78);
  s.x[0] = 0x1p300;
  for (size_t i = 1; i < s.n; i++)
    s.x[i] = ldexp(tl_rng_uniform(&rng, 1.0, 2.0), -760);
  s.d[0] = s.b[0] * s.x[0]; /* rows 0 and 1: no residual next to 2^300 */
  s.d[1] = s.a[1] * s.x[0];
  for (size_t i = 2; i < s.n; i++)
    s.d[i] = ldexp(tl_rng_uniform(&rng, 1.0, 2.0), -759);
  size_t fused = 0, total = 0;
  expect_same_sliced(&s, "x from 2^300 down to 2^-760", &fused, &total);
  cr_expect_eq(fused, 0, "the pass served %zu of %zu slices", fused, total);
  free(s.a);
}

/* Slices longer than the SIMD passes' blocks of 256 rows, cut at and
 * around the blocks' edges, of a system with rows that tie for the
 * weakest (the first must win, also across blocks), a zero diagonal
 * (-rel = inf) and zero entries: the CPU room's passes give the core's
 * bits. */
Test(residual_pass, simd_blocks_give_the_same_bits)
{
  static const size_t cuts[][3] = {{3, 997, 0},    {255, 745, 0},   {256, 744, 0},
                                   {257, 743, 0},  {258, 513, 229}, {514, 486, 0},
                                   {1000, 0, 0},   {300, 600, 100}};
  size_t fused = 0, total = 0;
  for (int periodic = 0; periodic < 2; periodic++)
    for (int variant = 0; variant < 3; variant++) {
      sys1 s = random_sys(1000, periodic, 40 + (uint64_t)variant);
      if (variant >= 1) { /* ties for the weakest: rows 100, 300 and 700 alike */
        for (size_t i = 300; i <= 700; i += 400) {
          s.a[i] = s.a[100], s.b[i] = s.b[100], s.c[i] = s.c[100];
        }
        s.b[100] = s.b[300] = s.b[700] = 1.5 * (fabs(s.a[100]) + fabs(s.c[100]));
      }
      if (variant == 2) { /* zeros, and a zero diagonal past the first block */
        s.a[20] = s.c[20] = s.x[21] = s.d[22] = 0.0;
        s.b[600] = 0.0;
      }
      for (size_t k = 0; k < sizeof cuts / sizeof *cuts; k++) {
        size_t sizes[3], nk = 0;
        for (int j = 0; j < 3; j++)
          if (cuts[k][j])
            sizes[nk++] = cuts[k][j];
        char what[120];
        snprintf(what, sizeof what, "n = 1000, variant %d, cut %zu, periodic %d", variant, k,
                 periodic);
        fused += expect_same(&s, sizes, nk, what);
        total += nk;
      }
      free(s.a);
    }
  cr_expect_eq(fused, total, "the pass served %zu of %zu slices", fused, total);
}

/* The row classes of a slice (DistD2's and P-TDMA's verdicts) and
 * N-shaped's dominance by rows and columns, by the CPU
 * room's SIMD blocks against the core loops: the classes, the smallest
 * margin / |b| bit for bit and its first row; slices of 1 to 1000 rows
 * at the start, middle and end of plain and periodic systems, with a
 * row that is not dominant, a zero diagonal, rows that tie, and a NaN. */
Test(residual_pass, simd_row_classes_give_the_same_bits)
{
  static const size_t ms[] = {1, 2, 3, 4, 9, 255, 256, 257, 258, 600, 1000};
  for (int periodic = 0; periodic < 2; periodic++)
    for (int variant = 0; variant < 5; variant++) {
      sys1 s = random_sys(1000, periodic, 70 + (uint64_t)variant);
      if (variant == 1) /* not dominant */
        s.b[500] = 0.25;
      if (variant == 2) /* a zero diagonal */
        s.b[999] = 0.0;
      if (variant == 3) /* ties across blocks, the margin exactly 0 */
        for (size_t i = 10; i < 1000; i += 300)
          s.a[i] = 1.0, s.c[i] = 2.0, s.b[i] = 3.0;
      if (variant == 4) /* a value that is not finite */
        s.a[400] = NAN;
      for (size_t j = 0; j < sizeof ms / sizeof *ms; j++) {
        size_t m = ms[j], begins[3] = {0, (1000 - m) / 2, 1000 - m};
        for (int e = 0; e < 3; e++) {
          size_t b0 = begins[e];
          double r1 = 0.0, r2 = 0.0;
          long w1 = -7, w2 = -7;
          unsigned c1 = tl_row_classes_slice_d(m, s.a + b0, s.b + b0, s.c + b0, b0, 1000, periodic,
                                               &r1, &w1);
          unsigned c2 = tl_cpu_row_classes_slice_d(m, s.a + b0, s.b + b0, s.c + b0, b0, 1000,
                                                   periodic, &r2, &w2);
          cr_expect(c1 == c2 && same_bits(r1, r2) && w1 == w2,
                    "variant %d, periodic %d, rows [%zu, %zu): classes %u %u, worst %a %a, row "
                    "%ld %ld",
                    variant, periodic, b0, b0 + m, c1, c2, r1, r2, w1, w2);
          /* N-shaped's: by columns too, with the neighbours' moduli */
          double up = b0 > 0 ? fabs(s.c[b0 - 1]) : (periodic ? fabs(s.c[999]) : 0.0);
          double down = b0 + m < 1000 ? fabs(s.a[b0 + m]) : (periodic ? fabs(s.a[0]) : 0.0);
          int f1[3], f2[3];
          r1 = r2 = 0.0, w1 = w2 = -7;
          tl_nshaped_dd_slice_d(1000, periodic, b0, m, s.a + b0, s.b + b0, s.c + b0, up, down, f1,
                                &r1, &w1);
          tl_cpu_nshaped_dd_slice_d(1000, periodic, b0, m, s.a + b0, s.b + b0, s.c + b0, up, down,
                                    f2, &r2, &w2);
          cr_expect(!memcmp(f1, f2, sizeof f1) && same_bits(r1, r2) && w1 == w2,
                    "nshaped: variant %d, periodic %d, rows [%zu, %zu): flags %d%d%d %d%d%d, "
                    "worst %a %a, row %ld %ld",
                    variant, periodic, b0, b0 + m, f1[0], f1[1], f1[2], f2[0], f2[1], f2[2], r1,
                    r2, w1, w2);
          /* and with the maxima in the same pass: both the same bits */
          int f3[3];
          double r3 = 0.0, mx1[2], mx3[2];
          long w3 = -7;
          tl_residual_slice_max(TL_F64, 1000, periodic, b0, m, s.a + b0, s.b + b0, s.c + b0,
                                s.x + b0, mx1);
          tl_cpu_nshaped_dd_max_slice_d(1000, periodic, b0, m, s.a + b0, s.b + b0, s.c + b0,
                                        s.x + b0, up, down, f3, &r3, &w3, mx3);
          cr_expect(!memcmp(f1, f3, sizeof f1) && same_bits(r1, r3) && w1 == w3 &&
                        same_bits(mx1[0], mx3[0]) && same_bits(mx1[1], mx3[1]),
                    "nshaped, with the maxima: variant %d, periodic %d, rows [%zu, %zu): flags "
                    "%d%d%d %d%d%d, worst %a %a, row %ld %ld, max %a %a, %a %a",
                    variant, periodic, b0, b0 + m, f1[0], f1[1], f1[2], f3[0], f3[1], f3[2], r1,
                    r3, w1, w3, mx1[0], mx3[0], mx1[1], mx3[1]);
        }
      }
      free(s.a);
    }
}

/* ITS's verdict reads strictness off the weakest row: every row strictly
 * dominant (TL_CLASS_STRICT_DD of tl_row_classes_slice_d) exactly when
 * the largest -rel (tl_slice_weakest_row, and the one pass) is < 0 --
 * with a zero diagonal (-rel = inf), a margin of exactly 0 (-rel = -0),
 * a tiny positive margin, and slices of every kind; and where it is not
 * strict, the two name the same row. */
Test(residual_pass, strictness_from_the_weakest_row)
{
  static const size_t ms[] = {1, 2, 3, 17, 300};
  for (int periodic = 0; periodic < 2; periodic++)
    for (int variant = 0; variant < 5; variant++) {
      sys1 s = random_sys(300, periodic, 200 + (uint64_t)variant);
      if (variant == 1)
        s.b[150] = 0.0;
      if (variant == 2)
        s.a[150] = 1.0, s.c[150] = 2.0, s.b[150] = 3.0;
      if (variant == 3)
        s.a[150] = 1.0, s.c[150] = 2.0, s.b[150] = 3.0 + 0x1p-51;
      if (variant == 4)
        s.a[0] = 5.0, s.c[299] = 5.0, s.b[0] = s.b[299] = 1.0; /* the corners decide */
      for (size_t j = 0; j < sizeof ms / sizeof *ms; j++) {
        size_t m = ms[j], begins[3] = {0, (300 - m) / 2, 300 - m};
        for (int e = 0; e < 3; e++) {
          size_t b0 = begins[e];
          double rel, neg;
          long wc, wn;
          unsigned cls = tl_row_classes_slice_d(m, s.a + b0, s.b + b0, s.c + b0, b0, 300,
                                                periodic, &rel, &wc);
          tl_slice_weakest_row(TL_F64, 300, periodic, b0, m, s.a + b0, s.b + b0, s.c + b0, &neg,
                               &wn);
          int strict = (cls & TL_CLASS_STRICT_DD) != 0;
          cr_expect(strict == (neg < 0.0),
                    "variant %d, periodic %d, rows [%zu, %zu): strict %d, weakest -rel %a", variant,
                    periodic, b0, b0 + m, strict, neg);
          if (!strict)
            cr_expect(wc == wn, "variant %d, rows [%zu, %zu): worst row %ld, weakest %ld", variant,
                      b0, b0 + m, wc, wn);
        }
      }
      free(s.a);
    }
}

/* tl_cpu_residual_slices_pass_d on a batch of k slices, one after the
 * other as a rank holds them: each system's numbers are the core pass's
 * bits, whatever the group it falls in (groups of 8, a last group of
 * fewer), with one system not finite (the core pass's rules) and one with
 * zeros and a zero diagonal among its neighbours; slices at the start,
 * middle and end of plain and periodic systems, of 1 to 1000 rows; on 1
 * and on 3 threads (the groups shared out); and in two parts (head and
 * tail), with x_{-1} the halo's or not. */
Test(residual_pass, batched_slices_give_the_same_bits)
{
  static const size_t ks[] = {1, 7, 8, 9, 17};
  static const size_t spans[][2] = {{0, 300}, {300, 600}, {700, 300}, {0, 1000},
                                    {5, 3},   {998, 2},   {0, 1},     {999, 1}};
  size_t n = 1000, checked = 0;
  for (int periodic = 0; periodic < 2; periodic++)
    for (size_t ki = 0; ki < sizeof ks / sizeof *ks; ki++)
      for (size_t si = 0; si < sizeof spans / sizeof *spans; si++) {
        size_t k = ks[ki], begin = spans[si][0], m = spans[si][1];
        double *mem = malloc(5 * k * m * sizeof *mem), *halo = malloc(4 * k * sizeof *halo);
        tl_residual_pass *got = malloc(k * sizeof *got);
        sys1 *sys = malloc(k * sizeof *sys);
        cr_assert(mem && halo && got && sys);
        double *a = mem, *b = a + k * m, *c = b + k * m, *d = c + k * m, *x = d + k * m;
        for (size_t s = 0; s < k; s++) {
          sys[s] = random_sys(n, periodic, 900 + 31 * s + ki);
          if (s == 5) /* not finite: the core pass's rules */
            sys[s].d[begin + m / 2] = NAN;
          if (s == 2) { /* zeros, a zero diagonal */
            sys[s].a[begin + m / 3] = sys[s].x[begin + m / 2] = 0.0;
            sys[s].b[begin + m - 1] = 0.0;
          }
          memcpy(a + s * m, sys[s].a + begin, m * sizeof *a);
          memcpy(b + s * m, sys[s].b + begin, m * sizeof *b);
          memcpy(c + s * m, sys[s].c + begin, m * sizeof *c);
          memcpy(d + s * m, sys[s].d + begin, m * sizeof *d);
          memcpy(x + s * m, sys[s].x + begin, m * sizeof *x);
          halo_of(&sys[s], begin, m, halo + 4 * s);
        }
        for (int threads = 1; threads <= 3; threads += 2) { /* the groups shared out */
          tl_cpu_set_threads(threads);
          memset(got, 0xff, k * sizeof *got);
          tl_cpu_residual_slices_pass_d(n, periodic, begin, m, k, a, b, c, d, x, halo, got);
          for (size_t s = 0; s < k; s++) {
            tl_residual_pass core;
            tl_residual_slice_pass_d(n, periodic, begin, m, sys[s].a + begin, sys[s].b + begin,
                                     sys[s].c + begin, sys[s].d + begin, sys[s].x + begin,
                                     halo + 4 * s, &core);
            cr_expect(!memcmp(&got[s], &core, sizeof core),
                      "k = %zu, rows [%zu, %zu), periodic %d, %d threads: system %zu differs "
                      "(norms %a %a, core %a %a; weak row %ld, core %ld)",
                      k, begin, begin + m, periodic, threads, s, got[s].norms[0],
                      got[s].norms[1], core.norms[0], core.norms[1], got[s].weak_row,
                      core.weak_row);
            checked++;
          }
        }
        tl_cpu_set_threads(0);
        /* In two parts: the head with x_{-1} from the halo, or with another
         * x_{-1} in every other system (then the tail reads it whole). */
        double *xl = malloc(k * sizeof *xl);
        tl_cpu_pass_head *heads = malloc(k * sizeof *heads);
        cr_assert(xl && heads);
        for (int wrong = 0; wrong < 2; wrong++) {
          for (size_t s = 0; s < k; s++)
            xl[s] = halo[4 * s] + (wrong && s % 2 ? 1.0 : 0.0);
          memset(got, 0xff, k * sizeof *got);
          tl_cpu_residual_slices_head_d(n, periodic, begin, m, k, a, b, c, d, x, xl, heads);
          tl_cpu_residual_slices_tail_d(n, periodic, begin, m, k, a, b, c, d, x, halo, heads, got);
          for (size_t s = 0; s < k; s++) {
            tl_residual_pass core;
            tl_residual_slice_pass_d(n, periodic, begin, m, sys[s].a + begin, sys[s].b + begin,
                                     sys[s].c + begin, sys[s].d + begin, sys[s].x + begin,
                                     halo + 4 * s, &core);
            cr_expect(heads[s].made == (m >= 3 && m < n), "head made %d, m = %zu", heads[s].made,
                      m);
            cr_expect(!memcmp(&got[s], &core, sizeof core),
                      "head and tail, k = %zu, rows [%zu, %zu), periodic %d, x_{-1} %s: system "
                      "%zu differs (norms %a %a %a, core %a %a %a)",
                      k, begin, begin + m, periodic, wrong && s % 2 ? "not the halo's" : "the halo's",
                      s, got[s].norms[0], got[s].norms[1], got[s].norms[2], core.norms[0],
                      core.norms[1], core.norms[2]);
            checked++;
          }
        }
        free(xl), free(heads);
        for (size_t s = 0; s < k; s++)
          free(sys[s].a);
        free(mem), free(halo), free(got), free(sys);
      }
  cr_expect_eq(checked, 4 * 2 * 42 * 8, "systems checked: %zu", checked);
}
