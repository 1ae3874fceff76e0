/* optimized/mpi/tridsolver_mpi.c -- Tridsolver across MPI ranks.
 *
 * The rank program of reference/tridsolver_ref.c (paper 002, Algorithm 6
 * and "Distributed memory algorithms"): rank p is partition p and runs
 * the same phase functions (tridlab/part_tridsolver.h) on its own rows of
 * every system of the batch. What the simulated partitions pass through
 * their buffers crosses the ranks here, once per phase for the whole
 * batch (docs/algorithms/tridsolver.md, "MPI"):
 *
 *   phase                     rank p-1          rank p          rank p+1
 *   1 forward sweep              |                 |                 |
 *   2 "last-row"                 |-- al cl dl ---> |-- al cl dl ---> |  3 scalars
 *   3 reduced row (A B C D)      |                 |                 |
 *   4 the reduced system, one of
 *     allgather   every rank gets the P rows (4 each), solves them all
 *     gather-     rank 0 gets the P rows, solves, sends (F[p], F[p+1])
 *     scatter
 *     pcr         step l: rows to ranks p - 2^l and p + 2^l (4 each),
 *                 ceil(log2 P) steps; then "next-first":
 *                                 | <-- F[p] ------ | <-- F[p+1] ---- |  1 scalar
 *   5 backward sweep with F[p], F[p+1]
 *   6 "halo" and "verdict": dominance and LAPACK's residual ratio of the
 *     whole answer (optimized/mpi/verdict_mpi.c)
 *
 * A rank whose rows broke down still sends (zeros or what it has) in
 * every phase, so nobody waits; the first failure in the reference's
 * order wins (status_mpi.c).
 *
 *     jacobi      round k = 0, 1, ...: F[p] to both neighbours (1 scalar
 *                 each way), then one allreduce "jacobi-test" (6 numbers
 *                 per system: the convergence test of Algorithm 5, which
 *                 "nullifies" its near-neighbour advantage, paper 002);
 *                 the systems of the batch sweep together
 */
#ifndef TL_TEMPLATE_PASS
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"
#include "tridlab/cpu.h"
#include "tridlab/part_tridsolver.h"

/* Phases in the reference's order (the order failures are met): the
 * reduced solve's PCR step l is phase PH_REDUCED + l. */
enum { PH_FORWARD = 1, PH_REDUCED = 2, PH_BACKWARD = PH_REDUCED + 40 };

/* The choice of reduced solve and Jacobi's parameters. */
typedef struct ts_params {
  int own_check; /* the entries checked in the forward sweep (own_entry_check) */
  int strategy;
  size_t minibatch;
  long iters, maxit;
  double tol;
} ts_params;

#define DD_WHY "the forward sweep and the reduced solve have no stability guarantee here"
#define RESIDUAL_WHY "the reduced solve is not backward stable on this ill-conditioned matrix"

#define TL_TEMPLATE_PASS 1
#include "core/template.h"
#include "tridsolver_mpi.c"
#undef TL_TEMPLATE_PASS
#define TL_TEMPLATE_PASS 2
#include "core/template.h"
#include "tridsolver_mpi.c"
#undef TL_TEMPLATE_PASS

static int tridsolver_mpi_solve(const tl_algorithm *self, tl_mpi_exchange *ex,
                                const tl_mpi_batch *sl, const size_t *slices, void *x,
                                const tl_options *opt, tl_info *info)
{
  int strategy = (int)tl_param_value(self, opt, "reduced");
  ts_params par = {.own_check = self->mpi->own_entry_check,
                   .strategy = strategy,
                   .minibatch = (size_t)tl_param_value(self, opt, "minibatch"),
                   .iters = (long)tl_param_value(self, opt, "iters"),
                   .tol = tl_param_value(self, opt, "tol"),
                   .maxit = (long)tl_param_value(self, opt, "maxit")};
  if (sl->dtype == TL_F64)
    return ts_rank_d(ex, sl, slices, x, &par, info);
  return ts_rank_z(ex, sl, slices, x, &par, info);
}

extern const tl_algorithm tl_algo_tridsolver_ref;

static const tl_mpi_program tridsolver_program = {
    .crosses = "last row to the right, the P reduced rows by allgather, gather-scatter or PCR "
               "over ranks, verdict",
    .solve = tridsolver_mpi_solve,
    .own_entry_check = 1, /* in the forward sweep's pass over the slice */
};

const tl_algorithm tl_mpi_algo_tridsolver = {
    .name = "tridsolver_mpi",
    .backend = "mpi",
    .reference = &tl_algo_tridsolver_ref,
    .solve = tl_mpi_solve_batch,
    .ledger_model = tl_mpi_ledger_model,
    .checks_entries = 1, /* the rank program checks its rows (own_entry_check) */
    .mpi = &tridsolver_program,
};

#else /* ---- the rank program, once for S = double and S = double complex ---- */

/* 1: the local sweeps of a double batch run on the batched kernels of
 * optimized/cpu/ (complex: the reference's, system after system). */
#undef TS_BATCHED
#define TS_BATCHED (!TL_IS_COMPLEX)

/* One rank's buffers for a batch of nsys systems of m rows here. */
typedef struct FN(ts_run) {
  tl_mpi_exchange *ex;
  const tl_mpi_batch *sl;
  const size_t *slices;
  tl_dtype dt;
  S *as, *cs, *ds;    /* complex: the forward sweep's a*, c*, d*, m per system */
  S *ends;            /* its rows 0 and m-1: 6 per system (a'_0, a'_{m-1},
                         c'_0, c'_{m-1}, d'_0, d'_{m-1}: two-row arrays)  */
  S *tmp;             /* double: a reference sweep's a*, c*, d* (3 m), or a
                         group's batched ones (3 8 m)                     */
  S *last, *prev;     /* 3 per system: my last row, rank p-1's          */
  S *rows;            /* 4 per system: my reduced row (A, B, C, D)      */
  S *F;               /* 2 per system: F[p], F[p+1]                     */
  unsigned char *bad; /* 1: the system failed on this rank              */
  unsigned char *flag; /* 1: phase 1 ran the reference on it             */
  tl_mpi_status st;
  int own_check, suspect; /* own_entry_check; 1: an entry is not fine here */
  size_t s0, ns;          /* the mini-batch being solved: systems [s0, s0+ns) */
  int round0;             /* its rounds in the ledger: round0 + r             */
} FN(ts_run);

static void FN(ts_note)(FN(ts_run) * r, size_t s, int phase, int status, const tl_info *one)
{
  if (status < 0)
    r->bad[s] = 1;
  tl_mpi_status_note(&r->st, s, phase, status, one);
}

/* A failure of the reduced solve names partition p: the reference
 * reports the matrix row of F[p]. */
static void FN(ts_note_reduced)(FN(ts_run) * r, size_t s, int phase, int status, tl_info *one)
{
  tl_tridsolver_name_row(one, r->sl->n, r->ex->size, r->slices);
  FN(ts_note)(r, s, phase, status, one);
}

/* System s of a gathered buffer (rank q's 4 nsys scalars, system after
 * system) solved by the strategy's reduced solve: F (P + 1, F[P] = 0),
 * or a failure noted. rows, work: 4P scratch each. */
static int FN(ts_solve_gathered)(FN(ts_run) * r, const S *all, size_t s, int strategy, S *rows,
                                 S *work, S *F)
{
  int P = r->ex->size;
  for (int q = 0; q < P; q++)
    memcpy(rows + 4 * (size_t)q, all + ((size_t)q * r->ns + s) * 4, 4 * sizeof(S));
  tl_info one;
  tl_info_clear(&one);
  int st = strategy == TL_TRIDSOLVER_ALLGATHER
               ? FN(tl_tridsolver_allgather)(P, rows, work, F, &one)
               : FN(tl_tridsolver_gather_scatter)(P, rows, work, F, &one);
  if (st < 0)
    FN(ts_note_reduced)(r, r->s0 + s, PH_REDUCED, st, &one);
  F[P] = 0; /* no partition after the last */
  return st;
}

/* allgather: every rank solves the same P x P system (Thomas). */
static int FN(ts_allgather)(FN(ts_run) * r)
{
  int P = r->ex->size, p = r->ex->rank;
  size_t nsys = r->ns;
  S *all = tl_alloc(4 * nsys * (size_t)P + 9 * (size_t)P + 1, sizeof(S));
  if (!all)
    return TL_ERR_NOMEM;
  S *rows = all + 4 * nsys * (size_t)P, *work = rows + 4 * (size_t)P, *F = work + 4 * (size_t)P;
  int status =
      tl_mpi_allgather(r->ex, "reduced", r->round0, r->dt, r->rows + 4 * r->s0, 4 * nsys, all);
  for (size_t s = 0; s < nsys && status == TL_OK; s++) {
    if (FN(ts_solve_gathered)(r, all, s, TL_TRIDSOLVER_ALLGATHER, rows, work, F) < 0)
      continue;
    r->F[2 * (r->s0 + s)] = F[p];
    r->F[2 * (r->s0 + s) + 1] = F[p + 1];
  }
  free(all);
  return status;
}

/* gather-scatter: rank 0 solves, every rank gets its (F[p], F[p+1]). */
static int FN(ts_gather_scatter)(FN(ts_run) * r)
{
  int P = r->ex->size, root = r->ex->rank == 0;
  size_t nsys = r->ns, np = (size_t)P;
  S *all = root ? tl_alloc(6 * nsys * np + 9 * np + 1, sizeof(S)) : NULL;
  if (root && !all)
    return TL_ERR_NOMEM; /* the others wait: no memory is fatal anyway */
  int status =
      tl_mpi_gather(r->ex, "reduced", r->round0, r->dt, r->rows + 4 * r->s0, 4 * nsys, all, 0);
  S *pairs = root ? all + 4 * nsys * np : NULL; /* (F[q], F[q+1]) for each rank q */
  if (root && status == TL_OK) {
    S *rows = pairs + 2 * nsys * np, *work = rows + 4 * np, *F = work + 4 * np;
    memset(pairs, 0, 2 * nsys * np * sizeof(S));
    for (size_t s = 0; s < nsys; s++) {
      if (FN(ts_solve_gathered)(r, all, s, TL_TRIDSOLVER_GATHER_SCATTER, rows, work, F) < 0)
        continue;
      for (size_t q = 0; q < np; q++) {
        pairs[(q * nsys + s) * 2] = F[q];
        pairs[(q * nsys + s) * 2 + 1] = F[q + 1];
      }
    }
  }
  if (status == TL_OK)
    status =
        tl_mpi_scatter(r->ex, "solution", r->round0, r->dt, pairs, 2 * nsys, r->F + 2 * r->s0, 0);
  free(all);
  return status;
}

/* PCR over the ranks: at stride 2^l rank p combines its row with those of
 * ranks p - 2^l and p + 2^l; after ceil(log2 P) steps its row holds F[p]
 * alone. Then F[p] goes to rank p-1, which needs it as its F[p+1]. */
static int FN(ts_pcr)(FN(ts_run) * r)
{
  int P = r->ex->size, p = r->ex->rank;
  size_t nsys = r->ns, s0 = r->s0;
  S *buf = tl_alloc(18 * nsys, sizeof(S));
  if (!buf)
    return TL_ERR_NOMEM;
  S *cur = buf, *next = buf + 4 * nsys, *left = next + 4 * nsys, *right = left + 4 * nsys;
  S *mine = right + 4 * nsys, *from_next = mine + nsys;
  memcpy(cur, r->rows + 4 * s0, 4 * nsys * sizeof(S));
  int status = TL_OK, l = 0;
  for (int s = 1; s < P && status == TL_OK; s *= 2, l++) {
    int lo = p >= s ? p - s : -1, hi = p + s < P ? p + s : -1;
    status = tl_mpi_neighbours(r->ex, "pcr", r->round0 + l, r->dt, lo, hi, cur, 4 * nsys, cur,
                               4 * nsys, left, 4 * nsys, right, 4 * nsys);
    for (size_t k = 0; k < nsys && status == TL_OK; k++) {
      memcpy(next + 4 * k, cur + 4 * k, 4 * sizeof(S)); /* a failed system keeps its row */
      if (r->bad[s0 + k])
        continue;
      if (FN(tl_tridsolver_pcr_step)(cur + 4 * k, lo >= 0 ? left + 4 * k : NULL,
                                     hi >= 0 ? right + 4 * k : NULL, next + 4 * k) < 0) {
        tl_info one;
        tl_info_clear(&one);
        int st = tl_tridsolver_pcr_breakdown(&one, (size_t)p, (size_t)s);
        FN(ts_note_reduced)(r, s0 + k, PH_REDUCED + l, st, &one);
      }
    }
    S *t = cur;
    cur = next;
    next = t;
  }
  for (size_t k = 0; k < nsys && status == TL_OK; k++) {
    mine[k] = 0;
    if (!r->bad[s0 + k] && FN(tl_tridsolver_pcr_unknown)(cur + 4 * k, &mine[k]) < 0) {
      tl_info one;
      tl_info_clear(&one);
      int st = tl_tridsolver_pcr_breakdown(&one, (size_t)p, 0);
      FN(ts_note_reduced)(r, s0 + k, PH_REDUCED + l, st, &one);
    }
  }
  if (status == TL_OK)
    status = tl_mpi_shift(r->ex, "next-first", r->round0, r->dt, mine, nsys, p > 0 ? p - 1 : -1,
                          from_next, nsys, p + 1 < P ? p + 1 : -1);
  for (size_t k = 0; k < nsys; k++) {
    r->F[2 * (s0 + k)] = mine[k];
    r->F[2 * (s0 + k) + 1] = p + 1 < P ? from_next[k] : 0;
  }
  free(buf);
  return status;
}

/* Jacobi across ranks (Algorithm 5), for the whole batch at once. A
 * round exchanges F with both neighbours ("jacobi", 1 scalar each way per
 * system) and tests it (one allreduce "jacobi-test" of 6 numbers per
 * system: residual and |F| maxima, two "did anything change" flags, the
 * first rank with a non-finite F, and once the margin and norm of the
 * reduced matrix). Every decision reads the reduced numbers only, so
 * every rank takes it alike; a system that has stopped keeps its F and
 * rides along until the last one stops. The decisions are the
 * reference's (tl_tridsolver_jacobi_d): the same sweeps, the same F. */
typedef struct FN(ts_jstate) {
  S F, old, older, left, right, old_left, old_right;
  double test[TL_TRIDSOLVER_TEST_WORDS], prev[TL_TRIDSOLVER_TEST_WORDS];
  double margin, rnorm, dropped, best;
  long it, since_best;
  int active, failed;
} FN(ts_jstate);

/* This rank's numbers of a test; flags are 1 when true somewhere. */
static void FN(ts_jacobi_test)(FN(ts_run) * r, const S *row, FN(ts_jstate) * j, int first)
{
  int p = r->ex->rank, P = r->ex->size;
  double *t = j->test, rmax = 0.0, fmax = 0.0;
  double res = FN(tl_tridsolver_jacobi_residual)(row, j->left, j->F, j->right, p > 0, p + 1 < P);
  tl_tridsolver_jacobi_max(&rmax, &fmax, res, ABS(j->F));
  t[0] = rmax;
  t[1] = fmax;
  t[4] = ISFINITE(j->F) ? 0.0 : (double)(P - p); /* the largest: the first rank */
  if (first) { /* a zero diagonal (on the first such rank), -margin, norm */
    double margin, norm;
    FN(tl_tridsolver_jacobi_row)(row, p > 0, p + 1 < P, &margin, &norm);
    t[2] = (row[1] == 0 || !ISFINITE(row[1])) ? (double)(P - p) : 0.0;
    t[3] = -margin;
    t[5] = norm;
  } else {
    t[2] = memcmp(&j->F, &j->old, sizeof(S)) != 0;   /* F changed          */
    t[3] = memcmp(&j->F, &j->older, sizeof(S)) != 0; /* no 2-cycle here    */
    t[5] = 0.0;
  }
}

/* One round: F to both neighbours, then the test, for every system. */
static int FN(ts_jacobi_round)(FN(ts_run) * r, FN(ts_jstate) * js, S *buf, double *tests, int k)
{
  int p = r->ex->rank, P = r->ex->size;
  size_t nsys = r->sl->nsys, T = TL_TRIDSOLVER_TEST_WORDS;
  S *mine = buf, *from_prev = buf + nsys, *from_next = buf + 2 * nsys;
  for (size_t s = 0; s < nsys; s++)
    mine[s] = js[s].F;
  TL_CALL(tl_mpi_neighbours(r->ex, "jacobi", k, r->dt, p > 0 ? p - 1 : -1, p + 1 < P ? p + 1 : -1,
                            mine, nsys, mine, nsys, from_prev, nsys, from_next, nsys));
  for (size_t s = 0; s < nsys; s++) {
    js[s].left = p > 0 ? from_prev[s] : 0;
    js[s].right = p + 1 < P ? from_next[s] : 0;
    FN(ts_jacobi_test)(r, r->rows + 4 * s, &js[s], k == 0);
    memcpy(tests + T * s, js[s].test, T * sizeof(double));
  }
  TL_CALL(tl_mpi_allreduce_max(r->ex, "jacobi-test", k, tests, T * nsys));
  for (size_t s = 0; s < nsys; s++)
    memcpy(js[s].test, tests + T * s, T * sizeof(double));
  return TL_OK;
}

/* After round k >= 1: does system j go on? The reference's loop. */
static void FN(ts_jacobi_decide)(FN(ts_jstate) * j, long iters, double tol, long maxit)
{
  long limit = iters > 0 ? iters : maxit;
  double *t = j->test;
  if (iters > 0 && j->it < limit) {
    int cycle = j->it > 1 && t[3] == 0.0;
    if (t[2] != 0.0 && !cycle && t[4] == 0.0) {
      memcpy(j->prev, t, sizeof j->prev);
      return; /* F changed, no cycle, finite: the next sweep */
    }
    if (cycle && (limit - j->it) % 2) { /* end on the F the sweeps would */
      j->F = j->old;
      j->left = j->old_left;
      j->right = j->old_right;
      memcpy(t, j->prev, sizeof j->prev);
    }
  }
  j->dropped = tl_tridsolver_jacobi_dropped(t[0], t[1], j->rnorm);
  memcpy(j->prev, t, sizeof j->prev);
  if (iters > 0 || !isfinite(j->dropped)) {
    j->active = 0;
    return;
  }
  if (j->dropped < j->best) {
    j->best = j->dropped;
    j->since_best = 0;
  } else if (++j->since_best >= TL_TRIDSOLVER_STALL) {
    j->active = 0;
    return;
  }
  j->active = j->it < limit && j->dropped > tol;
}

static int FN(ts_jacobi)(FN(ts_run) * r, long iters, double tol, long maxit, tl_info *fields)
{
  int p = r->ex->rank, P = r->ex->size;
  size_t nsys = r->sl->nsys;
  FN(ts_jstate) *js = tl_alloc(nsys, sizeof *js);
  S *buf = tl_alloc(3 * nsys, sizeof(S));
  double *tests = tl_alloc(TL_TRIDSOLVER_TEST_WORDS * nsys, sizeof(double));
  int status = TL_ERR_NOMEM, any = 0;
  if (!js || !buf || !tests)
    goto cleanup;
  for (size_t s = 0; s < nsys; s++) { /* F = D / B (0 where B is unusable) */
    const S *row = r->rows + 4 * s;
    js[s].F = (row[1] == 0 || !ISFINITE(row[1])) ? 0 : row[3] / row[1];
  }
  TL_CHECK(FN(ts_jacobi_round)(r, js, buf, tests, 0));
  for (size_t s = 0; s < nsys; s++) {
    FN(ts_jstate) *j = &js[s];
    if (j->test[2] > 0) { /* a zero diagonal on the first such rank */
      tl_info one;
      tl_info_clear(&one);
      int st = tl_tridsolver_jacobi_breakdown(&one, (size_t)(P - (long)j->test[2]));
      if (p == P - (long)j->test[2])
        FN(ts_note_reduced)(r, s, PH_REDUCED, st, &one);
      j->failed = 1;
      continue;
    }
    j->margin = -j->test[3];
    j->rnorm = j->test[5];
    j->dropped = j->best = tl_tridsolver_jacobi_dropped(j->test[0], j->test[1], j->rnorm);
    memcpy(j->prev, j->test, sizeof j->prev);
    j->active = iters > 0 || j->dropped > tol;
    any |= j->active;
  }
  for (int k = 1; any; k++) {
    for (size_t s = 0; s < nsys; s++) { /* a sweep of the systems still going */
      FN(ts_jstate) *j = &js[s];
      if (!j->active)
        continue;
      if (iters > 0 && j->it > 0)
        j->older = j->old;
      j->old = j->F;
      j->old_left = j->left;
      j->old_right = j->right;
      j->F = FN(tl_tridsolver_jacobi_update)(r->rows + 4 * s, j->left, j->right);
      j->it++;
    }
    TL_CHECK(FN(ts_jacobi_round)(r, js, buf, tests, k));
    any = 0;
    for (size_t s = 0; s < nsys; s++)
      if (js[s].active) {
        FN(ts_jacobi_decide)(&js[s], iters, tol, maxit);
        any |= js[s].active;
      }
  }
  for (size_t s = 0; s < nsys; s++) { /* the reference's status, per system */
    FN(ts_jstate) *j = &js[s];
    r->F[2 * s] = j->F;
    r->F[2 * s + 1] = j->right;
    if (j->failed)
      continue;
    long bad = j->prev[4] > 0 ? (long)(P - (long)j->prev[4]) : -1;
    tl_info *one = &fields[s];
    tl_info_clear(one);
    int st = tl_tridsolver_jacobi_status(j->it, iters, maxit, j->dropped, tol, j->margin, j->rnorm,
                                         bad, one);
    if (st < 0 && (bad < 0 || bad == p)) /* one report: the rank it names */
      FN(ts_note_reduced)(r, s, PH_REDUCED, st, one);
    else if (st != TL_OK && p == 0)
      FN(ts_note)(r, s, PH_REDUCED, st, one);
  }
  status = TL_OK;
cleanup:
  free(js);
  free(buf);
  free(tests);
  return status;
}

/* Where system s's a*, c*, d* lie: complex, its rows of r->as; double,
 * the reference's scratch (kept no longer than the phase). */
static S *FN(ts_arrays)(FN(ts_run) * r, size_t s)
{
  return TS_BATCHED ? r->tmp : r->as + s * r->sl->m;
}

/* Phase 1 for system s by the reference: its ends, its status (one: its
 * report). */
static int FN(ts_forward_one)(FN(ts_run) * r, size_t s, tl_info *one)
{
  const tl_mpi_batch *sl = r->sl;
  int p = r->ex->rank, P = r->ex->size;
  size_t m = sl->m, o = s * m, cnt = TS_BATCHED ? m : m * sl->nsys;
  const S *a = sl->a, *b = sl->b, *c = sl->c, *d = sl->d;
  S *as = FN(ts_arrays)(r, s), *cs = as + cnt, *ds = cs + cnt, *e = r->ends + 6 * s;
  tl_info_clear(one);
  int st = FN(tl_tridsolver_forward)(sl->begin, m, p > 0, p + 1 < P, a + o, b + o, c + o, d + o, as,
                                     cs, ds, one);
  e[0] = as[0], e[1] = as[m - 1], e[2] = cs[0], e[3] = cs[m - 1], e[4] = ds[0], e[5] = ds[m - 1];
  return st;
}

/* Phase 1 and the message of phase 2 for the mini-batch [s0, s0 + ns):
 * the forward sweeps, then their last rows start towards rank p+1. In
 * double, the sweeps run eight systems at once and keep only each
 * system's rows 0 and m-1 (tl_cpu_tridsolver_ends_d: one reciprocal per
 * row where the reference divides three times, so within a few roundings
 * of the reference's a', c', d'); a system they flag, and the few past
 * the last group of eight, run in the reference (flag[s]), for its
 * report. */
static int FN(ts_forward)(FN(ts_run) * r, size_t s0, size_t ns, int round, tl_mpi_pending *pend)
{
  const tl_mpi_batch *sl = r->sl;
  int p = r->ex->rank, P = r->ex->size;
  size_t done = 0;
#if TS_BATCHED
  const S *a = sl->a, *b = sl->b, *c = sl->c, *d = sl->d;
  size_t o0 = s0 * sl->m;
  done = tl_cpu_tridsolver_ends_d(sl->m, ns, p > 0, p + 1 < P, a + o0, b + o0, c + o0, d + o0,
                                  r->ends + 6 * s0, r->flag + s0);
#endif
  /* The entries (own_entry_check): the batched sweep checked the values
   * of the systems it did not flag as it read them; the corners of all,
   * and the others whole, here. */
  if (r->own_check && done > 0)
    r->suspect |= !tl_mpi_corners_fine(sl, s0, ns);
  for (size_t s = s0; s < s0 + ns; s++) {
    if (s - s0 >= done || r->flag[s]) {
      r->flag[s] = 1;
      if (r->own_check)
        r->suspect |= !tl_mpi_entries_scan(sl, s, 1);
      tl_info one;
      int st = FN(ts_forward_one)(r, s, &one);
      FN(ts_note)(r, s, PH_FORWARD, st, &one);
    }
    const S *e = r->ends + 6 * s; /* rows 0 and m-1 as arrays of two */
    if (!r->bad[s])
      FN(tl_tridsolver_last_row)(2, e, e + 2, e + 4, r->last + 3 * s);
  }
  return tl_mpi_shift_start(r->ex, "last-row", round, r->dt, r->last + 3 * s0, 3 * ns,
                            p + 1 < P ? p + 1 : -1, r->prev + 3 * s0, 3 * ns, p > 0 ? p - 1 : -1,
                            pend);
}

/* Phases 3 and 4 for the mini-batch whose last rows have arrived. */
static int FN(ts_reduced)(FN(ts_run) * r, const ts_params *par, tl_info *fields)
{
  int p = r->ex->rank;
  for (size_t s = r->s0; s < r->s0 + r->ns; s++) {
    const S *e = r->ends + 6 * s; /* rows 0 and m-1 as arrays of two */
    if (!r->bad[s])
      FN(tl_tridsolver_reduced_row)
    (2, e, e + 2, e + 4, p > 0 ? r->prev + 3 * s : NULL, r->rows + 4 * s);
  }
  if (par->strategy == TL_TRIDSOLVER_ALLGATHER)
    return FN(ts_allgather)(r);
  if (par->strategy == TL_TRIDSOLVER_GATHER_SCATTER)
    return FN(ts_gather_scatter)(r);
  if (par->strategy == TL_TRIDSOLVER_PCR)
    return FN(ts_pcr)(r);
  return FN(ts_jacobi)(r, par->iters, par->tol, par->maxit, fields);
}

/* Phases 1-4 in mini-batches of mb systems (latency hiding, paper 002's
 * batches): the last rows of mini-batch i travel while rank p finishes
 * the reduced solve of mini-batch i-1, and the sweeps of i+1 run before
 * i's message is waited for:
 *
 *   forward(0) start(0) | forward(1) start(1) wait(0) reduced(0) |
 *   forward(2) start(2) wait(1) reduced(1) | ... | wait(B-1) reduced(B-1)
 *
 * Mini-batch i's messages are its own, round TL_TRIDSOLVER_ROUNDS i + r. */
static int FN(ts_pipeline)(FN(ts_run) * r, const ts_params *par, size_t mb, tl_info *fields)
{
  size_t nsys = r->sl->nsys, B = (nsys + mb - 1) / mb;
  tl_mpi_pending pend[2];
  for (size_t i = 0; i <= B; i++) {
    if (i < B) {
      size_t s0 = i * mb, ns = s0 + mb <= nsys ? mb : nsys - s0;
      TL_CALL(FN(ts_forward)(r, s0, ns, (int)i * TL_TRIDSOLVER_ROUNDS, &pend[i % 2]));
    }
    if (i > 0) {
      r->s0 = (i - 1) * mb;
      r->ns = r->s0 + mb <= nsys ? mb : nsys - r->s0;
      r->round0 = (int)(i - 1) * TL_TRIDSOLVER_ROUNDS;
      TL_CALL(tl_mpi_wait(r->ex, &pend[(i - 1) % 2]));
      TL_CALL(FN(ts_reduced)(r, par, fields));
    }
  }
  return TL_OK;
}

/* Phase 5 for system s by the reference, from its a*, c*, d* at as, as +
 * cnt, as + 2 cnt. */
static void FN(ts_backward_one)(FN(ts_run) * r, size_t s, const S *as, size_t cnt, S *x)
{
  const tl_mpi_batch *sl = r->sl;
  size_t m = sl->m;
  tl_info one;
  tl_info_clear(&one);
  int st = FN(tl_tridsolver_backward)(sl->begin, m, as, as + cnt, as + 2 * cnt, r->F[2 * s],
                                      r->F[2 * s + 1], x + s * m, &one);
  FN(ts_note)(r, s, PH_BACKWARD, st, &one);
}

#if TS_BATCHED
/* x_0 = F[p] and x_{m-1} of every system, from its ends and F by the
 * backward sweep's operations for row m-1 (so the bits it writes there),
 * and the verdict's halo from them: the halo crosses before x is made,
 * so that the verdict's pass can be made as x is. */
static int FN(ts_halo)(FN(ts_run) * r, S *xends, S *halo)
{
  for (size_t s = 0; s < r->sl->nsys; s++) {
    const S *e = r->ends + 6 * s;
    S first = r->F[2 * s], next = r->F[2 * s + 1];
    xends[2 * s] = first;
    xends[2 * s + 1] = e[5] - e[1] * first - e[3] * next;
  }
  return tl_mpi_residual_halo_ends(r->ex, r->sl, xends, halo);
}

/* Phase 5 with the verdict's pass. The whole groups of eight systems
 * that phase 1 swept in lanes run the forward sweep again, into L2, then
 * the backward sweep, then the pass over their rows while these are in
 * cache (tl_cpu_tridsolver_finish_d): a', c', d' never go to memory. The
 * others, each on its own: a system phase 1 ran in the reference, by the
 * reference again; one of a group left aside, from its group's batched
 * forward sweep (tl_cpu_tridsolver_forward_d, the bits of its ends); both
 * by the reference's backward sweep, for its report. */
static void FN(ts_finish)(FN(ts_run) * r, S *x, const S *halo, tl_residual_pass *passes)
{
  const tl_mpi_batch *sl = r->sl;
  int p = r->ex->rank, P = r->ex->size;
  const S *a = sl->a, *b = sl->b, *c = sl->c, *d = sl->d;
  size_t m = sl->m, nsys = sl->nsys, group = (size_t)-1; /* the group r->tmp holds */
  unsigned char *skip = r->bad + 2 * nsys, *redo = skip + nsys, fl[8];
  for (size_t s = 0; s < nsys; s++)
    skip[s] = r->bad[s] | r->flag[s];
  size_t done = tl_cpu_tridsolver_finish_d(sl->n, sl->begin, m, nsys, p > 0, p + 1 < P, a, b, c, d,
                                           r->F, skip, x, redo, halo, passes);
  for (size_t s = 0; s < nsys; s++) {
    if (r->bad[s] || (s < done && !skip[s] && !redo[s]))
      continue;
    if (r->flag[s]) {
      tl_info one; /* its status was noted in phase 1 */
      FN(ts_forward_one)(r, s, &one);
      FN(ts_backward_one)(r, s, r->tmp, m, x);
      group = (size_t)-1;
    } else { /* eight systems around s, inside the batch: mini-batches cut
              * their own groups, so s may lie past the last whole one */
      size_t g0 = s / 8 * 8 + 8 <= nsys ? s / 8 * 8 : nsys - 8, o = g0 * m;
      if (g0 != group)
        tl_cpu_tridsolver_forward_d(sl->begin, m, 8, p > 0, p + 1 < P, a + o, b + o, c + o, d + o,
                                    r->tmp, r->tmp + 8 * m, r->tmp + 16 * m, fl);
      group = g0;
      FN(ts_backward_one)(r, s, r->tmp + (s - g0) * m, 8 * m, x);
    }
    size_t o = s * m;
    tl_cpu_residual_slice_pass_d(sl->n, sl->periodic, sl->begin, m, a + o, b + o, c + o, d + o,
                                 x + o, halo + 4 * s, passes + s);
  }
}
#endif

static void FN(ts_free)(FN(ts_run) * r)
{
  free(r->bad); /* with r->flag; r->ends is the rank's scratch, kept for the next solve */
  tl_mpi_status_free(&r->st);
}

static int FN(ts_rank)(tl_mpi_exchange *ex, const tl_mpi_batch *sl, const size_t *slices, S *x,
                       const ts_params *par, tl_info *info)
{
  size_t nsys = sl->nsys, m = sl->m;
  FN(ts_run)
  run = {.ex = ex, .sl = sl, .slices = slices, .dt = sl->dtype, .own_check = par->own_check},
  *r = &run;
  TL_CALL(tl_mpi_status_init(&r->st, ex, nsys, info));
  /* Per system: the ends (6), my last row and rank p-1's (3 + 3), my
   * reduced row (4), F (2); in double x's ends (2) and the halo (4), and
   * one scratch of 3 8 m; in complex a', c', d' of every row. The sweeps
   * write everything they are read at (a system that failed is read no
   * more), so only what is sent is zeroed (a failed system sends zeros):
   * zeroing the arrays too cost 3 % of the solve. */
  size_t arrays = TS_BATCHED ? 24 * m : 3 * m * nsys;
  r->ends = tl_mpi_scratch_dirty(24 * nsys + arrays, sizeof(S));
  r->bad = tl_alloc(4 * nsys, 1);
  tl_info *fields = par->strategy == TL_TRIDSOLVER_JACOBI ? tl_alloc(nsys, sizeof *fields) : NULL;
#if TS_BATCHED
  tl_residual_pass *passes = tl_alloc(nsys, sizeof *passes);
#else
  void *passes = NULL;
#endif
  int status = TL_OK;
  if (r->ends && r->bad && (passes || !TS_BATCHED) &&
      (fields || par->strategy != TL_TRIDSOLVER_JACOBI)) { /* a failed system sends zeros */
    r->flag = r->bad + nsys;
  } else {
    status = TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "tridsolver: no memory for %zu systems", nsys);
    goto cleanup;
  }
  r->last = r->ends + 6 * nsys, r->prev = r->last + 3 * nsys, r->rows = r->prev + 3 * nsys;
  r->F = r->rows + 4 * nsys;
  S *xends = r->F + 2 * nsys, *halo = xends + 2 * nsys;
  r->tmp = r->as = halo + 4 * nsys;
  r->cs = r->as + m * nsys, r->ds = r->cs + m * nsys; /* complex */
  memset(r->last, 0, 18 * nsys * sizeof(S)); /* last .. halo: a failed system sends zeros */
  /* Jacobi's sweeps take the whole batch together (one test a sweep). */
  size_t mb = par->minibatch > 0 && par->strategy != TL_TRIDSOLVER_JACOBI ? par->minibatch : nsys;
  status = FN(ts_pipeline)(r, par, mb < nsys ? mb : nsys, fields);
  if (status < 0) {
    status = TL_FAIL(info, status, -1, -1, "", "tridsolver: the reduced exchange failed");
    goto cleanup;
  }
  /* the entries' own check first: a batch it rejects sends no halo */
  status = r->own_check ? tl_mpi_entries_agree(ex, sl, r->suspect, info) : TL_OK;
  if (status != TL_OK)
    goto cleanup;
#if TS_BATCHED /* phase 5 and the verdict's pass, the halo first */
  status = FN(ts_halo)(r, xends, halo);
  if (status < 0) {
    status = TL_FAIL(info, status, -1, -1, "", "tridsolver: the halo exchange failed");
    goto cleanup;
  }
  FN(ts_finish)(r, x, halo, passes);
#else
  (void)xends;
  for (size_t s = 0; s < nsys; s++) /* phase 5 */
    if (!r->bad[s])
      FN(ts_backward_one)(r, s, r->as + s * m, m * nsys, x);
#endif
  if (TS_BATCHED)
    status = tl_mpi_residual_verdict_of(&r->st, sl, x, halo, passes, "tridsolver", DD_WHY,
                                        RESIDUAL_WHY, fields, info);
  else
    status =
        tl_mpi_residual_verdict(&r->st, sl, x, "tridsolver", DD_WHY, RESIDUAL_WHY, fields, info);
cleanup:
  free(fields);
  free(passes);
  FN(ts_free)(r);
  return status;
}

#endif
