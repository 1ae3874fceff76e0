/* optimized/mpi/pddtsv_mpi.c -- ScaLAPACK's PDDTSV, the distributed
 * LAPACK baseline, as an MPI algorithm ("pddtsv").
 *
 * PDDTSV (ScaLAPACK 2.x, SRC/pddtsv.f: PDDTTRF + PDDTTRS) solves a
 * tridiagonal "diagonally dominant-like" system by a divide-and-conquer
 * factorisation without pivoting, the matrix distributed in ScaLAPACK's
 * 1-D block layout: NB = ceil(n / P) rows per process, the last one fewer
 * (tl_mpi_pddtsv_slices). Our a, b, c are its DL, D, DU (DL(1) and DU(N)
 * unused). A batch is a loop of one-right-hand-side solves, one per
 * system (each system has its own matrix); the factorisation overwrites
 * its inputs, so each rank copies its slice first.
 *
 * Facts the interface needs (ScaLAPACK does not ship a C header, so the
 * Fortran symbols are declared here):
 *  - DESCA is the 1-D descriptor type 501: {501, ctxt, N, NB, 0, NB, 0};
 *    DESCB type 502: {502, ctxt, N, NB, 0, LLD_B, 0} with LLD_B >= NB on
 *    every rank (a short last rank with LLD_B = its rows gives INFO =
 *    -1106 everywhere), so B is an NB-row buffer on every rank;
 *  - NB * P >= N, and NB >= 2 when P > 1;
 *  - LWORK >= (12 P + 3 NB) + max(10 P + 4 NRHS, 8 P) (the comment in
 *    pddttrf.f understates it; a workspace query, LWORK = -1, is refused);
 *  - INFO < 0 does not abort and INFO > 0 is local: both are reduced over
 *    the ranks (the verdict below);
 *  - a zero first pivot returns NaN everywhere with INFO = 0: the answer
 *    is checked for finite entries and reported as a breakdown, never
 *    passed on.
 * ScaLAPACK's own messages (BLACS) are not seen by the exchange layer, so
 * this algorithm has no ledger model; only its verdict is recorded.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"

void tl_mpi_pddtsv_slices(size_t n, int P, size_t *sizes)
{
  size_t nb = (n + (size_t)P - 1) / (size_t)P;
  for (int r = 0; r < P; r++) {
    size_t begin = (size_t)r * nb;
    sizes[r] = begin >= n ? 0 : (n - begin < nb ? n - begin : nb);
  }
}

#ifdef TL_HAVE_SCALAPACK

void pddtsv_(const int *n, const int *nrhs, double *dl, double *d, double *du, const int *ja,
             const int *desca, double *b, const int *ib, const int *descb, double *work,
             const int *lwork, int *info);
int Csys2blacs_handle(MPI_Comm comm);
void Cblacs_gridinit(int *ctxt, const char *order, int nprow, int npcol);
void Cblacs_gridexit(int ctxt);

enum { PH_DOMAIN = 0, PH_SOLVE = 1, PH_CHECK = 2 };

/* One BLACS grid (1 x P) per communicator, made once: making it is a
 * collective that a benchmark should not time. The grid is cached ON the
 * communicator (an MPI attribute), so it goes away with it: a caller that
 * frees its communicator (the grid lines of tridlab/mpi_grid.h) leaves no
 * stale entry behind, and a new communicator never meets an old grid.
 * After a failed solve the grid is dropped (forget_grid): PDDTTRF leaves
 * messages in flight when one process stops on a block it cannot factor,
 * and the next solve on the same grid would receive them. */
static int grid_keyval = MPI_KEYVAL_INVALID;

static int grid_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
  (void)comm;
  (void)keyval;
  (void)extra;
  Cblacs_gridexit(*(int *)value);
  free(value);
  return MPI_SUCCESS;
}

static int grid_for(MPI_Comm comm)
{
  if (grid_keyval == MPI_KEYVAL_INVALID)
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, grid_delete, &grid_keyval, NULL);
  int *cached, found;
  MPI_Comm_get_attr(comm, grid_keyval, &cached, &found);
  if (found)
    return *cached;
  int P, c = Csys2blacs_handle(comm);
  MPI_Comm_size(comm, &P);
  Cblacs_gridinit(&c, "Row-major", 1, P);
  int *keep = malloc(sizeof *keep);
  if (keep) {
    *keep = c;
    MPI_Comm_set_attr(comm, grid_keyval, keep);
  }
  return c;
}

static void forget_grid(MPI_Comm comm, int ctxt)
{
  int *cached, found;
  MPI_Comm_get_attr(comm, grid_keyval, &cached, &found);
  if (found)
    MPI_Comm_delete_attr(comm, grid_keyval); /* grid_delete exits the grid */
  else
    Cblacs_gridexit(ctxt);
}

/* PDDTSV factors without pivoting: it promises an answer only for a
 * strictly diagonally dominant matrix. Each rank checks its own rows (a
 * row's dominance needs nothing else) and notes the first one that is not,
 * as a warning. */
static void note_domain(tl_mpi_status *st, const tl_mpi_batch *sl, size_t s)
{
  const double *a = (const double *)sl->a + s * sl->m, *b = (const double *)sl->b + s * sl->m,
               *c = (const double *)sl->c + s * sl->m;
  for (size_t i = 0; i < sl->m; i++) {
    size_t row = sl->begin + i;
    double off = (row > 0 ? fabs(a[i]) : 0.0) + (row + 1 < sl->n ? fabs(c[i]) : 0.0);
    if (!(fabs(b[i]) > off)) {
      tl_info one;
      tl_info_clear(&one);
      tl_info_set(&one, __FILE__, __LINE__, TL_OUTSIDE_DOMAIN, -1, (long)row, "",
                  "pddtsv: row %zu is not strictly diagonally dominant; ScaLAPACK factors "
                  "without pivoting and promises nothing there",
                  row);
      tl_mpi_status_note(st, s, PH_DOMAIN, TL_OUTSIDE_DOMAIN, &one);
      return;
    }
  }
}

/* The slices must be ScaLAPACK's block layout (every rank sees the same
 * table, so all agree without a message). */
static int check_layout(const tl_mpi_batch *sl, const size_t *slices, int P, tl_info *info)
{
  size_t *want = malloc((size_t)P * sizeof *want);
  if (!want)
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "pddtsv: no memory");
  tl_mpi_pddtsv_slices(sl->n, P, want);
  int ok = 1;
  for (int r = 0; r < P; r++)
    ok &= want[r] == slices[r] && want[r] > 0;
  size_t nb = want[0];
  free(want);
  if (P > 1 && nb < 2)
    return TL_FAIL(info, TL_ERR_UNSUPPORTED, -1, -1, "parts",
                   "pddtsv: n = %zu on %d ranks gives blocks of %zu rows; ScaLAPACK needs at "
                   "least 2",
                   sl->n, P, nb);
  if (!ok)
    return TL_FAIL(info, TL_ERR_UNSUPPORTED, -1, -1, "parts",
                   "pddtsv: ScaLAPACK needs its block layout: %zu rows per rank, the last rank "
                   "the rest (tridlab-mpi uses it unless --slices says otherwise)",
                   nb);
  return TL_OK;
}

static int pddtsv_mpi_solve(const tl_algorithm *self, tl_mpi_exchange *ex,
                            const tl_mpi_batch *sl, const size_t *slices, void *xv,
                            const tl_options *opt, tl_info *info)
{
  (void)self;
  (void)opt;
  int P = ex->size;
  TL_CALL(check_layout(sl, slices, P, info));
  int n = (int)sl->n, nb = (int)slices[0], m = (int)sl->m, nrhs = 1, one = 1;
  int lwork = (12 * P + 3 * nb) + (10 * P + 4 > 8 * P ? 10 * P + 4 : 8 * P);
  int ctxt = grid_for(ex->comm);
  int desca[7] = {501, ctxt, n, nb, 0, nb, 0};
  int descb[7] = {502, ctxt, n, nb, 0, nb, 0};
  /* ScaLAPACK wants NB entries of each local array, even on a short rank. */
  double *mem = tl_alloc(4 * (size_t)nb + (size_t)lwork, sizeof(double));
  tl_mpi_status st;
  int status = tl_mpi_status_init(&st, ex, sl->nsys, info);
  if (status < 0 || !mem) {
    free(mem);
    tl_mpi_status_free(&st);
    return status < 0 ? status : TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "pddtsv: no memory");
  }
  double *dl = mem, *d = dl + nb, *du = d + nb, *rhs = du + nb, *work = rhs + nb, *x = xv;
  for (size_t s = 0; s < sl->nsys; s++) {
    size_t o = s * (size_t)m;
    note_domain(&st, sl, s);
    memcpy(dl, (const double *)sl->a + o, (size_t)m * sizeof(double));
    memcpy(d, (const double *)sl->b + o, (size_t)m * sizeof(double));
    memcpy(du, (const double *)sl->c + o, (size_t)m * sizeof(double));
    memcpy(rhs, (const double *)sl->d + o, (size_t)m * sizeof(double));
    int linfo = 0;
    double t0 = tl_mpi_now();
    pddtsv_(&n, &nrhs, dl, d, du, &one, desca, rhs, &one, descb, work, &lwork, &linfo);
    ex->seconds += tl_mpi_now() - t0; /* its messages are inside: count it all */
    memcpy(x + o, rhs, (size_t)m * sizeof(double));
    tl_info one_info;
    tl_info_clear(&one_info);
    if (linfo != 0) {
      int bad = linfo < 0 ? TL_ERR_ARG : TL_ERR_BREAKDOWN;
      tl_info_set(&one_info, __FILE__, __LINE__, bad, -1, -1, "",
                  "pddtsv: ScaLAPACK returned INFO = %d on rank %d (%s)", linfo, ex->rank,
                  linfo < 0 ? "an argument it refused"
                            : "a block it could not factor without "
                              "pivoting");
      tl_mpi_status_note(&st, s, PH_SOLVE, bad, &one_info);
      continue;
    }
    for (int i = 0; i < m; i++)
      if (!isfinite(x[o + (size_t)i])) {
        long row = (long)sl->begin + i;
        tl_info_set(&one_info, __FILE__, __LINE__, TL_ERR_BREAKDOWN, -1, row, "",
                    "pddtsv: ScaLAPACK returned a non-finite x at row %ld with INFO = 0 (a "
                    "zero pivot it does not report)",
                    row);
        tl_mpi_status_note(&st, s, PH_CHECK, TL_ERR_BREAKDOWN, &one_info);
        break;
      }
  }
  /* The verdict: the status of every system from every rank. */
  double *pairs = tl_alloc(sl->nsys, 2 * sizeof(double));
  if (!pairs) {
    status = TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "pddtsv: no memory");
  } else {
    tl_mpi_status_pairs(&st, pairs, 1);
    status = tl_mpi_allreduce_pairs(ex, "verdict", 0, pairs, sl->nsys);
    if (status == TL_OK)
      status = tl_mpi_status_outcome(&st, pairs, 1, info);
    for (size_t s = 0; s < sl->nsys; s++)
      if (tl_mpi_status_failed(pairs, 1, s) || tl_mpi_status_warned(pairs, 1, s)) {
        forget_grid(ex->comm, ctxt); /* every rank knows: the verdict is global */
        break;
      }
  }
  free(pairs);
  free(mem);
  tl_mpi_status_free(&st);
  return status;
}

static const tl_mpi_program pddtsv_program = {
    .crosses = "ScaLAPACK's own messages (not in the ledger), then the verdict",
    .solve = pddtsv_mpi_solve,
    .baseline = 1,
    .slices = tl_mpi_pddtsv_slices,
};

/* A baseline with no simulated twin: what PDDTSV promises is stated here,
 * for the verdicts of the verification runner. */
const tl_algorithm tl_mpi_algo_pddtsv = {
    .name = "pddtsv",
    .family = "partition",
    .backend = "mpi",
    .exact = 1,
    .classes = TL_CLASS_STRICT_DD,
    .dtypes = TL_DTYPE_BIT(TL_F64),
    .layouts = TL_NONPERIODIC,
    .partitioned = 1,
    .min_rows_per_part = 1,
    .summary = "ScaLAPACK PDDTSV: divide and conquer without pivoting, 1-D block layout",
    .source = "ScaLAPACK 2.x SRC/pddtsv.f (PDDTTRF, PDDTTRS)",
    .solve = tl_mpi_solve_batch,
    .checks_entries = 1, /* tl_mpi_solve checks each rank's rows */
    .mpi = &pddtsv_program,
};

#endif
