/* optimized/mpi/its_mpi.c -- the interface-splitting algorithm (ITS)
 * across MPI ranks.
 *
 * The rank program of reference/its_ref.c (paper 003 (ITS) Algorithm 1):
 * rank p is partition p and owns interface p, its last row I_p (every
 * rank but the last of a plain system). Per batch:
 *
 *   "rate"    allreduce of each system's largest decay rate -> J, L (eq 18)
 *   "window"  the 2(J+L) coefficient rows around I_p come to rank p from
 *             the ranks that hold them (its neighbour below; further ones
 *             when J + L exceeds a slice): 3 words a row
 *             rank p solves the window's transposed system: s^p, u
 *   "spike"   u -> rank p+1 as t^{p+1} (J words)
 *             a_b^p = s^p . last J of d, a_t^p = t^p . first J of d
 *   "sums"    THE single exchange of Algorithm 1 step 5: a_b^p down,
 *             a_t^p up, 1 word each way (this is all a new right-hand
 *             side needs; the steps above are setup, once per matrix)
 *             local solve of N^p (Thomas)
 *   "halo"    x and the coupling entry at each end of the slice to that
 *             neighbour, 2 words each (every system with a J): then one
 *             pass over a, b, c, d, x gives the verdict's numbers and
 *             the residual's norms together
 *   "verdict" one allreduce of 8 pairs per system: status, the dropped
 *             mass (what the truncation left out, as the reference
 *             reports it), the bound, eps_c, the worst margin,
 *             strictness, the largest |x| and |A| entry
 *   "verdict" rounds 1 and 2 (the systems whose verdict is ok and
 *             dropped <= eps: the reference's residual self-check): the
 *             residual ratio's sums (2 words) and largest column sum
 *             (1 word) of those systems
 *
 *        rank p-1             rank p                 rank p+1
 *           |  <-- window rows --|   <-- window rows --  |
 *           |  -- t^p (J) -----> |   -- t^{p+1} (J) -->  |
 *           |  -- a_b^{p-1} ---> |   -- a_b^p ------->   |   1 word
 *           |  <-- a_t^p ------- |   <-- a_t^{p+1} ---   |   1 word
 *
 * Cost per rank: the reference's flops (window solve 16(J+L), 4J for the
 * dot products, 8m for Thomas, 5m for the residual) per system.
 *
 * The verdict is the reference's: a breakdown of the local solves after
 * the truncation dropped more than tol is the truncation's outside-domain
 * (every rank knows the numbers after the allreduce); an ok verdict that
 * dropped at most eps is ok only when the residual ratio, measured across
 * the slices (verdict_mpi.c), is below 30. Every rank decides the same
 * from the same reduced numbers, so they all take part in the same
 * collectives, and a failure stops them all at the same point.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"
#include "tridlab/cpu.h"
#include "tridlab/part_its.h"

/* Phases in the reference's order. */
enum { PH_TRUNCATE = 1, PH_COEFFICIENTS = 2, PH_LOCAL = 3, PH_FINITE = 4 };

/* The verdict's pairs per system. */
enum { V_STATUS, V_DROPPED, V_BOUND, V_EPSC, V_MARGIN, V_NOTSTRICT, V_XMAX, V_AMAX, V_PAIRS };
_Static_assert(2 * V_PAIRS == TL_ITS_VERDICT_WORDS, "the verdict's words");

typedef struct its_run {
  tl_mpi_exchange *ex;
  const tl_mpi_batch *sl;
  tl_its_state *st;       /* one per system, as the reference's (P partitions) */
  unsigned char *bad;     /* 1: no J for this system (every rank alike)        */
  int own_check, suspect; /* own_entry_check; 1: an entry here is not fine  */
  size_t scanned;         /* systems whose entries were scanned so far        */
  double *halo;           /* 4 per system: x and the coupling beyond each end */
  tl_residual_pass *pass; /* per system: the verdict's one pass over the slice */
  unsigned char *passed;  /* 1: pass[s] made already, right after the kernel  */
  tl_cpu_pass_head *head; /* per system: the pass's rows 0 .. m-2, if made     */
  tl_mpi_status status;
} its_run;

#define ROWS(arr, s) ((const double *)(arr) + (s)*r->sl->m)

/* The rank above p (whose interface is p's first row) and below it, as
 * the reference's partitions; -1: none. */
static int above_of(const tl_its_state *st, int p)
{
  if (st->periodic)
    return st->nif > 0 ? (p + st->parts - 1) % st->parts : -1;
  return p - 1;
}

static int below_of(const tl_its_state *st, int p)
{
  return p < st->nif ? (p + 1) % st->parts : -1;
}

/* Steps 0-1: the state of every system, its rates, J and L. */
static int truncate(its_run *r, const size_t *slices, size_t J, double eps_c)
{
  const tl_mpi_batch *sl = r->sl;
  int p = r->ex->rank, P = r->ex->size;
  size_t nsys = sl->nsys;
  double *rate = tl_alloc(nsys, sizeof *rate);
  if (!rate)
    return TL_ERR_NOMEM;
  int rc = TL_OK, interfaces = 0;
  for (size_t s = 0; s < nsys && rc == TL_OK; s++) {
    rc = tl_its_init(&r->st[s], sl->n, sl->periodic, P, slices, NULL);
    interfaces |= rc == TL_OK && r->st[s].nif > 0;
  }
  /* tl_its_rate of every system, the rows of each in SIMD lanes (the
   * reference's bits). The rates choose J and L, which only the
   * interfaces use: one rank of a plain system has none (nothing is
   * truncated, nothing dropped; J and L appear in no verdict), so there
   * its rows are not read for them and its rate is 0. */
  if (interfaces)
    tl_cpu_its_rate_d(sl->n, sl->periodic, sl->begin, sl->m, nsys, sl->a, sl->b, sl->c, rate);
  else
    memset(rate, 0, nsys * sizeof *rate);
  for (size_t s = 0; s < nsys && rc == TL_OK; s++)
    r->st[s].rate[p] = rate[s];
  if (rc == TL_OK)
    rc = tl_mpi_allreduce_max(r->ex, "rate", 0, rate, nsys);
  for (size_t s = 0; s < nsys && rc == TL_OK; s++) {
    for (int q = 0; q < P; q++) /* the largest rate of all ranks */
      r->st[s].rate[q] = rate[s];
    tl_info one;
    tl_info_clear(&one);
    int t = tl_its_truncation(&r->st[s], J, eps_c, &one);
    tl_mpi_status_note(&r->status, s, PH_TRUNCATE, t, &one);
    r->bad[s] = t < 0;
    if (t == TL_ERR_NOMEM)
      rc = t;
  }
  free(rate);
  return rc;
}

/* Rows of system s's window k (global rows first, first+1, ... mod n)
 * that rank q holds, in window order, as runs of consecutive rows:
 * fn(ctx, s, w, local, len) for window rows w .. w+len-1, which are rank
 * q's local rows local .. local+len-1. A window has at most n rows
 * (tl_its_window_rows), so it wraps at most once: one or two runs of
 * consecutive global rows, each meeting rank q's one run of rows in at
 * most one run.
 *
 *   global rows:  0 ........................................ n-1
 *   window k:     ====]                               [=========   (wraps)
 *   rank q:                  [---------------]
 *
 * (Row by row, with a modulo, a search for the row's owner and a call
 * for each row, rank 0's window step took 8.5-9.2 ms at P = 2, 4096 x
 * 4096; by runs 4.5-6.3, most of it the exchange itself:
 * docs/performance.md.) */
typedef void (*run_fn)(void *ctx, size_t s, size_t w, size_t local, size_t len);
static void window_runs_of(its_run *r, size_t s, int k, int q, run_fn fn, void *ctx)
{
  tl_its_state *st = &r->st[s];
  long first;
  size_t len = tl_its_window_rows(st, k, &first), n = st->n;
  size_t q0 = st->begin[q], q1 = st->begin[q + 1];
  for (size_t w = 0; w < len;) {
    size_t i = ((size_t)first + w) % n, run = len - w < n - i ? len - w : n - i; /* to the wrap */
    size_t lo = i > q0 ? i : q0, hi = i + run < q1 ? i + run : q1;
    if (lo < hi)
      fn(ctx, s, w + (lo - i), lo - q0, hi - lo);
    w += run;
  }
}

/* Building and reading the window messages. */
typedef struct win_ctx {
  its_run *r;
  double *buf; /* 3 words a row: a, b, c                                */
  size_t used;
  int k;       /* the window's interface (reading: into st's window k)  */
  int reading; /* 0: copy my rows out; 1: copy rows in                  */
} win_ctx;

static void win_run(void *ctx, size_t s, size_t w, size_t local, size_t len)
{
  win_ctx *c = ctx;
  its_run *r = c->r;
  tl_its_state *st = &r->st[s];
  double *row = c->buf + 3 * c->used;
  size_t at = (size_t)c->k * st->W + w;
  c->used += len;
  if (!c->reading) {
    const double *a = ROWS(r->sl->a, s) + local, *b = ROWS(r->sl->b, s) + local;
    const double *cc = ROWS(r->sl->c, s) + local;
    for (size_t j = 0; j < len; j++)
      row[3 * j] = a[j], row[3 * j + 1] = b[j], row[3 * j + 2] = cc[j];
  } else {
    for (size_t j = 0; j < len; j++)
      st->wa[at + j] = row[3 * j], st->wb[at + j] = row[3 * j + 1], st->wc[at + j] = row[3 * j + 2];
  }
}

/* A rank's own rows of its own window (interface p = the rank): out of
 * the slice, straight in. */
static void own_run(void *ctx, size_t s, size_t w, size_t local, size_t len)
{
  its_run *r = ctx;
  tl_its_state *st = &r->st[s];
  size_t at = (size_t)r->ex->rank * st->W + w;
  memcpy(st->wa + at, ROWS(r->sl->a, s) + local, len * sizeof(double));
  memcpy(st->wb + at, ROWS(r->sl->b, s) + local, len * sizeof(double));
  memcpy(st->wc + at, ROWS(r->sl->c, s) + local, len * sizeof(double));
}

static void count_run(void *ctx, size_t s, size_t w, size_t local, size_t len)
{
  (void)s, (void)w, (void)local;
  *(size_t *)ctx += len;
}

/* Step 2.1: every window's rows to the rank that owns its interface, in
 * one set of messages for the whole batch ("window"); a rank's own rows
 * of its window are copied. */
static int exchange_windows(its_run *r)
{
  int p = r->ex->rank, P = r->ex->size;
  size_t nsys = r->sl->nsys;
  size_t *cnt = tl_alloc(2 * (size_t)P, sizeof *cnt), *rcnt = cnt ? cnt + P : NULL;
  double **buf = tl_alloc(2 * (size_t)P, sizeof *buf), **rbuf = buf ? buf + P : NULL;
  int rc = cnt && buf ? TL_OK : TL_ERR_NOMEM;
  for (int q = 0; rc == TL_OK && q < P; q++) { /* how many rows go each way */
    for (size_t s = 0; s < nsys; s++) {
      if (r->bad[s])
        continue;
      if (q < r->st[s].nif && q != p)
        window_runs_of(r, s, q, p, count_run, &cnt[q]); /* mine, in q's window */
      if (p < r->st[s].nif && q != p)
        window_runs_of(r, s, p, q, count_run, &rcnt[q]); /* q's, in mine */
    }
    buf[q] = tl_alloc(3 * cnt[q] + 1, sizeof(double));
    rbuf[q] = tl_alloc(3 * rcnt[q] + 1, sizeof(double));
    if (!buf[q] || !rbuf[q])
      rc = TL_ERR_NOMEM;
    win_ctx out = {r, buf[q], 0, q, 0};
    for (size_t s = 0; rc == TL_OK && s < nsys && q != p; s++)
      if (!r->bad[s] && q < r->st[s].nif)
        window_runs_of(r, s, q, p, win_run, &out);
    cnt[q] *= 3, rcnt[q] *= 3;
  }
  if (rc == TL_OK)
    rc = tl_mpi_sparse(r->ex, "window", 0, TL_F64, cnt, (const void *const *)buf, rcnt,
                       (void *const *)rbuf);
  for (int q = 0; rc == TL_OK && q < P; q++) { /* into the windows, in order */
    win_ctx in = {r, rbuf[q], 0, p, 1};
    for (size_t s = 0; s < nsys; s++) {
      if (r->bad[s] || p >= r->st[s].nif)
        continue;
      if (q == p) /* own rows: out of the slice, straight in */
        window_runs_of(r, s, p, p, own_run, r);
      else
        window_runs_of(r, s, p, q, win_run, &in);
    }
  }
  for (int q = 0; buf && q < P; q++) {
    free(buf[q]);
    free(rbuf[q]);
  }
  free(buf);
  free(cnt);
  return rc;
}

/* Step 2: the window's transposed system (s^p, u), then u to rank p+1
 * as its t ("spike", jr words per system). */
static int coefficients(its_run *r)
{
  int p = r->ex->rank;
  size_t nsys = r->sl->nsys, n_out = 0, n_in = 0;
  int below = -1, above = -1;
  /* the windows closed, then solved eight at a time where their shapes
   * agree (tl_cpu_its_window_solves_d: the reference's bits); the rest,
   * and any that breaks down, by the reference */
  unsigned char *done = tl_alloc(nsys + 1, 1);
  if (!done)
    return TL_ERR_NOMEM;
  for (size_t s = 0; s < nsys; s++)
    if (!r->bad[s] && p < r->st[s].nif)
      tl_its_window_close(&r->st[s], p);
  tl_cpu_its_window_solves_d(r->st, nsys, p, r->bad, done);
  for (size_t s = 0; s < nsys; s++) {
    tl_its_state *st = &r->st[s];
    if (r->bad[s])
      continue;
    below = below_of(st, p), above = above_of(st, p);
    if (p < st->nif) {
      tl_info one;
      tl_info_clear(&one);
      int rc = done[s] ? tl_its_coefficients_take(st, p, &one) : tl_its_coefficients(st, p, &one);
      tl_mpi_status_note(&r->status, s, PH_COEFFICIENTS, rc, &one);
      if (rc < 0) /* its t travels as zeros */
        memset(st->t + (size_t)below * st->jr, 0, st->jr * sizeof(double));
    }
    n_out += below >= 0 && below != p ? st->jr : 0;
    n_in += above >= 0 && above != p ? st->jr : 0;
  }
  free(done);
  double *out = tl_alloc(n_out + n_in + 1, sizeof(double)), *in = out + n_out;
  if (!out)
    return TL_ERR_NOMEM;
  size_t o = 0;
  for (size_t s = 0; s < nsys; s++)
    if (!r->bad[s] && below >= 0 && below != p) {
      memcpy(out + o, r->st[s].t + (size_t)below * r->st[s].jr, r->st[s].jr * sizeof(double));
      o += r->st[s].jr;
    }
  int rc = tl_mpi_shift(r->ex, "spike", 0, TL_F64, out, n_out, below != p ? below : -1, in, n_in,
                        above != p ? above : -1);
  size_t i = 0;
  for (size_t s = 0; rc == TL_OK && s < nsys; s++)
    if (!r->bad[s] && above >= 0 && above != p) {
      memcpy(r->st[s].t + (size_t)p * r->st[s].jr, in + i, r->st[s].jr * sizeof(double));
      i += r->st[s].jr;
    }
  free(out);
  return rc;
}

/* Steps 4-5: the partial sums and THE exchange ("sums"). */
static int sums(its_run *r)
{
  int p = r->ex->rank;
  size_t nsys = r->sl->nsys;
  double *buf = tl_alloc(4 * nsys, sizeof *buf);
  if (!buf)
    return TL_ERR_NOMEM;
  double *up = buf, *down = buf + nsys, *from_above = buf + 2 * nsys, *from_below = buf + 3 * nsys;
  int above = -1, below = -1;
  for (size_t s = 0; s < nsys; s++) {
    tl_its_state *st = &r->st[s];
    up[s] = down[s] = from_above[s] = from_below[s] = 0.0;
    if (r->bad[s])
      continue;
    above = above_of(st, p), below = below_of(st, p);
    tl_its_partial(st, p, ROWS(r->sl->d, s));
    up[s] = st->at[p];   /* a_t^p to the rank above */
    down[s] = st->ab[p]; /* a_b^p to the rank below */
  }
  int rc = tl_mpi_neighbours(r->ex, "sums", 0, TL_F64, above, below, above >= 0 ? up : NULL, nsys,
                             below >= 0 ? down : NULL, nsys, above >= 0 ? from_above : NULL, nsys,
                             below >= 0 ? from_below : NULL, nsys);
  for (size_t s = 0; s < nsys; s++) {
    r->st[s].recv_b[p] = from_above[s]; /* a_b of the interface above */
    r->st[s].recv_t[p] = from_below[s]; /* a_t of the rank below      */
  }
  free(buf);
  return rc;
}

/* ---- Step 7 for the whole slice --------------------------------------
 *
 * WHAT IT COMPUTES. Each system's local system N^p x^p = v~^p: the rank's
 * block with its first right-hand side entry moved by the received sums
 * and, above an interface, its last row replaced by the identity row
 * (tl_its_local_system builds it, as tl_its_local_solve does). The
 * reference then runs Thomas on it, one system after another.
 * WHY THE KERNEL. N^p is a plain tridiagonal system, m rows per system,
 * so tl_cpu_thomas_lines_d (tridlab/cpu.h) solves 8 systems per SIMD
 * group at the memory bandwidth instead of the scalar recurrence; the
 * same Thomas, to rounding (it multiplies by reciprocals).
 * FALLBACK. A system the kernel flags 1 (a zero or non-finite pivot, a
 * non-finite result) is solved again by tl_its_local_solve, which gives
 * the reference's status, row and message; flags 2 and 3 (dominance,
 * corners) do not matter for N^p. When memory is short, every system is.
 * N^p differs from the slice only in its end rows: a, b and d of a few
 * SIMD groups at a time (tl_mpi_kernel_chunk systems) are copied into
 * one reused scratch, which stays in cache, and their end rows changed
 * (tl_its_local_ends); c is read where it lies (N^p's differs from it
 * only in the corner c[m-1], which the kernel does not use in the
 * solve), and the kernel writes x where it belongs. Nothing batch-sized
 * is taken and touched anew on every solve. */

/* One rank of a plain system has no interface and receives nothing:
 * N^p is its slice itself, but for the corners a[0] and c[m-1], whose
 * values the recurrence never uses (the kernel reads them only for its
 * corner flag 3, which ITS ignores; tl_mpi_entries_from_flags checks
 * the corners itself). Then the kernel solves the slice where it lies,
 * into x, without building N^p in a scratch (on 4096 x 4096 that copy
 * was 15 % of the solve). And such a slice needs no halo for the
 * verdict's pass (its end rows have no neighbours), so the pass runs on
 * each chunk of tl_mpi_kernel_chunk systems right after the kernel, from
 * cache, instead of reading the slice from memory again (r->passed:
 * which systems it covered; not those the reference solves again).
 * Returns redo as local_lines does; NULL when it cannot run. */
static unsigned char *slice_lines(its_run *r, double *x)
{
  const tl_mpi_batch *sl = r->sl;
  size_t m = sl->m, nsys = sl->nsys, chunk = tl_mpi_kernel_chunk(m, nsys);
  unsigned char *redo = tl_alloc(nsys, 1);
  for (size_t s0 = 0; redo && s0 < nsys; s0 += chunk) {
    size_t k = nsys - s0 < chunk ? nsys - s0 : chunk;
    tl_info ti;
    tl_info_clear(&ti);
    if (tl_cpu_thomas_lines_d(m, k, ROWS(sl->a, s0), ROWS(sl->b, s0), ROWS(sl->c, s0),
                              ROWS(sl->d, s0), x + s0 * m, redo + s0, &ti) != TL_OK) {
      memset(r->passed, 0, nsys);
      free(redo);
      return NULL;
    }
    tl_cpu_residual_slices_pass_d(sl->n, sl->periodic, sl->begin, m, k, ROWS(sl->a, s0),
                                  ROWS(sl->b, s0), ROWS(sl->c, s0), ROWS(sl->d, s0), x + s0 * m,
                                  r->halo + 4 * s0, r->pass + s0);
    for (size_t s = s0; s < s0 + k; s++)
      r->passed[s] = redo[s] != 1;
  }
  if (!redo)
    return NULL;
  if (r->own_check) { /* the entries, from the kernel's flags */
    r->suspect |= !tl_mpi_entries_from_flags(sl, 0, nsys, redo, r->bad);
    r->scanned = nsys;
  }
  for (size_t s = 0; s < nsys; s++)
    redo[s] = redo[s] == 1;
  return redo;
}

/* Returns redo (nsys bytes: 1 = solve with the reference), x written
 * for the others; NULL when the kernel could not run (then all are). */
static unsigned char *local_lines(its_run *r, double *x)
{
  const tl_mpi_batch *sl = r->sl;
  int p = r->ex->rank;
  size_t m = sl->m, nsys = sl->nsys;
  int whole = r->ex->size == 1 && !sl->periodic && m > 0;
  for (size_t s = 0; whole && s < nsys; s++)
    whole = !r->bad[s] && r->st[s].nif == 0;
  if (whole)
    return slice_lines(r, x);
  size_t chunk = tl_mpi_kernel_chunk(m, nsys);
  unsigned char *redo = tl_alloc(nsys, 1), *flag = tl_alloc(chunk, 1);
  double *fix = tl_alloc(3 * chunk, sizeof *fix), *xl = tl_alloc(chunk, sizeof *xl);
  int ok = m > 0 && redo && flag && fix && xl;
  for (size_t s0 = 0; ok && s0 < nsys; s0 += chunk) {
    size_t k = nsys - s0 < chunk ? nsys - s0 : chunk;
    /* N^p differs from the slice only in its end rows (tl_its_local_ends):
     * the kernel changes them as it reads them, d_0 - v a_0 (ends) and
     * the identity row x_{m-1} = a_b^p + a_t^{p+1} (last), so that
     * nothing is copied. A system without a J gets the identity row 0
     * and is otherwise solved as it stands; its x is not used. */
    double *ends = fix, *last = fix + 2 * chunk;
    int bottom = 0;
    for (size_t j = 0, s = s0; j < k; j++, s++) {
      ends[j] = ends[k + j] = last[j] = 0.0;
      if (!r->bad[s]) /* the reference's numbers (tl_its_local_ends) */
        bottom |= tl_its_local_end_rows(&r->st[s], p, ROWS(sl->a, s)[0], &ends[j], &last[j]);
    }
    tl_cpu_lines_more more = {.d_ends = ends, .x_last = bottom ? last : NULL};
    tl_info ti;
    tl_info_clear(&ti);
    ok = tl_cpu_thomas_lines_more_d(m, k, ROWS(sl->a, s0), ROWS(sl->b, s0), ROWS(sl->c, s0),
                                    ROWS(sl->d, s0), x + s0 * m, flag, &more, &ti) == TL_OK;
    for (size_t j = 0, s = s0; ok && j < k; j++, s++)
      if (r->bad[s]) { /* not N^p: neither a report nor an x */
        flag[j] = 0;
        memset(x + s * m, 0, m * sizeof *x);
      }
    if (ok && r->own_check) { /* the entries, from the kernel's flags */
      r->suspect |= !tl_mpi_entries_from_flags(sl, s0, k, flag, r->bad + s0);
      r->scanned += k;
    }
    for (size_t j = 0, s = s0; ok && j < k; j++, s++) {
      redo[s] = flag[j] == 1;
      xl[j] = r->bad[s] ? 0.0 : tl_its_value_above(&r->st[s], p);
    }
    /* The verdict's pass over rows 0 .. m-2 while they are in cache: x
     * just above the slice is the interface value of the rank above,
     * which this rank knows (the halo confirms it, bit for bit, before
     * verdict_pass uses these numbers); x just below comes later. */
    if (ok)
      tl_cpu_residual_slices_head_d(sl->n, sl->periodic, sl->begin, m, k, ROWS(sl->a, s0),
                                    ROWS(sl->b, s0), ROWS(sl->c, s0), ROWS(sl->d, s0),
                                    x + s0 * m, xl, r->head + s0);
    for (size_t s = s0; ok && s < s0 + k; s++)
      r->head[s].made &= !redo[s] && !r->bad[s];
  }
  free(flag);
  free(fix);
  free(xl);
  for (size_t s = 0; !ok && s < nsys; s++) /* the reference solves them all: no kernel x */
    r->head[s].made = 0;
  if (!ok) {
    free(redo);
    return NULL;
  }
  return redo;
}

/* The dominance pairs of the verdict from the slice's weakest row (neg,
 * worst): -rel and its row, and whether a row is not strictly dominant
 * (rel <= 0, as tl_classes_d's strictness judges it). */
static void set_classes(double *q, double neg, long worst)
{
  q[2 * V_MARGIN] = neg, q[2 * V_MARGIN + 1] = (double)worst;
  q[2 * V_NOTSTRICT] = neg < 0.0 ? 0.0 : 1.0, q[2 * V_NOTSTRICT + 1] = -1.0;
}

/* How much of system s's pass is made: 2 all of it (slice_lines), 1 its
 * head (local_lines), 0 none. */
static int pass_made(const its_run *r, size_t s)
{
  return r->passed[s] ? 2 : r->head[s].made ? 1 : 0;
}

/* The verdict's numbers of the systems which[0..k) in one read of each
 * slice: the halo first (every rank lists the same systems, those with a
 * J), then one pass over a, b, c, d and x per system, 8 systems side by
 * side (tl_cpu_residual_slices_pass_d): the weakest row and the maxima
 * for round 0, and the unscaled norms that rounds 1 and 2 rescale, so
 * that a checked residual does not read the slice again. */
static int verdict_pass(its_run *r, const double *x, const size_t *which, size_t k)
{
  const tl_mpi_batch *sl = r->sl;
  size_t m = sl->m;
  int rc = tl_mpi_residual_halo_of(r->ex, sl, x, which, k, r->halo);
  for (size_t j = 0, run; rc == TL_OK && j < k; j += run) { /* runs of adjacent systems */
    size_t s0 = which[j];
    int how = pass_made(r, s0);
    for (run = 1; j + run < k && which[j + run] == s0 + run && pass_made(r, s0 + run) == how; run++)
      ;
    if (how == 1) /* the rows after the head (local_lines) */
      tl_cpu_residual_slices_tail_d(sl->n, sl->periodic, sl->begin, m, run, ROWS(sl->a, s0),
                                    ROWS(sl->b, s0), ROWS(sl->c, s0), ROWS(sl->d, s0),
                                    x + s0 * m, r->halo + 4 * s0, r->head + s0, r->pass + s0);
    else if (how == 0) /* the whole pass */
      tl_cpu_residual_slices_pass_d(sl->n, sl->periodic, sl->begin, m, run, ROWS(sl->a, s0),
                                    ROWS(sl->b, s0), ROWS(sl->c, s0), ROWS(sl->d, s0),
                                    x + s0 * m, r->halo + 4 * s0, r->pass + s0);
  }
  return rc;
}

/* Steps 6-7 and this rank's numbers of the verdict; < 0 when the halo's
 * exchange failed. */
static int local_solves(its_run *r, double *x, double *pairs)
{
  const tl_mpi_batch *sl = r->sl;
  int p = r->ex->rank;
  size_t m = sl->m, nsys = sl->nsys, k = 0;
  size_t *which = tl_alloc(nsys + 1, sizeof *which);
  if (!which)
    return TL_ERR_NOMEM;
  unsigned char *redo = local_lines(r, x); /* NULL: all by the reference */
  for (size_t s = 0; s < nsys; s++) {
    tl_its_state *st = &r->st[s];
    const double *a = ROWS(sl->a, s), *b = ROWS(sl->b, s), *c = ROWS(sl->c, s);
    double *q = pairs + 2 * V_PAIRS * s;
    int mine = !r->bad[s] && p < st->nif; /* the interface this rank measured */
    q[2 * V_DROPPED] = mine ? st->dropped[p] : 0.0;
    q[2 * V_DROPPED + 1] = mine ? (double)(st->begin[p + 1] - 1) : -1.0;
    q[2 * V_BOUND] = mine ? st->bound[p] : 0.0, q[2 * V_BOUND + 1] = -1.0;
    q[2 * V_EPSC] = mine ? st->eps_c[p] : 0.0, q[2 * V_EPSC + 1] = -1.0;
    q[2 * V_XMAX] = q[2 * V_AMAX] = 0.0, q[2 * V_XMAX + 1] = q[2 * V_AMAX + 1] = -1.0;
    if (r->bad[s]) { /* no J, no x: the weakest row only */
      double neg; /* -rel of the weakest row: strictly dominant rows when < 0 */
      long worst;
      tl_slice_weakest_row(TL_F64, sl->n, sl->periodic, sl->begin, m, a, b, c, &neg, &worst);
      set_classes(q, neg, worst);
      continue;
    }
    tl_info one;
    tl_info_clear(&one);
    int rc = redo && !redo[s] ? TL_OK
                              : tl_its_local_solve(st, p, a, b, c, ROWS(sl->d, s), x + s * m, &one);
    tl_mpi_status_note(&r->status, s, PH_LOCAL, rc, &one);
    which[k++] = s;
  }
  free(redo);
  int rc = verdict_pass(r, x, which, k);
  for (size_t j = 0; rc == TL_OK && j < k; j++) {
    size_t s = which[j];
    const tl_residual_pass *ps = &r->pass[s];
    const double *xs = x + s * m;
    double *q = pairs + 2 * V_PAIRS * s;
    set_classes(q, ps->weak, ps->weak_row);
    q[2 * V_XMAX] = ps->max[0], q[2 * V_AMAX] = ps->max[1];
    /* x not finite: where (a failure of the local solve, noted before,
     * stays the one reported) */
    for (size_t i = 0; ps->max[0] == INFINITY && i < m; i++)
      if (!isfinite(xs[i])) {
        size_t row = sl->begin + i;
        tl_info one;
        tl_info_clear(&one);
        int st = TL_FAIL(&one, TL_ERR_BREAKDOWN, -1, (long)row, "",
                         "its: non-finite solution at row %zu (overflow)", row);
        tl_mpi_status_note(&r->status, s, PH_FINITE, st, &one);
        break;
      }
  }
  free(which);
  return rc;
}

/* After the verdict's allreduce, on every rank alike: each system's
 * status as the reference's its_solve_one ends, in the order of a batch
 * (tl_outcome: the first error stops it). A failure noted by a rank
 * travels from it ("report"); a breakdown of the local solves after the
 * truncation dropped more than tol is the truncation's verdict instead
 * (tl_its_overflow_verdict, from the reduced numbers); otherwise
 * tl_its_verdict, and where it is ok and dropped <= eps, the residual
 * ratio of all such systems at once ("verdict" rounds 1 and 2, from the
 * passes verdict_pass made after the halo). */
static int its_outcome(its_run *r, const double *x, const double *pairs, double tol, tl_info *info)
{
  const tl_mpi_batch *sl = r->sl;
  size_t nsys = sl->nsys, k = 0, last = nsys;
  tl_info *one = tl_alloc(nsys, sizeof *one);
  int *verdict = tl_alloc(nsys, sizeof *verdict);
  size_t *which = tl_alloc(nsys, sizeof *which);
  double *max = tl_alloc(3 * nsys, sizeof *max), *ratio = max ? max + 2 * nsys : NULL;
  int status = TL_OK;
  if (!one || !verdict || !which || !max) {
    status = TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "its: no memory for the verdict");
    goto cleanup;
  }
  for (size_t s = 0; s < nsys && last == nsys; s++) {
    const double *q = pairs + 2 * V_PAIRS * s;
    double dropped = q[2 * V_DROPPED];
    long row = (long)q[2 * V_DROPPED + 1];
    tl_info_clear(&one[s]);
    if (tl_mpi_status_failed(pairs, V_PAIRS, s)) {
      TL_CHECK(tl_mpi_status_report(&r->status, pairs, V_PAIRS, s, &one[s]));
      verdict[s] = one[s].status;
      if (verdict[s] == TL_ERR_BREAKDOWN && dropped > tol &&
          tl_mpi_status_phase(&r->status, pairs, V_PAIRS, s) >= PH_LOCAL) {
        tl_info_clear(&one[s]);
        verdict[s] = tl_its_overflow_verdict(&r->st[s], dropped, row, q[2 * V_BOUND], tol, &one[s]);
      } else {
        last = s; /* the batch stops at its first error */
      }
      continue;
    }
    verdict[s] = tl_its_verdict(&r->st[s], dropped, row, q[2 * V_BOUND], q[2 * V_EPSC],
                                q[2 * V_NOTSTRICT] == 0.0, (long)q[2 * V_MARGIN + 1], tol, &one[s]);
    if (tl_its_checks_residual(verdict[s], dropped)) {
      max[2 * k] = q[2 * V_XMAX], max[2 * k + 1] = q[2 * V_AMAX];
      which[k++] = s;
    }
  }
  if (last == nsys && k) { /* every rank has the same k systems; their halo crossed */
    status = tl_mpi_residual_ratios(r->ex, sl, x, r->halo, which, k, max, r->pass, ratio);
    if (status < 0) {
      status = TL_FAIL(info, status, -1, -1, "", "its: the residual ratio's exchange failed");
      goto cleanup;
    }
    for (size_t j = 0; j < k; j++)
      verdict[which[j]] = tl_residual_verdict("its", ratio[j], TL_ITS_RESIDUAL_WHY, &one[which[j]]);
  }
  tl_outcome out;
  tl_outcome_init(&out, nsys);
  for (size_t s = 0; s < nsys && s <= last; s++)
    tl_outcome_add(&out, s, verdict[s], &one[s]);
  status = tl_outcome_finish(&out, info);
cleanup:
  free(one);
  free(verdict);
  free(which);
  free(max);
  return status;
}

static int its_mpi_solve(const tl_algorithm *self, tl_mpi_exchange *ex, const tl_mpi_batch *sl,
                         const size_t *slices, void *x, const tl_options *opt, tl_info *info)
{
  size_t J = (size_t)tl_param_value(self, opt, "J"), nsys = sl->nsys;
  double eps_c = tl_param_value(self, opt, "eps_c");
  double tol = tl_param_value(self, opt, "tol");
  its_run run = {.ex = ex, .sl = sl, .own_check = self->mpi->own_entry_check}, *r = &run;
  TL_CALL(tl_mpi_status_init(&r->status, ex, nsys, info));
  r->st = tl_alloc(nsys, sizeof *r->st);
  r->bad = tl_alloc(nsys, 1);
  r->halo = tl_alloc(4 * nsys + 1, sizeof *r->halo);
  r->pass = tl_alloc(nsys + 1, sizeof *r->pass);
  r->passed = tl_alloc(nsys + 1, 1);
  r->head = tl_alloc(nsys + 1, sizeof *r->head);
  double *pairs = tl_alloc(V_PAIRS * nsys, 2 * sizeof(double));
  int status = TL_OK;
  if (!r->st || !r->bad || !r->halo || !r->pass || !r->passed || !r->head || !pairs) {
    status = TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "its: no memory for %zu systems", nsys);
    goto cleanup;
  }
  memset(r->st, 0, nsys * sizeof *r->st);
  int rc = truncate(r, slices, J, eps_c);
  if (rc == TL_OK)
    rc = exchange_windows(r);
  if (rc == TL_OK)
    rc = coefficients(r);
  if (rc == TL_OK)
    rc = sums(r);
  if (rc < 0) {
    status = TL_FAIL(info, rc, -1, -1, "", "its: the exchange of %zu systems failed", nsys);
    goto cleanup;
  }
  if ((rc = local_solves(r, x, pairs)) < 0) {
    status = TL_FAIL(info, rc, -1, -1, "", "its: the verdict's pass failed (%s)",
                     rc == TL_ERR_NOMEM ? "no memory" : "its halo exchange");
    goto cleanup;
  }
  if (r->own_check) { /* the systems no pass scanned (the kernel could not run), then agree */
    if (r->scanned != nsys)
      r->suspect |= !tl_mpi_entries_scan(sl, 0, nsys);
    if ((status = tl_mpi_entries_agree(ex, sl, r->suspect, info)) != TL_OK)
      goto cleanup;
  }
  tl_mpi_status_pairs(&r->status, pairs, V_PAIRS);
  TL_CHECK(tl_mpi_allreduce_pairs(ex, "verdict", 0, pairs, V_PAIRS * nsys));
  status = its_outcome(r, x, pairs, tol, info);
cleanup:
  for (size_t s = 0; r->st && s < nsys; s++)
    tl_its_free(&r->st[s]);
  free(r->st);
  free(r->bad);
  free(r->halo);
  free(r->pass);
  free(r->passed);
  free(r->head);
  free(pairs);
  tl_mpi_status_free(&r->status);
  return status;
}

#undef ROWS

/* The registry entry: the reference it runs the phases of, and what
 * crosses the ranks. */
extern const tl_algorithm tl_algo_its_ref;
static const tl_mpi_program its_program = {
    .crosses = "setup: window rows to each interface's rank, t to the next; then the single "
               "exchange of one word each way per interface, verdict",
    .solve = its_mpi_solve,
    .own_entry_check = 1, /* from step 7 kernel flags (rows 0, m-1 apart) */
};

const tl_algorithm tl_mpi_algo_its = {
    .name = "its_mpi",
    .backend = "mpi",
    .reference = &tl_algo_its_ref,
    .solve = tl_mpi_solve_batch,
    .ledger_model = tl_mpi_ledger_model,
    .checks_entries = 1, /* the rank program checks its rows (own_entry_check) */
    .mpi = &its_program,
};
