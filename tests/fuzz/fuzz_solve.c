/* tests/fuzz/fuzz_solve.c -- libFuzzer target for tl_solve over the whole
 * registry: every algorithm of tl_registry(), so backends added to the
 * registry (MPI's simulated layer, GPU emulation) are fuzzed as they come.
 *
 * Input format (one input is one batch, one algorithm and its options):
 *
 *   byte 0   the algorithm: index into tl_registry() modulo its size; or
 *            0xff followed by a registry name and a NUL (the committed
 *            regression inputs use names, so they keep their algorithm
 *            when the registry grows)
 *   byte 1   flags: bit 0 complex (else real); bit 1 periodic; bit 2
 *            unequal partitions (sizes follow the parameters); bit 3 make
 *            every row dominant (b += 2 (|a| + |c|) b/|b|); bits 4-5 how
 *            parameters are set: 0 defaults, 1 tl_options_set_param (text),
 *            2 written into tl_options.value directly, 3 one or the other
 *            per parameter; bit 6 keep the corners of a plain system (else
 *            they are zeroed; a non-zero one is a bad argument); bit 7
 *            scale A by 2^eA and d by 2^(eA + ex) (bytes 5, 6)
 *   byte 2   n - 1 (n = 1 .. 256)
 *   byte 3   nsys - 1, modulo 4 (nsys = 1 .. 4)
 *   byte 4   partitions: P = 1 + byte % 32 for partitioned algorithms; for
 *            the others P = 1, or byte - 248 when byte >= 250 (an error)
 *   byte 5   eA = (signed) byte * 8;  byte 6: ex = (signed) byte * 8
 *   then     one byte per parameter of the algorithm, in its order: 0
 *            unset; else a choice's index byte - 1 (the count itself is
 *            out of range), or a number from a table of in- and
 *            out-of-range values (param_value); sweep limits (maxit,
 *            iters) at most 2e6 / (n nsys) (WORK)
 *   then     with bit 2: P bytes of partition sizes (partition_sizes; a
 *            byte from 0xf0 on is any size_t a hostile caller may pass:
 *            0, SIZE_MAX, sizes whose sum wraps around to n, ...)
 *   then     the entries a, b, c, d of system 0, then of system 1, ...
 *            (complex: real part, then imaginary part), one byte each:
 *            0..127 the value (byte - 64) / 16; 128..191 special[byte -
 *            128] (zeros, +-1e16, subnormals, +-DBL_MAX, NaN, +-Inf, ...);
 *            192..254 a pseudo-random value in [-1, 1); 255 the next 8
 *            bytes, a little-endian double.
 * What the input does not give comes from a generator seeded with a hash
 * of the input after the algorithm field (header and parameter bytes:
 * random bytes; entries: values uniform in [-1, 1)): every input means one
 * batch, a run is deterministic, and an input found with an index means
 * the same batch with the algorithm's name in its place.
 *
 * Oracle (a violation aborts, which libFuzzer reports as a crash):
 *  - no sanitizer report (ASan, UBSan, LeakSanitizer);
 *  - the status is one of tl_solve's, info.status repeats it; bad-argument
 *    names the argument, breakdown names a row of the system, outside-
 *    domain says why;
 *  - the batch, the options and the partition sizes are unchanged;
 *  - partition sizes that break the rule (each at least the algorithm's
 *    minimum and at most n, their exact sum n: sizes_are_valid) are a
 *    bad argument (or the batch is unsupported before they are read);
 *  - ok means a finite x whose residual ratio (tl_residual_ratio, safe
 *    from overflow) is below 30, and whose forward-error ratio against
 *    LAPACK's pivoted solve is below 2 x 30 (check_forward_error; rcond
 *    the smaller of DGTCON's and ||d|| / (||A|| ||x_L||), rcond_bound) --
 *    unless the caller loosened the algorithm's tolerance and the status
 *    message says so ("chosen by the caller", see tl_solve in
 *    tridlab/registry.h).
 * tl_options_set_param rejecting a value is checked too: bad-argument
 * naming "param", the option left unset.
 */
#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tridlab/registry.h"
#include "tridlab/verify.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_N 256
#define MAX_NSYS 4
#define MAX_PARTS 32

static char context[512]; /* what the current input is, for a report */

#define CHECK(cond)                                                                                \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "fuzz_solve: oracle violated at %s:%d: %s\n  %s\n", __FILE__, __LINE__,      \
              #cond, context);                                                                     \
      abort();                                                                                     \
    }                                                                                              \
  } while (0)

/* The input, read front to back; past its end, the generator. */
typedef struct reader {
  const uint8_t *p, *end;
  tl_rng rng;
} reader;

static int more(const reader *r)
{
  return r->p < r->end;
}

static unsigned byte_or_random(reader *r)
{
  return more(r) ? *r->p++ : (unsigned)(tl_rng_next(&r->rng) & 0xff);
}

static const double special[64] = {
    0.0,         -0.0,        1.0,          -1.0,        0.5,     -0.5,     2.0,       -2.0,
    3.0,         4.0,         -4.0,         1.5,         1.0 / 3, 0.25,     1e16,      -1e16,
    1e-16,       -1e-16,      0x1p60,       -0x1p60,     1e8,     -1e8,     1e-8,      DBL_MAX,
    -DBL_MAX,    DBL_MAX / 2, -DBL_MAX / 2, DBL_MAX / 4, DBL_MIN, -DBL_MIN, 0x1p-1074, -0x1p-1074,
    DBL_MIN / 3, 1e300,       -1e300,       1e-300,      -1e-300, 1e308,    -1e308,    1e-308,
    6e307,       -6e307,      1e154,        1e-154,      NAN,     INFINITY, -INFINITY, 0x1p-53,
    1 + 0x1p-52, 1 - 0x1p-53, -1e-320,      2.05,        1e-310,  1e150,    -1e150,    1e200,
    1e-200,      0x1.8p-1022, 7.0,          -3.0,        1e30,    1e-30,    100.0,     -100.0};

static double value(reader *r)
{
  if (!more(r))
    return tl_rng_uniform(&r->rng, -1.0, 1.0);
  unsigned v = *r->p++;
  if (v < 128)
    return ((double)v - 64.0) / 16.0;
  if (v < 192)
    return special[v - 128];
  if (v < 255 || r->end - r->p < 8)
    return tl_rng_uniform(&r->rng, -1.0, 1.0);
  uint64_t bits = 0;
  for (int k = 0; k < 8; k++)
    bits |= (uint64_t)r->p[k] << (8 * k);
  r->p += 8;
  double d;
  memcpy(&d, &bits, sizeof d);
  return d;
}

/* A parameter value: in range, at its ends, just outside, absurd. */
static double param_value(const tl_param *p, unsigned v)
{
  if (p->kind == TL_PARAM_CHOICE)
    return (double)(v - 1);
  double lo = p->min, hi = p->max;
  const double real[] = {p->def, lo,     hi,      lo > 0 ? lo / 2 : lo - 1,
                         hi * 2, 1e-300, 0x1p-53, 0x1p-50,
                         1e-12,  1e-8,   1e-4,    1e-2,
                         0.5,    1.0,    NAN,     -1.0,
                         1e6,    1e300,  INFINITY};
  const double integer[] = {p->def, lo, hi, lo - 1, hi + 1, 0,   1,  2,     3,
                            5,      10, 30, 1000,   1e9,    2.5, -7, 1e300, NAN};
  if (p->kind == TL_PARAM_REAL)
    return real[(v - 1) % (sizeof real / sizeof real[0])];
  return integer[(v - 1) % (sizeof integer / sizeof integer[0])];
}

/* The word for a choice index (out of range: a word that is not one). */
static void choice_text(const char *choices, int index, char *buf, size_t size)
{
  const char *p = choices;
  for (int k = 0; k < index && p; k++) {
    p = strchr(p, '|');
    p = p ? p + 1 : NULL;
  }
  if (!p || index < 0) {
    snprintf(buf, size, "no-such-choice");
    return;
  }
  size_t len = strcspn(p, "|");
  snprintf(buf, size, "%.*s", (int)len, p);
}

/* An input is a batch, not a benchmark: sweep limits (maxit, iters) are
 * lowered to WORK / (n nsys), so that no input runs for long where the
 * requested sweeps are all needed (Jacobi on a singular system with
 * maxit = 1e9 took 100 s). Early stops still meet the large counts. */
#define WORK 2e6

static void set_params(reader *r, const tl_algorithm *algo, unsigned mode, double rows,
                       tl_options *opt)
{
  for (int k = 0; k < algo->nparams && k < TL_MAX_PARAMS; k++) {
    unsigned v = byte_or_random(r);
    if (mode == 0 || v == 0)
      continue;
    const tl_param *p = &algo->params[k];
    double x = param_value(p, v);
    int sweeps = !strcmp(p->name, "maxit") || !strcmp(p->name, "iters");
    if (sweeps && x > WORK / rows)
      x = floor(WORK / rows);
    int direct = mode == 2 || (mode == 3 && (v & 1));
    if (direct) {
      opt->value[k] = x;
      opt->is_set[k] = 1;
      continue;
    }
    char text[64];
    if (p->kind == TL_PARAM_CHOICE)
      choice_text(p->choices, (int)x, text, sizeof text);
    else
      snprintf(text, sizeof text, "%.17g", x);
    tl_info info;
    int st = tl_options_set_param(opt, algo, p->name, text, &info);
    CHECK(st == TL_OK || (st == TL_ERR_ARG && strcmp(info.arg, "param") == 0));
    CHECK(st == TL_OK || !opt->is_set[k]);
  }
}

/* A partition size no caller should pass, as any size_t may be: zero,
 * past n, near SIZE_MAX, halves of 2^64 that add up to 0, and sizes that
 * make the running sum wrap around to exactly n (SIZE_MAX + 21 = 20). */
static size_t hostile_size(unsigned v, size_t n, size_t used, int P)
{
  switch (v % 16) {
  case 0: return 0;
  case 1: return SIZE_MAX;
  case 2: return n - used; /* wraps around when the sizes before overshoot n */
  case 3: return SIZE_MAX / 2 + 1;
  case 4: return (size_t)1 << 63;
  case 5: return n + 1;
  case 6: return n;
  case 7: return SIZE_MAX - n;
  case 8: return n - used + 1;
  case 9: return n - used - 1;
  case 10: return (size_t)UINT32_MAX + 1;
  case 11: return (size_t)INT32_MAX + 1;
  case 12: return SIZE_MAX / (size_t)P + 1;
  case 13: return SIZE_MAX - used + 1; /* the sum so far wraps to 0 */
  case 14: return SIZE_MAX - used + 1 + n; /* ... and to n */
  default: return 2;
  }
}

/* P sizes of at least 1; they add up to n unless the input says not. A
 * size byte from 0xf0 on is a hostile size (hostile_size). */
static void partition_sizes(reader *r, size_t n, int P, size_t *sizes)
{
  size_t used = 0, span = 2 * n / (size_t)P;
  for (int p = 0; p < P; p++) {
    unsigned v = byte_or_random(r);
    size_t s = 1 + v % (span ? span : 1);
    if (p == P - 1 && used < n)
      s = n - used; /* a sum other than n only when the others overshoot */
    if (v >= 0xf0)
      s = hostile_size(v, n, used, P);
    sizes[p] = s;
    used += s; /* may wrap around: that is the point */
  }
}

/* The rule tl_solve must enforce, computed here on its own: every size
 * at least the algorithm's minimum and at most n, and their exact sum
 * (no wrap-around) n. */
static int sizes_are_valid(const tl_algorithm *algo, size_t n, int P, const size_t *sizes)
{
  size_t minrows = algo->min_rows_per_part ? algo->min_rows_per_part : 1, left = n;
  for (int p = 0; p < P; p++) {
    if (sizes[p] < minrows || sizes[p] > left)
      return 0;
    left -= sizes[p];
  }
  return left == 0;
}

/* b_i += 2 (|a_i| + |c_i|) b_i / |b_i| over the entries the system uses. */
static void make_dominant(size_t n, size_t nsys, int periodic, size_t parts, double *a, double *b,
                          double *c)
{
  for (size_t s = 0; s < nsys; s++)
    for (size_t i = 0; i < n; i++) {
      size_t k = (s * n + i) * parts;
      double off = 0, mod = 0;
      for (size_t q = 0; q < parts; q++) {
        off +=
            (i > 0 || periodic ? fabs(a[k + q]) : 0) + (i + 1 < n || periodic ? fabs(c[k + q]) : 0);
        mod = hypot(mod, b[k + q]);
      }
      for (size_t q = 0; q < parts; q++)
        b[k + q] += 2 * off * (mod > 0 ? b[k + q] / mod : (q == 0 ? 1.0 : 0.0));
    }
}

static uint64_t hash(const uint8_t *data, size_t size)
{
  uint64_t h = 1469598103934665603u; /* FNV-1a */
  for (size_t k = 0; k < size; k++)
    h = (h ^ data[k]) * 1099511628211u;
  return h;
}

static const tl_algorithm *pick_algorithm(reader *r)
{
  size_t count;
  const tl_algorithm *const *reg = tl_registry(&count);
  unsigned v = byte_or_random(r);
  if (v != 0xff)
    return reg[v % count];
  char name[64];
  size_t len = 0;
  while (more(r) && *r->p && len + 1 < sizeof name)
    name[len++] = (char)*r->p++;
  name[len] = '\0';
  if (more(r))
    r->p++; /* the NUL */
  const tl_algorithm *algo = tl_find(name);
  return algo ? algo : reg[0];
}

static int status_is_valid(int st)
{
  return st == TL_OK || st == TL_OUTSIDE_DOMAIN || st == TL_ERR_ARG || st == TL_ERR_BREAKDOWN ||
         st == TL_ERR_NOT_CONVERGED || st == TL_ERR_UNSUPPORTED || st == TL_ERR_NOMEM;
}

static int all_finite(const double *v, size_t count)
{
  for (size_t k = 0; k < count; k++)
    if (!isfinite(v[k]))
      return 0;
  return 1;
}

/* The forward error of an ok answer, judged against LAPACK's pivoted
 * solve xl (DGTSV, or DGBTRF/DGBTRS for a periodic system) with DGTCON's
 * rcond, as DGET04 judges it: ratio(x, xl) <= ratio(x, xtrue) +
 * ratio(xl, xtrue), so a ratio above 2 THRESH means x's own forward-error
 * ratio is above THRESH wherever LAPACK's is below it (a pivoted
 * tridiagonal solve is backward stable: its growth is at most 2). xl is
 * the reference only where its own residual ratio passes: near overflow
 * the reference BLAS divides complex numbers naively and LAPACK's answer
 * can be the wrong one (1e308 (1 + i) x = 3.7 (1 + i) gave x = 0). Where
 * LAPACK breaks down, the estimate is not a number or the matrix is
 * singular to working precision there is no ratio. */
/* |v| of entry k of an array of the batch (complex: the modulus). */
static double mag(const tl_batch *sys, const double *v, size_t k)
{
  if (sys->dtype == TL_F64)
    return fabs(v[k]);
  return hypot(v[2 * k], v[2 * k + 1]);
}

/* A lower bound on rcond1 of system s from a solution xl of A xl = d:
 * ||A^-1||_1 >= ||xl||_1 / ||d||_1, so rcond1 <= ||d||_1 / (||A||_1
 * ||xl||_1). DGTCON's estimate can be far above the truth when rows are
 * scaled very differently (found by fuzzing: rows from 1e-246 to 1e62,
 * d near 1e-319, an estimate that let the forward check run where the
 * true cond1 exceeds 1e308, so every answer's forward error "failed"
 * against LAPACK's lucky one: thomas, ptdma, nshaped and tridsolver all
 * within 1e-6 of the exact rational solution, far inside what cond1
 * allows). The smaller of the two decides. */
static double rcond_bound(const tl_batch *sys, size_t s, const double *xl)
{
  size_t n = sys->n, o = s * n;
  const double *a = sys->a, *b = sys->b, *c = sys->c, *d = sys->d;
  double anorm = 0.0, dnorm = 0.0, xnorm = 0.0;
  for (size_t j = 0; j < n; j++) { /* column j: c[j-1], b[j], a[j+1] (corners when periodic) */
    double col = mag(sys, b, o + j);
    if (j > 0 || sys->periodic)
      col += mag(sys, c, o + (j + n - 1) % n);
    if (j + 1 < n || sys->periodic)
      col += mag(sys, a, o + (j + 1) % n);
    anorm = col > anorm ? col : anorm;
    dnorm += mag(sys, d, o + j);
    xnorm += mag(sys, xl, o + j);
  }
  if (!(xnorm > 0.0) || !(anorm > 0.0))
    return INFINITY;
  return dnorm / anorm / xnorm;
}

static void check_forward_error(const tl_batch *sys, const double *x, size_t count)
{
  double *xl = calloc(count, sizeof(double));
  double rcond[MAX_NSYS];
  CHECK(xl);
  tl_info info;
  int ok = tl_lapack_solve(sys, xl, &info) == TL_OK && tl_rcond(sys, rcond, &info) == TL_OK &&
           all_finite(xl, count) && tl_residual_ratio(sys, xl) < TL_THRESH;
  for (size_t s = 0; ok && s < sys->nsys; s++) {
    double bound = rcond_bound(sys, s, xl);
    if (bound < rcond[s])
      rcond[s] = bound;
  }
  if (ok && !tl_singular_to_working_precision(rcond, sys->nsys, NULL)) {
    double ratio = tl_forward_ratio(sys, x, xl, rcond);
    snprintf(context + strlen(context), sizeof context - strlen(context),
             "; forward-error ratio %g against LAPACK's solve", ratio);
    CHECK(isnan(ratio) || ratio < 2 * TL_THRESH);
  }
  free(xl);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  reader r = {data, data + size, {0}};
  const tl_algorithm *algo = pick_algorithm(&r);
  tl_rng_seed(&r.rng, hash(r.p, (size_t)(r.end - r.p)));
  unsigned flags = byte_or_random(&r);
  size_t n = 1 + byte_or_random(&r), nsys = 1 + byte_or_random(&r) % MAX_NSYS;
  unsigned pbyte = byte_or_random(&r);
  int eA = (int)(int8_t)byte_or_random(&r) * 8, ex = (int)(int8_t)byte_or_random(&r) * 8;
  int complex_ = flags & 1, periodic = (flags >> 1) & 1;
  int P = algo->partitioned ? 1 + (int)(pbyte % MAX_PARTS) : (pbyte >= 250 ? (int)pbyte - 248 : 1);

  tl_options opt;
  tl_options_init(&opt);
  opt.parts = P;
  set_params(&r, algo, (flags >> 4) & 3, (double)(n * nsys), &opt);
  size_t sizes[MAX_PARTS] = {0};
  if ((flags & 4) && algo->partitioned) {
    partition_sizes(&r, n, P, sizes);
    opt.part_sizes = sizes;
  }

  size_t parts = complex_ ? 2 : 1, count = n * nsys * parts, bytes = count * sizeof(double);
  double *arr[4], *copy[4];
  for (int k = 0; k < 4; k++) {
    arr[k] = malloc(bytes); /* exact sizes: ASan sees any access past them */
    copy[k] = malloc(bytes);
    CHECK(arr[k] && copy[k]);
  }
  for (size_t s = 0; s < nsys; s++) /* a, b, c, d of each system */
    for (int k = 0; k < 4; k++)
      for (size_t i = 0; i < n * parts; i++)
        arr[k][s * n * parts + i] = value(&r);
  if (flags & 8)
    make_dominant(n, nsys, periodic, parts, arr[0], arr[1], arr[2]);
  if (flags & 128)
    for (size_t i = 0; i < count; i++) {
      for (int k = 0; k < 3; k++)
        arr[k][i] = ldexp(arr[k][i], eA);
      arr[3][i] = ldexp(arr[3][i], eA + ex);
    }
  if (!periodic && !(flags & 64))
    for (size_t s = 0; s < nsys; s++)
      for (size_t q = 0; q < parts; q++) {
        arr[0][s * n * parts + q] = 0;
        arr[2][(s * n + n - 1) * parts + q] = 0;
      }
  for (int k = 0; k < 4; k++)
    memcpy(copy[k], arr[k], bytes);
  tl_options opt_copy = opt;
  size_t sizes_copy[MAX_PARTS];
  memcpy(sizes_copy, sizes, sizeof sizes);

  tl_batch sys = {.dtype = complex_ ? TL_C128 : TL_F64,
                  .n = n,
                  .nsys = nsys,
                  .periodic = periodic,
                  .a = arr[0],
                  .b = arr[1],
                  .c = arr[2],
                  .d = arr[3]};
  double *x = calloc(count, sizeof(double));
  CHECK(x);
  tl_info info;
  snprintf(context, sizeof context, "algo %s, %s, %s, n %zu, nsys %zu, P %d%s", algo->name,
           complex_ ? "complex" : "real", periodic ? "periodic" : "plain", n, nsys, P,
           opt.part_sizes ? ", unequal partitions" : "");
  int st = tl_solve(algo, &sys, x, &opt, &info);
  snprintf(context + strlen(context), sizeof context - strlen(context), ": %s (%s)",
           tl_status_name(st), info.msg);

  CHECK(status_is_valid(st));
  CHECK(info.status == st);
  for (int k = 0; k < 4; k++)
    CHECK(memcmp(arr[k], copy[k], bytes) == 0);
  CHECK(memcmp(&opt, &opt_copy, sizeof opt) == 0);
  CHECK(memcmp(sizes, sizes_copy, sizeof sizes) == 0);
  if (st == TL_ERR_ARG)
    CHECK(info.arg[0] != '\0');
  if (st == TL_ERR_BREAKDOWN)
    CHECK(info.row >= 0 && (size_t)info.row < n && info.system < (long)nsys);
  if (st == TL_OUTSIDE_DOMAIN)
    CHECK(info.msg[0] != '\0');
  if (opt.part_sizes && !sizes_are_valid(algo, n, P, sizes))
    CHECK(st == TL_ERR_ARG || st == TL_ERR_UNSUPPORTED);
  if (st == TL_OK) {
    CHECK(all_finite(x, count));
    int loosened = strstr(info.msg, "chosen by the caller") != NULL;
    double ratio = tl_residual_ratio(&sys, x);
    if (!(ratio < TL_THRESH)) {
      snprintf(context + strlen(context), sizeof context - strlen(context), "; residual ratio %g",
               ratio);
      CHECK(loosened);
    }
    if (!loosened)
      check_forward_error(&sys, x, count);
  }
  free(x);
  for (int k = 0; k < 4; k++) {
    free(arr[k]);
    free(copy[k]);
  }
  return 0;
}
