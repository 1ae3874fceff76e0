/* tests/mpi/test_mpi_partition.c -- every MPI algorithm against its
 * simulated reference with the same slices: the same status and report
 * on every rank, LAPACK's residual ratio < 30 when ok, the same answer (to
 * a few eps of its size), and on a solved batch the same ledger, equal to the algorithm's
 * ledger model. Cases: even and uneven slices, batches of 1 and 5
 * systems, one or two rows per rank, P > n, a breakdown in the last
 * rank's rows, a non-finite entry, complex and periodic systems where the
 * algorithm takes them; then every other choice of the algorithms with a
 * choice (Tridsolver's strategies, Jacobi in both modes, mini-batches)
 * on fewer cases. Run under mpirun with 1..7 ranks. */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_check.h"
#include "tridlab/backend.h"
#include "tridlab/mpi.h"
#include "tridlab/tridlab.h"

typedef struct problem {
  tl_batch sys; /* on rank 0 only */
  void *mem;
} problem;

/* A strictly dominant batch (|b| >= 8 (|a| + |c|)): in every partition
 * algorithm's domain when partitions have a few dozen rows. */
static void make_problem(problem *pr, tl_dtype dt, size_t n, size_t nsys, int periodic,
                         uint64_t seed)
{
  size_t es = tl_dtype_size(dt), cnt = n * nsys;
  pr->mem = calloc(4 * cnt, es);
  char *m = pr->mem;
  pr->sys = (tl_batch){.dtype = dt,
                       .n = n,
                       .nsys = nsys,
                       .periodic = periodic,
                       .a = m,
                       .b = m + cnt * es,
                       .c = m + 2 * cnt * es,
                       .d = m + 3 * cnt * es};
  tl_rng rng;
  tl_rng_seed(&rng, seed);
  for (size_t k = 0; k < cnt; k++) {
    double v[4] = {tl_rng_uniform(&rng, -1, 1), 8 + tl_rng_uniform(&rng, 0, 1),
                   tl_rng_uniform(&rng, -1, 1), tl_rng_uniform(&rng, -1, 1)};
    size_t i = k % n;
    if (!periodic && i == 0)
      v[0] = 0;
    if (!periodic && i == n - 1)
      v[2] = 0;
    for (int j = 0; j < 4; j++) {
      if (dt == TL_F64)
        ((double *)(m + (size_t)j * cnt * es))[k] = v[j];
      else
        ((double complex *)(m + (size_t)j * cnt * es))[k] = v[j] + I * (j == 1 ? 0.5 : 0.3 * v[j]);
    }
  }
}

static void set_entry(problem *pr, int which, size_t s, size_t i, double value)
{
  const void *arr[4] = {pr->sys.a, pr->sys.b, pr->sys.c, pr->sys.d};
  size_t k = s * pr->sys.n + i;
  if (pr->sys.dtype == TL_F64)
    ((double *)arr[which])[k] = value;
  else
    ((double complex *)arr[which])[k] = value;
}

/* The parameters of the cases being run ("key=value,key=value", NULL:
 * defaults), given to the MPI solve and to its simulated reference alike. */
static const char *case_param;
/* 1: the cases being run must give the simulated reference's x bit for
 * bit (a program that does the reference's operations in its order). */
static int case_bits;

static void set_case_param(tl_options *opt, const tl_algorithm *ref)
{
  char kv[64];
  for (const char *at = case_param; at && *at;) {
    size_t len = strcspn(at, ",");
    snprintf(kv, sizeof kv, "%.*s", (int)len, at);
    tl_options_set_param_kv(opt, ref, kv, NULL);
    at += len + (at[len] == ',');
  }
}

/* What a case changes in the batch before it is solved: N-shaped's
 * domain check also gets a row that is not dominant (WEAK: nor its
 * column, outside the domain), rows dominant only by columns (COL_DD:
 * in it, across a rank boundary) and the substitution near underflow
 * that fuzzing found (TINY, n = 3: the residual ratio decides).
 * The local phase of PDD and RPDD runs through a batched kernel and hands
 * the systems it flags to the reference: INNER puts a zero pivot in the
 * middle of the middle rank's rows (Thomas breaks down there), SPIKE a
 * zero diagonal entry in the last row of rank 0, which only the right
 * spike's bottom-up elimination meets (a breakdown when P > 1), WPIVOT a
 * strictly dominant block on rank 0 whose bottom-up pivot overflows (b
 * near the largest double and a c that adds to it): rank 0 runs no
 * bottom-up sweep where its rows are all strictly dominant, and must
 * still meet this breakdown of w.
 * DistD2's decoupling runs through a batched kernel (distd2_mpi) or the
 * GPU kernel (distd2_gpu_mpi) and hands the systems whose d' is not
 * finite to the reference: OVERFLOW makes d' overflow in the middle of
 * the middle rank's rows (finite entries, d near the largest double).
 * MARGIN0 gives the last rank's first row a margin of exactly 0 (a = c
 * = 1, b = 2): dominant, not strictly, the other ranks' rows strictly
 * (P-TDMA's verdict, where only the row's rank reads it again).
 * WEAK_IN and MARGIN0_IN are WEAK's and MARGIN0's rows in the middle of
 * the middle rank's rows: inside N-shaped's block, whose margins its
 * batched RD measures for the verdict (tl_cpu_nshaped_scan). */
typedef enum {
  PLAIN,
  BREAKDOWN,
  NONFINITE,
  WEAK,
  COL_DD,
  TINY,
  INNER,
  SPIKE,
  OVERFLOW,
  MARGIN0,
  WPIVOT,
  WEAK_IN,
  MARGIN0_IN,
  CORRECTION
} twist;

/* Rank 0's message, so every rank can compare its own with it. */
static int same_on_all_ranks(mpi_check *mc, const tl_info *info, int status)
{
  char root_msg[sizeof info->msg];
  int root_status = status;
  memcpy(root_msg, info->msg, sizeof root_msg);
  MPI_Bcast(root_msg, sizeof root_msg, MPI_CHAR, 0, mc->comm);
  MPI_Bcast(&root_status, 1, MPI_INT, 0, mc->comm);
  MC_EXPECT(mc, root_status == status, "status %d here, %d on rank 0", status, root_status);
  MC_EXPECT(mc, strcmp(root_msg, info->msg) == 0, "report '%s' here, '%s' on rank 0", info->msg,
            root_msg);
  return root_status == status;
}

/* Rank 0: the MPI answer, report and ledger against the simulated
 * reference with the same partitions, and the ledger against the model. */
static void compare_with_reference(mpi_check *mc, const tl_algorithm *algo, const problem *pr,
                                   const size_t *slices, int st, const tl_info *info,
                                   const void *x_all, const tl_ledger *all, twist tw)
{
  int P = mc->size;
  size_t n = pr->sys.n, nsys = pr->sys.nsys, es = tl_dtype_size(pr->sys.dtype);
  tl_dtype dt = pr->sys.dtype;
  if (algo->mpi->baseline) { /* a library baseline: LAPACK's ratio only */
    if (st == TL_OK) {
      double ratio = tl_residual_ratio(&pr->sys, x_all);
      MC_EXPECT(mc, ratio < TL_THRESH, "status ok, residual ratio %g", ratio);
    }
    if (tw == BREAKDOWN)
      MC_EXPECT(mc, st < 0, "breakdown case gave %s", tl_status_name(st));
    if (tw == NONFINITE)
      MC_EXPECT(mc, st == TL_ERR_ARG && strcmp(info->arg, "d") == 0, "non-finite case gave %s",
                tl_status_name(st));
    return;
  }
  tl_ledger sim, model;
  tl_ledger_init(&sim);
  tl_ledger_init(&model);
  /* The simulated reference with the same partitions. */
  size_t *sizes = malloc((size_t)P * sizeof *sizes);
  for (int r = 0; r < P; r++) {
    size_t b, e;
    tl_partition_bounds(n, P, slices, r, &b, &e);
    sizes[r] = e - b;
  }
  tl_options ref_opt;
  tl_options_init(&ref_opt);
  ref_opt.parts = P;
  ref_opt.part_sizes = sizes;
  ref_opt.ledger = &sim;
  set_case_param(&ref_opt, algo->reference);
  void *x_sim = calloc(n * nsys, es);
  tl_info sinfo;
  int sst = tl_solve(algo->reference, &pr->sys, x_sim, &ref_opt, &sinfo);
  MC_EXPECT(mc, sst == st, "status %s, simulated %s (%s | %s)", tl_status_name(st),
            tl_status_name(sst), info->msg, sinfo.msg);
  MC_EXPECT(mc, strcmp(sinfo.msg, info->msg) == 0, "report '%s', simulated '%s'", info->msg,
            sinfo.msg);
  MC_EXPECT(mc, sinfo.row == info->row && sinfo.system == info->system,
            "row %ld system %ld, simulated row %ld system %ld", info->row, info->system, sinfo.row,
            sinfo.system);
  if (tl_status_has_solution(st)) {
    double ratio = tl_residual_ratio(&pr->sys, x_all);
    MC_EXPECT(mc, st != TL_OK || ratio < TL_THRESH, "status ok, residual ratio %g", ratio);
    double diff = 0, scale = 0;
    for (size_t k = 0; k < n * nsys; k++) {
      double dk = dt == TL_F64 ? fabs(((double *)x_all)[k] - ((double *)x_sim)[k])
                               : cabs(((double complex *)x_all)[k] - ((double complex *)x_sim)[k]);
      double sk = dt == TL_F64 ? fabs(((double *)x_sim)[k]) : cabs(((double complex *)x_sim)[k]);
      diff = dk > diff ? dk : diff;
      scale = sk > scale ? sk : scale;
    }
    MC_EXPECT(mc, diff <= 30 * TL_EPS * scale, "|x - x_simulated| = %g (|x| %g)", diff, scale);
    MC_EXPECT(mc, !case_bits || memcmp(x_all, x_sim, n * nsys * es) == 0,
              "|x - x_simulated| = %g: not the reference's bits", diff);
  }
  if (st == TL_OK) {
    char why[512];
    MC_EXPECT(mc, tl_ledger_equal(all, &sim, why, sizeof why), "ledger vs simulated: %s", why);
    MC_EXPECT(mc, algo->ledger_model, "no ledger model");
    /* (a substitution near underflow adds the residual ratio's rounds,
     * which the model of the usual solve leaves out) */
    if (algo->ledger_model && tw != TINY) {
      algo->ledger_model(algo, &pr->sys, &ref_opt, info, &model);
      MC_EXPECT(mc, tl_ledger_equal(all, &model, why, sizeof why), "ledger vs model: %s", why);
    }
  }
  if (tw == BREAKDOWN || tw == INNER || ((tw == SPIKE || tw == WPIVOT) && P > 1) ||
      tw == OVERFLOW || tw == CORRECTION)
    MC_EXPECT(mc, st == TL_ERR_BREAKDOWN, "breakdown case gave %s", tl_status_name(st));
  if (tw == NONFINITE)
    MC_EXPECT(mc, st == TL_ERR_ARG && strcmp(info->arg, "d") == 0, "non-finite case gave %s",
              tl_status_name(st));
  if (tw == WEAK || tw == WEAK_IN)
    MC_EXPECT(mc, st == TL_OUTSIDE_DOMAIN, "weak row gave %s", tl_status_name(st));
  if (tw == COL_DD)
    MC_EXPECT(mc, st == TL_OK, "column-dominant matrix gave %s (%s)", tl_status_name(st),
              info->msg);
  free(sizes);
  free(x_sim);
  tl_ledger_free(&sim);
  tl_ledger_free(&model);
}

static void run_case(mpi_check *mc, const tl_algorithm *algo, tl_dtype dt, size_t n,
                     size_t nsys, int periodic, const size_t *slices, twist tw, uint64_t seed)
{
  int rank = mc->rank, P = mc->size;
  mc_case(mc, "%s%s%s P=%d n=%zu nsys=%zu %s%s%s%s", algo->name, case_param ? " " : "",
          case_param ? case_param : "", P, n, nsys, tl_dtype_name(dt), periodic ? " periodic" : "",
          slices ? " uneven" : "",
          tw == BREAKDOWN    ? " breakdown"
          : tw == NONFINITE  ? " non-finite"
          : tw == WEAK       ? " weak-row"
          : tw == COL_DD     ? " column-dominant"
          : tw == TINY       ? " near-underflow"
          : tw == INNER      ? " inner-breakdown"
          : tw == SPIKE      ? " spike-breakdown"
          : tw == OVERFLOW   ? " overflow"
          : tw == MARGIN0    ? " zero-margin"
          : tw == WPIVOT     ? " w-pivot-overflow"
          : tw == WEAK_IN    ? " inner-weak-row"
          : tw == MARGIN0_IN ? " inner-zero-margin"
          : tw == CORRECTION ? " correction-overflow"
                             : "");
  /* An algorithm with its own layout (ScaLAPACK's blocks) takes no other:
   * its "even" cases use its layout, its uneven ones are not run. */
  size_t *own = NULL;
  if (algo->mpi->slices) {
    if (slices)
      return; /* not counted: every rank skips it alike */
    if (n >= (size_t)P) {
      own = malloc((size_t)P * sizeof *own);
      tl_mpi_default_slices(algo, n, P, own);
      slices = own;
    }
  }
  problem pr = {{0}, NULL};
  size_t last_begin = 0, last_end = n;
  if (n >= (size_t)P)
    tl_partition_bounds(n, P, slices, P - 1, &last_begin, &last_end);
  if (rank == 0) {
    make_problem(&pr, dt, n, nsys, periodic, seed);
    size_t s = nsys / 2;
    if (tw == BREAKDOWN) { /* a zero first pivot in the last rank's rows */
      set_entry(&pr, 0, s, last_begin, 0.0);
      set_entry(&pr, 1, s, last_begin, 0.0);
      if (last_begin > 0)
        set_entry(&pr, 2, s, last_begin - 1, 0.0);
      /* and in its second row, the first pivot of Tridsolver's sweep */
      set_entry(&pr, 0, s, last_begin + 1, 0.0);
      set_entry(&pr, 1, s, last_begin + 1, 0.0);
    } else if (tw == INNER) { /* row a = b = 0: a zero pivot, however rounded */
      size_t qb, qe;
      tl_partition_bounds(n, P, slices, P / 2, &qb, &qe);
      set_entry(&pr, 0, s, qb + (qe - qb) / 2, 0.0);
      set_entry(&pr, 1, s, qb + (qe - qb) / 2, 0.0);
    } else if (tw == OVERFLOW) { /* d'(k-1) ~ d/8 > 0, then d(k) + d'(k-1) > DBL_MAX */
      size_t qb, qe;
      tl_partition_bounds(n, P, slices, P / 2, &qb, &qe);
      size_t k = qb + (qe - qb) / 2;
      set_entry(&pr, 0, s, k, -1.0);
      set_entry(&pr, 3, s, k - 1, 1.79e308);
      set_entry(&pr, 3, s, k, 1.79e308);
    } else if (tw == SPIKE) {
      size_t qb, qe;
      tl_partition_bounds(n, P, slices, 0, &qb, &qe);
      set_entry(&pr, 1, s, qe - 1, 0.0);
    } else if (tw == WPIVOT) { /* q = b - c a / q' = 1.7e308 + 1.6e308 * 0.5 */
      size_t qb, qe;
      tl_partition_bounds(n, P, slices, 0, &qb, &qe);
      double row[2][3] = {{0.0, 1.7e308, 1.6e308}, {-0.5, 1.0, 0.25}};
      for (int k = 0; k < 3; k++)
        set_entry(&pr, k, s, qe - 2, row[0][k]), set_entry(&pr, k, s, qe - 1, row[1][k]);
    } else if (tw == NONFINITE) {
      set_entry(&pr, 3, s, last_end - 1, NAN);
    } else if (tw == WEAK || tw == COL_DD) { /* a row on a rank boundary (P > 1) */
      size_t r = last_begin > 0 ? last_begin : n / 2;
      double off = tw == WEAK ? 1.0 : 5.0;
      set_entry(&pr, 0, s, r, off);
      set_entry(&pr, 2, s, r, off);
      if (tw == WEAK) {
        set_entry(&pr, 1, s, r, 0.5);
        set_entry(&pr, 2, s, r - 1, 1.0); /* and its column */
      }
    } else if (tw == WEAK_IN || tw == MARGIN0_IN) {
      size_t qb, qe;
      tl_partition_bounds(n, P, slices, P / 2, &qb, &qe);
      size_t r = qb + (qe - qb) / 2;
      set_entry(&pr, 0, s, r, 1.0);
      set_entry(&pr, 1, s, r, tw == WEAK_IN ? 0.5 : 2.0);
      set_entry(&pr, 2, s, r, 1.0);
      if (tw == WEAK_IN)
        set_entry(&pr, 2, s, r - 1, 1.0); /* and its column */
    } else if (tw == CORRECTION) {        /* finite y, v, x_left; x overflows inside rank 1 */
      size_t qb, qe;
      tl_partition_bounds(n, P, slices, 1, &qb, &qe);
      /* x[qb-1] = -1e308 alone; x[qb] = -x[qb-1]; x[qb+1] = 1e308 + x[qb]: rank 1's
       * y = 0, 1e308 and v = 1, 1 there, so x = y - v x_left overflows in the
       * correction while every y and the 2x2 systems stay finite */
      double rows[3][4] = {{0, 1, 0, -1e308}, {1, 1, 0, 0}, {-1, 1, 0, 1e308}};
      for (size_t r = 0; r < 3; r++)
        for (int k = 0; k < 4; k++)
          set_entry(&pr, k, s, qb - 1 + r, rows[r][k]);
    } else if (tw == MARGIN0) {
      size_t r = last_begin > 0 ? last_begin : n / 2;
      set_entry(&pr, 0, s, r, 1.0);
      set_entry(&pr, 1, s, r, 2.0);
      set_entry(&pr, 2, s, r, 1.0);
    } else if (tw == TINY) { /* tests/test_nshaped.c, found by fuzzing */
      static const double a[3] = {0, 3.738e-162, 1e138}, b[3] = {6e138, 1e-161, 3e138};
      static const double c[3] = {-5.9399999999999995e+138, 0, 0}, d[3] = {0, 7 * 0x1p-1074, 0};
      for (size_t i = 0; i < 3 && n == 3; i++) {
        set_entry(&pr, 0, s, i, a[i]);
        set_entry(&pr, 1, s, i, b[i]);
        set_entry(&pr, 2, s, i, c[i]);
        set_entry(&pr, 3, s, i, d[i]);
      }
    }
  }
  tl_mpi_batch local;
  tl_info info;
  tl_info_clear(&info);
  /* P > n cannot be split: give every rank the whole batch's shape and no
   * rows beyond n (tl_mpi_solve must refuse it, on every rank). */
  int split = n >= (size_t)P;
  if (split) {
    MC_EXPECT(mc, tl_mpi_scatter_batch(mc->comm, 0, &pr.sys, slices, &local, &info) == TL_OK,
              "scatter: %s", info.msg);
  } else {
    memset(&local, 0, sizeof local);
    local.dtype = dt, local.n = n, local.nsys = nsys, local.periodic = periodic;
    local.begin = (size_t)rank < n ? (size_t)rank : n;
    local.m = (size_t)rank < n ? 1 : 0;
    static double dummy[4] = {0, 1, 0, 0};
    local.a = dummy, local.b = dummy + 1, local.c = dummy, local.d = dummy;
  }
  size_t es = tl_dtype_size(dt);
  void *x = calloc(local.m * nsys + 1, es);
  tl_ledger mine, all;
  tl_ledger_init(&mine);
  tl_ledger_init(&all);
  tl_options opt;
  tl_options_init(&opt);
  opt.ledger = &mine;
  set_case_param(&opt, algo->reference);
  int st = tl_mpi_solve(algo, mc->comm, &local, x, &opt, &info);
  same_on_all_ranks(mc, &info, st);
  if (!split) {
    MC_EXPECT(mc, st == TL_ERR_ARG && strcmp(info.arg, "parts") == 0, "P > n gave %s (%s): %s",
              tl_status_name(st), info.arg, info.msg);
  }
  void *x_all = NULL;
  if (split) {
    x_all = rank == 0 ? calloc(n * nsys, es) : NULL;
    tl_mpi_gather_x(mc->comm, 0, &local, x, x_all, &info);
    tl_mpi_ledger_gather(mc->comm, &mine, 0, &all);
  }
  if (split && rank == 0)
    compare_with_reference(mc, algo, &pr, slices, st, &info, x_all, &all, tw);
  free(x);
  free(x_all);
  if (split)
    tl_mpi_batch_free(&local);
  free(pr.mem);
  free(own);
  tl_ledger_free(&mine);
  tl_ledger_free(&all);
  mc_end(mc);
}
/* The scratch a rank keeps from one solve to the next (tl_mpi_scratch,
 * tl_mpi_scratch_release): a batch solved first on fresh memory, then
 * again after a larger batch with a breakdown has left its numbers in the
 * scratch, then again after the scratch is released, gives the same
 * status and the same bits each time. */
static void scratch_case(mpi_check *mc, const tl_algorithm *algo, uint64_t seed)
{
  int P = mc->size;
  mc_case(mc, "%s P=%d: the same bits on fresh, reused and released scratch", algo->name, P);
  size_t n = 40 * (size_t)P, nsys = 5, *own = NULL;
  if (algo->mpi->slices) {
    own = malloc((size_t)P * sizeof *own);
    tl_mpi_default_slices(algo, n, P, own);
  }
  problem pr = {{0}, NULL}, big = {{0}, NULL};
  if (mc->rank == 0) {
    make_problem(&pr, TL_F64, n, nsys, 0, seed);
    make_problem(&big, TL_F64, n, 3 * nsys, 0, seed + 1);
    set_entry(&big, 1, nsys, n / 2, 0.0); /* a zero row: a breakdown */
    set_entry(&big, 0, nsys, n / 2, 0.0);
  }
  tl_mpi_batch local, lbig;
  tl_info info;
  MC_EXPECT(mc, tl_mpi_scatter_batch(mc->comm, 0, &pr.sys, own, &local, &info) == TL_OK,
            "scatter: %s", info.msg);
  MC_EXPECT(mc, tl_mpi_scatter_batch(mc->comm, 0, &big.sys, own, &lbig, &info) == TL_OK,
            "scatter: %s", info.msg);
  size_t cnt = local.m * nsys;
  double *x[3], *xb = calloc(lbig.m * lbig.nsys + 1, sizeof *xb);
  int st[3];
  tl_mpi_scratch_release(); /* fresh */
  for (int k = 0; k < 3; k++) {
    x[k] = calloc(cnt + 1, sizeof *x[k]);
    if (k == 1) /* after a larger batch that broke down */
      tl_mpi_solve(algo, mc->comm, &lbig, xb, NULL, &info);
    if (k == 2)
      tl_mpi_scratch_release();
    st[k] = tl_mpi_solve(algo, mc->comm, &local, x[k], NULL, &info);
  }
  for (int k = 1; k < 3; k++) {
    MC_EXPECT(mc, st[k] == st[0], "solve %d: status %s, first %s", k, tl_status_name(st[k]),
              tl_status_name(st[0]));
    MC_EXPECT(mc, memcmp(x[k], x[0], cnt * sizeof *x[0]) == 0, "solve %d: other bits", k);
  }
  for (int k = 0; k < 3; k++)
    free(x[k]);
  free(xb);
  tl_mpi_batch_free(&local);
  tl_mpi_batch_free(&lbig);
  free(pr.mem);
  free(big.mem);
  free(own);
  mc_end(mc);
}

/* Two MPI algorithms that do the same operations (distd2_gpu_mpi's
 * kernels and distd2_mpi's batched phases are both the reference's
 * operations): the same status, report and bits of x on every rank. */
static void same_bits_case(mpi_check *mc, const char *name, const char *twin, size_t n,
                           size_t nsys, int periodic, const size_t *slices, uint64_t seed)
{
  const tl_algorithm *algo = tl_mpi_find(name), *other = tl_mpi_find(twin);
  if (!algo || !other)
    return;
  mc_case(mc, "%s and %s: the same bits, P=%d n=%zu nsys=%zu%s%s", algo->name, other->name,
          mc->size, n, nsys, periodic ? " periodic" : "", slices ? " uneven" : "");
  problem pr = {{0}, NULL};
  if (mc->rank == 0)
    make_problem(&pr, TL_F64, n, nsys, periodic, seed);
  tl_mpi_batch local;
  tl_info info, oinfo;
  MC_EXPECT(mc, tl_mpi_scatter_batch(mc->comm, 0, &pr.sys, slices, &local, &info) == TL_OK,
            "scatter: %s", info.msg);
  size_t cnt = local.m * nsys;
  double *x = calloc(cnt + 1, sizeof *x), *y = calloc(cnt + 1, sizeof *y);
  int st = tl_mpi_solve(algo, mc->comm, &local, x, NULL, &info);
  int ot = tl_mpi_solve(other, mc->comm, &local, y, NULL, &oinfo);
  MC_EXPECT(mc, st == ot && strcmp(info.msg, oinfo.msg) == 0, "%s (%s), %s (%s)",
            tl_status_name(st), info.msg, tl_status_name(ot), oinfo.msg);
  MC_EXPECT(mc, !tl_status_has_solution(st) || memcmp(x, y, cnt * sizeof *x) == 0,
            "x differs on rank %d", mc->rank);
  free(x);
  free(y);
  tl_mpi_batch_free(&local);
  free(pr.mem);
  mc_end(mc);
}

/* A program on the GPU kernels when memory runs short (tl_alloc_fail_at(k)
 * for k = 1, 2, ...; on one rank only: on several, a rank without memory
 * ends the job). Each failed allocation is either the solve's
 * TL_ERR_NOMEM, or one the program works around with the bits of `twin`
 * (an MPI program) or, twin NULL, of its reference:
 *   distd2_gpu_mpi  the resident slices' handle or the edges' (every
 *                   system to the reference, its d' on the host), the
 *                   ends' (every d' fetched back, the reference's
 *                   substitution): distd2_mpi's bits;
 *   pdd_gpu_mpi     the resident slices' handle or the ends' (every
 *                   system to the reference), the correction's (every
 *                   system's phase 1 and correction again by the
 *                   reference): the reference's bits.
 * (Emulated, the slices' arrays come from the emulator's allocator,
 * which tl_alloc_fail_at does not reach; their handle is tl_alloc's.) */
static void memory_short_case(mpi_check *mc, const char *name, const char *twin, uint64_t seed)
{
  const tl_algorithm *algo = tl_mpi_find(name), *other = twin ? tl_mpi_find(twin) : NULL;
  if (mc->size != 1 || !algo || (twin && !other))
    return;
  mc_case(mc, "%s with memory short: %s's bits, or no memory", name, twin ? twin : "the reference");
  problem pr = {{0}, NULL};
  make_problem(&pr, TL_F64, 40, 5, 0, seed);
  tl_mpi_batch local;
  tl_info info;
  MC_EXPECT(mc, tl_mpi_scatter_batch(mc->comm, 0, &pr.sys, NULL, &local, &info) == TL_OK,
            "scatter: %s", info.msg);
  size_t cnt = local.m * local.nsys;
  double *x = calloc(cnt, sizeof *x), *y = calloc(cnt, sizeof *y);
  int want = other ? tl_mpi_solve(other, mc->comm, &local, y, NULL, &info)
                   : tl_solve(algo->reference, &pr.sys, y, NULL, &info);
  MC_EXPECT(mc, want == TL_OK, "%s", info.msg);
  int worked = 0, short_ = 0;
  for (long k = 1; k <= 40; k++) {
    tl_alloc_fail_at(k);
    int st = tl_mpi_solve(algo, mc->comm, &local, x, NULL, &info);
    tl_alloc_fail_at(0);
    if (st == TL_OK) {
      worked++;
      MC_EXPECT(mc, memcmp(x, y, cnt * sizeof *x) == 0, "allocation %ld failing: x differs", k);
    } else {
      short_++;
      MC_EXPECT(mc, st == TL_ERR_NOMEM, "allocation %ld failing: %s (%s)", k, tl_status_name(st),
                info.msg);
    }
  }
  MC_EXPECT(mc, worked > 0 && short_ > 0, "%d solved, %d short of memory", worked, short_);
  free(x);
  free(y);
  tl_mpi_batch_free(&local);
  free(pr.mem);
  mc_end(mc);
}

/* Every rank must pass a slice of the same batch: rank P-1 given another
 * n (then another nsys) is a bad argument, the same on every rank, before
 * any algorithm runs (a rank with another batch would run other rounds
 * and leave the rest waiting). Issue 22. */
static void shape_mismatch_case(mpi_check *mc, const tl_algorithm *algo)
{
  int rank = mc->rank, P = mc->size;
  if (P < 2)
    return;
  mc_case(mc, "%s: a rank with another shape", algo->name);
  for (int k = 0; k < 2; k++) {
    size_t m = 4, nsys = (k == 1 && rank == P - 1) ? 2 : 1;
    double *arr = calloc(5 * m * nsys, sizeof *arr);
    for (size_t i = 0; i < m * nsys; i++)
      arr[m * nsys + i] = 4.0, arr[3 * m * nsys + i] = 1.0; /* b = 4, d = 1 */
    tl_mpi_batch local = {.dtype = TL_F64, .n = 4 * (size_t)P, .nsys = nsys, .periodic = 0,
                          .begin = 4 * (size_t)rank, .m = m, .a = arr, .b = arr + m * nsys,
                          .c = arr + 2 * m * nsys, .d = arr + 3 * m * nsys};
    if (k == 0 && rank == P - 1)
      local.n += 1;
    tl_info info;
    int st = tl_mpi_solve(algo, mc->comm, &local, arr + 4 * m * nsys, NULL, &info);
    same_on_all_ranks(mc, &info, st);
    const char *want = k == 0 ? "n" : "nsys";
    MC_EXPECT(mc, st == TL_ERR_ARG && strcmp(info.arg, want) == 0,
              "%s: rank %d with another %s gave %s (%s): %s", algo->name, P - 1, want,
              tl_status_name(st), info.arg, info.msg);
    free(arr);
  }
  mc_end(mc);
}

/* tl_solve's checks, made by every rank on its own slice (tl_check_batch):
 * an x that overlaps an input, and an n * nsys that does not fit in
 * memory, are refused on every rank with tl_solve's report. `who`: the
 * rank whose slice is wrong (-1: every rank's). */
static void solve_checks_case(mpi_check *mc, const tl_algorithm *algo, int who)
{
  int rank = mc->rank, P = mc->size;
  size_t m = 4, nsys = 2;
  mc_case(mc, "%s: tl_solve's checks on rank %d's slice", algo->name, who);
  for (int k = 0; k < 2; k++) {
    double *arr = calloc(5 * m * nsys, sizeof *arr);
    for (size_t i = 0; i < m * nsys; i++)
      arr[m * nsys + i] = 4.0, arr[3 * m * nsys + i] = 1.0;
    tl_mpi_batch local = {.dtype = TL_F64, .n = m * (size_t)P, .nsys = nsys, .begin = m * rank,
                          .m = m, .a = arr, .b = arr + m * nsys, .c = arr + 2 * m * nsys,
                          .d = arr + 3 * m * nsys};
    int mine = who < 0 || rank == who;
    void *x = arr + 4 * m * nsys;
    if (k == 0 && mine)
      x = arr + 3 * m * nsys + 1; /* x overlaps d */
    if (k == 1)
      local.n = SIZE_MAX / 4 + 1, local.nsys = mine ? 4 : nsys;
    if (k == 1 && !mine)
      local.n = m * (size_t)P; /* the others: their own shape check then says who differs */
    tl_info info;
    int st = tl_mpi_solve(algo, mc->comm, &local, x, NULL, &info);
    same_on_all_ranks(mc, &info, st);
    const char *want = k == 0 ? "overlaps input array d" : "n * nsys overflows";
    MC_EXPECT(mc, st == TL_ERR_ARG && strstr(info.msg, want),
              "%s: rank %d's %s gave %s: %s", algo->name, who, k ? "n * nsys" : "overlapping x",
              tl_status_name(st), info.msg);
    free(arr);
  }
  mc_end(mc);
}

/* A program that checks its entries in its own pass (own_entry_check:
 * pdd_mpi, rpdd_mpi, its_mpi and spike_mpi from their kernels' flags,
 * and the programs whose batched sweeps check what they read:
 * tridsolver_mpi, hybrid_pcr_mpi, ptdma_mpi, distd2_mpi, nshaped_mpi,
 * spike_givens_mpi)
 * gives the report tl_mpi_solve's check gave:
 * one bad entry (NaN, infinity, a non-zero corner) in each array, on the
 * first, a middle and the last rank, in a batch of nsys systems (19: the
 * kernels' groups and a rest; 5: no group, every system by the
 * reference's path; complex: the reference's path) -- and RPDD with J > m
 * (the reference's path: the entries are scanned before the verdict) --
 * reports that array, system and global row, the same on every rank; two
 * bad entries on two ranks report the lower rank's. */
static void own_entry_check_case(mpi_check *mc, const char *name, const char *param, tl_dtype dt,
                                 size_t nsys)
{
  int P = mc->size;
  const tl_algorithm *algo = tl_mpi_find(name);
  if (!algo || !(algo->reference->dtypes & TL_DTYPE_BIT(dt)))
    return;
  mc_case(mc, "%s%s%s: its own entry check, %s, %zu systems, P=%d", algo->name, param ? " " : "",
          param ? param : "", dt == TL_F64 ? "double" : "complex", nsys, P);
  MC_EXPECT(mc, algo->mpi->own_entry_check, "%s does not check its own entries", algo->name);
  size_t n = 24 * (size_t)P;
  static const char *const names[4] = {"a", "b", "c", "d"};
  for (int k = 0; k < 4; k++)
    for (int where = 0; where < 6; where++) {
      /* where: 0 first rank, 1 middle, 2 last, 3 the corner of the array (a: row 0, c: row
       * n-1; b, d: two bad entries, on the last rank and then on the first), 4 the first
       * rank's last row (an inf; with c, a value a sweep reads but need not compute with),
       * 5 the last row of the system (a NaN: N-shaped's kernel does not read that row) */
      size_t s = (size_t)(k * 5 + where) % nsys, q = where == 0 ? 0 : where == 1 ? (size_t)P / 2
                                                                                  : (size_t)P - 1;
      size_t row = q * 24 + 5 + (size_t)k, row2 = 0;
      double v = where == 1 ? INFINITY : NAN;
      if (where == 3 && (k == 0 || k == 2))
        row = k == 0 ? 0 : n - 1, v = 0.5;
      else if (where == 3)
        row = (size_t)(P - 1) * 24 + 7, row2 = 3;
      else if (where == 4)
        row = 23, v = INFINITY;
      else if (where == 5)
        row = n - 1, v = NAN;
      problem pr = {{0}, NULL};
      if (mc->rank == 0) {
        make_problem(&pr, dt, n, nsys, 0, 300 + (uint64_t)(4 * k + where));
        set_entry(&pr, k, s, row, v);
        if (where == 3 && k % 2 == 1)
          set_entry(&pr, k, (s + 1) % nsys, row2, NAN);
      }
      tl_mpi_batch local;
      tl_info info;
      MC_EXPECT(mc, tl_mpi_scatter_batch(mc->comm, 0, &pr.sys, NULL, &local, &info) == TL_OK,
                "scatter: %s", info.msg);
      void *x = calloc(local.m * nsys + 1, tl_dtype_size(dt));
      tl_options opt;
      tl_options_init(&opt);
      case_param = param;
      set_case_param(&opt, algo->reference);
      case_param = NULL;
      int st = tl_mpi_solve(algo, mc->comm, &local, x, &opt, &info);
      same_on_all_ranks(mc, &info, st);
      size_t want_s = where == 3 && k % 2 == 1 && P > 1 ? (s + 1) % nsys : s;
      size_t want_row = where == 3 && k % 2 == 1 && P > 1 ? row2 : row;
      size_t s2 = (s + 1) % nsys;
      if (where == 3 && k % 2 == 1 && P == 1) /* one rank: its first, system by system */
        want_s = s2 < s ? s2 : s, want_row = s2 < s ? row2 : row;
      MC_EXPECT(mc, st == TL_ERR_ARG && !strcmp(info.arg, names[k]) &&
                        info.system == (long)want_s && info.row == (long)want_row,
                "%s[%zu] of system %zu (case %d): %s, arg %s, system %ld, row %ld: %s",
                names[k], want_row, want_s, where, tl_status_name(st), info.arg, info.system,
                info.row, info.msg);
      free(x);
      tl_mpi_batch_free(&local);
      free(pr.mem);
    }
  mc_end(mc);
}

/* An MPI algorithm is a registry algorithm: found by tl_find in room
 * "mpi", and solved through tl_solve with the whole batch on every rank
 * (tl_mpi_solve_batch): x gathered on every rank, the same as the
 * simulated reference's within LAPACK's ratio, the ledger the model's;
 * a partition count other than the ranks' is refused. */
static void registry_case(mpi_check *mc, const tl_algorithm *algo, int seed)
{
  int P = mc->size;
  mc_case(mc, "%s through tl_solve", algo->name);
  MC_EXPECT(mc, tl_find(algo->name) == algo, "%s: tl_find gives another descriptor", algo->name);
  MC_EXPECT(mc, !strcmp(tl_algorithm_room(algo), "mpi"), "%s: room %s", algo->name,
            tl_algorithm_room(algo));
  size_t n = 40 * (size_t)P, nsys = 3;
  tl_problem p;
  tl_info info;
  MC_EXPECT(mc, tl_gallery_make(2, n, nsys, (uint64_t)seed, &p, &info) == TL_OK, "%s", info.msg);
  double *x = calloc(n * nsys, sizeof *x), *x0 = calloc(n * nsys, sizeof *x0);
  tl_ledger ledger, model;
  tl_ledger_init(&ledger);
  tl_ledger_init(&model);
  tl_options opt;
  tl_options_init(&opt);
  opt.ledger = &ledger;
  int st = tl_solve(algo, &p.sys, x, &opt, &info);
  same_on_all_ranks(mc, &info, st);
  MC_EXPECT(mc, st == TL_OK, "%s: %s (%s)", algo->name, tl_status_name(st), info.msg);
  if (st == TL_OK) {
    memcpy(x0, x, n * nsys * sizeof *x);
    MPI_Bcast(x0, (int)(n * nsys), MPI_DOUBLE, 0, mc->comm);
    MC_EXPECT(mc, !memcmp(x0, x, n * nsys * sizeof *x), "%s: x differs from rank 0's",
              algo->name);
    double ratio = tl_residual_ratio(&p.sys, x);
    MC_EXPECT(mc, ratio < TL_THRESH, "%s: residual ratio %g", algo->name, ratio);
    if (algo->ledger_model) {
      opt.parts = P;
      opt.ledger = NULL;
      char why[256] = "";
      MC_EXPECT(mc, algo->ledger_model(algo, &p.sys, &opt, &info, &model) == TL_OK &&
                        tl_ledger_equal(&ledger, &model, why, sizeof why),
                "%s: the ledger is not the model's: %s", algo->name, why);
    }
  }
  tl_options_init(&opt);
  opt.parts = P + 1;
  st = tl_solve(algo, &p.sys, x, &opt, &info);
  MC_EXPECT(mc, st == TL_ERR_ARG && !strcmp(info.arg, "parts"), "%s: parts = P + 1 gave %s: %s",
            algo->name, tl_status_name(st), info.msg);
  tl_ledger_free(&ledger);
  tl_ledger_free(&model);
  free(x);
  free(x0);
  tl_problem_free(&p);
  mc_end(mc);
}

/* SPIKE pivots: on matrices without dominance (the indefinite
 * tridiag(1, 1.5, 1), gallery 25; random ones, 7) the ranks answer what
 * the simulated reference answers, with its status and report (no
 * guarantee: outside-domain) and the same bits of x; on the Toeplitz
 * matrix that answer passes the residual test. A batch of nsys >= 8
 * systems runs phase 1 through the batched kernel (spike:
 * tl_cpu_spike_local_d, the blocks of different systems swapping rows
 * differently; spike_givens: tl_cpu_spike_givens_local_d; spike_dp runs
 * the reference's phases system by system). reduced: the
 * parameter of the reduced solve ("band", "recursive"). */
static void spike_pivoting_case(mpi_check *mc, const char *name, int type, size_t n, size_t nsys,
                                uint64_t seed, const char *reduced)
{
  int P = mc->size;
  const tl_algorithm *algo = tl_mpi_find(name);
  if (!algo || n < (size_t)P)
    return;
  mc_case(mc, "%s reduced=%s on gallery %d n=%zu nsys=%zu P=%d", algo->name, reduced, type, n, nsys,
          P);
  tl_problem p;
  tl_info info, rinfo;
  MC_EXPECT(mc, tl_gallery_make(type, n, nsys, seed, &p, &info) == TL_OK, "%s", info.msg);
  double *x = calloc(nsys * n, sizeof *x), *xr = calloc(nsys * n, sizeof *xr);
  tl_options mopt, opt;
  tl_options_init(&mopt);
  MC_EXPECT(mc, tl_options_set_param(&mopt, algo, "reduced", reduced, &info) == TL_OK, "%s",
            info.msg);
  int st = tl_solve(algo, &p.sys, x, &mopt, &info);
  tl_options_init(&opt);
  opt.parts = P;
  MC_EXPECT(mc, tl_options_set_param(&opt, algo->reference, "reduced", reduced, &rinfo) == TL_OK,
            "%s", rinfo.msg);
  int rst = tl_solve(algo->reference, &p.sys, xr, &opt, &rinfo);
  MC_EXPECT(mc, st == rst && !strcmp(info.msg, rinfo.msg), "status %s '%s', simulated %s '%s'",
            tl_status_name(st), info.msg, tl_status_name(rst), rinfo.msg);
  if (tl_status_has_solution(st))
    MC_EXPECT(mc, !memcmp(x, xr, nsys * n * sizeof *x), "x differs from the simulated x");
  if (type == 25) /* no guarantee without dominance, but an answer that passes */
    MC_EXPECT(mc, st == TL_OUTSIDE_DOMAIN && tl_residual_ratio(&p.sys, x) < TL_THRESH,
              "the indefinite Toeplitz matrix: %s", info.msg);
  free(x);
  free(xr);
  tl_problem_free(&p);
  mc_end(mc);
}

/* A block singular for this split only (gallery 39, zero-pivot-interior:
 * rows 0-1 are [1 1; 1 1]; rank 0 holds just those two rows): spike_mpi
 * reports the singular block naming rank 0's partition, as its
 * reference does; spike_givens_mpi modifies it, sends K's tips and gets
 * its pinned unknown back, and answers what its reference answers, an x
 * that passes LAPACK's residual test. 17 systems: rank 0's blocks go
 * through the batched kernel (two groups of eight) and the reference
 * (one more). P = 1 has no such split. */
static void spike_singular_block_case(mpi_check *mc)
{
  int P = mc->size;
  const tl_algorithm *sp = tl_mpi_find("spike"), *sg = tl_mpi_find("spike_givens_mpi");
  if (!sp || !sg || P < 2)
    return;
  mc_case(mc, "spike_givens_mpi on a singular block of rank 0, P=%d", P);
  size_t *sizes = malloc((size_t)P * sizeof *sizes), n = 2, nsys = 17; /* lanes and a rest */
  sizes[0] = 2;
  for (int r = 1; r < P; r++)
    n += sizes[r] = 20;
  tl_problem p;
  tl_info info, rinfo;
  MC_EXPECT(mc, tl_gallery_make(39, n, nsys, 5, &p, &info) == TL_OK, "%s", info.msg);
  double *x = calloc(n * nsys, sizeof *x), *xr = calloc(n * nsys, sizeof *xr);
  tl_options opt;
  tl_options_init(&opt);
  opt.parts = P;
  opt.part_sizes = sizes;
  int st = tl_solve(sp, &p.sys, x, &opt, &info);
  MC_EXPECT(mc, st == TL_ERR_BREAKDOWN && strstr(info.msg, "partition 0"), "spike_mpi: %s '%s'",
            tl_status_name(st), info.msg);
  st = tl_solve(sg, &p.sys, x, &opt, &info);
  int rst = tl_solve(sg->reference, &p.sys, xr, &opt, &rinfo);
  MC_EXPECT(mc, st == rst && !strcmp(info.msg, rinfo.msg), "status %s '%s', simulated %s '%s'",
            tl_status_name(st), info.msg, tl_status_name(rst), rinfo.msg);
  double diff = 0, scale = 0;
  for (size_t k = 0; k < n * nsys; k++) {
    diff = fmax(diff, fabs(x[k] - xr[k]));
    scale = fmax(scale, fabs(xr[k]));
  }
  MC_EXPECT(mc, diff <= 30 * TL_EPS * scale, "|x - x_simulated| = %g (|x| %g)", diff, scale);
  MC_EXPECT(mc, tl_status_has_solution(st) && tl_residual_ratio(&p.sys, x) < TL_THRESH,
            "spike_givens_mpi: %s '%s'", tl_status_name(st), info.msg);
  free(x);
  free(xr);
  free(sizes);
  tl_problem_free(&p);
  mc_end(mc);
}

/* Truncated SPIKE is the simulated reference's only: across ranks,
 * truncate=1 is refused as unsupported by every rank alike, before any
 * message (nothing waits), whatever P. */
static void spike_truncate_case(mpi_check *mc, const char *name)
{
  const tl_algorithm *algo = tl_mpi_find(name);
  int P = mc->size;
  size_t n = 10 * (size_t)P;
  if (!algo)
    return;
  mc_case(mc, "%s truncate=1 P=%d: unsupported", algo->name, P);
  problem pr = {{0}, NULL};
  if (mc->rank == 0)
    make_problem(&pr, TL_F64, n, 2, 0, 77);
  tl_mpi_batch local;
  tl_info info;
  tl_info_clear(&info);
  MC_EXPECT(mc, tl_mpi_scatter_batch(mc->comm, 0, &pr.sys, NULL, &local, &info) == TL_OK,
            "scatter: %s", info.msg);
  double *x = calloc(local.m * 2 + 1, sizeof *x);
  tl_options opt;
  tl_options_init(&opt);
  MC_EXPECT(mc, tl_options_set_param(&opt, algo, "truncate", "1", &info) == TL_OK, "%s",
            info.msg);
  int st = tl_mpi_solve(algo, mc->comm, &local, x, &opt, &info);
  same_on_all_ranks(mc, &info, st);
  MC_EXPECT(mc,
            st == TL_ERR_UNSUPPORTED && strstr(info.msg, "truncate=1 is not built across ranks"),
            "%s: %s", tl_status_name(st), info.msg);
  free(x);
  tl_mpi_batch_free(&local);
  free(pr.mem);
  mc_end(mc);
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  mpi_check mc;
  mc_init(&mc, MPI_COMM_WORLD);
  int P = mc.size;
  size_t *uneven = malloc((size_t)P * sizeof *uneven), n_uneven = 0;
  for (int r = 0; r < P; r++) {
    uneven[r] = 30 + 7 * (size_t)((r * 3) % 5);
    n_uneven += uneven[r];
  }
  size_t count;
  const tl_algorithm *const *reg = tl_mpi_registry(&count);
  for (size_t k = 0; k < count; k++) {
    const tl_algorithm *algo = reg[k];
    const tl_algorithm *ref = algo; /* the registry's copy: its reference's classes */
    size_t minrows = ref->min_rows_per_part ? ref->min_rows_per_part : 1;
    run_case(&mc, algo, TL_F64, 40 * (size_t)P, 1, 0, NULL, PLAIN, 11 + k);
    run_case(&mc, algo, TL_F64, n_uneven, 5, 0, uneven, PLAIN, 12 + k);
    run_case(&mc, algo, TL_F64, minrows * (size_t)P, 3, 0, NULL, PLAIN, 13 + k);
    run_case(&mc, algo, TL_F64, 40 * (size_t)P, 4, 0, NULL, BREAKDOWN, 14 + k);
    run_case(&mc, algo, TL_F64, 40 * (size_t)P, 2, 0, NULL, NONFINITE, 15 + k);
    if (P > 1)
      run_case(&mc, algo, TL_F64, (size_t)P - 1, 1, 0, NULL, PLAIN, 16 + k);
    if (ref->dtypes & TL_DTYPE_BIT(TL_C128))
      run_case(&mc, algo, TL_C128, n_uneven, 3, 0, uneven, PLAIN, 17 + k);
    if (ref->layouts & TL_PERIODIC)
      run_case(&mc, algo, TL_F64, n_uneven, 3, 1, uneven, PLAIN, 18 + k);
    scratch_case(&mc, algo, 19 + k);
    /* Batches of whole groups of eight systems and a remainder: the
     * batched local phases (optimized/cpu/), a breakdown in the second
     * group (system 9). */
    run_case(&mc, algo, TL_F64, 40 * (size_t)P, 19, 0, NULL, PLAIN, 20 + k);
    run_case(&mc, algo, TL_F64, 40 * (size_t)P, 19, 0, NULL, BREAKDOWN, 21 + k);
  }
  shape_mismatch_case(&mc, tl_mpi_find("pdd"));
  for (int r = 0; r < 2; r++) {
    const char *how = r ? "recursive" : "band";
    for (int v = 0; v < 3; v++) {
      const char *name = v == 0 ? "spike" : v == 1 ? "spike_dp" : "spike_givens";
      spike_pivoting_case(&mc, name, 25, 40 * (size_t)P + 3, 3, 81, how);
      spike_pivoting_case(&mc, name, 25, 1000, 3, 82, how);
      spike_pivoting_case(&mc, name, 7, 64 * (size_t)P, 3, 83, how);
      spike_pivoting_case(&mc, name, 7, 64 * (size_t)P + 5, 19, 84, how);
      spike_pivoting_case(&mc, name, 25, 40 * (size_t)P + 3, 17, 85, how);
      spike_pivoting_case(&mc, name, 20, 50 * (size_t)P, 17, 86, how);
    }
  }
  solve_checks_case(&mc, tl_mpi_find("pdd"), -1);
  own_entry_check_case(&mc, "pdd", NULL, TL_F64, 19);
  own_entry_check_case(&mc, "rpdd", NULL, TL_F64, 19);
  own_entry_check_case(&mc, "rpdd", "J=1000000", TL_F64, 19);
  own_entry_check_case(&mc, "tridsolver", NULL, TL_F64, 19);
  own_entry_check_case(&mc, "tridsolver", "reduced=pcr,minibatch=2", TL_F64, 19);
  own_entry_check_case(&mc, "tridsolver", "reduced=jacobi", TL_F64, 19);
  own_entry_check_case(&mc, "hybrid_pcr", NULL, TL_F64, 19);
  own_entry_check_case(&mc, "distd2", NULL, TL_F64, 19);
  own_entry_check_case(&mc, "ptdma", NULL, TL_F64, 19);
  own_entry_check_case(&mc, "ptdma", "flavour=combined", TL_F64, 19);
  own_entry_check_case(&mc, "nshaped", NULL, TL_F64, 19);
  own_entry_check_case(&mc, "nshaped", "levels=2", TL_F64, 19);
  own_entry_check_case(&mc, "its", NULL, TL_F64, 19);
  own_entry_check_case(&mc, "spike", NULL, TL_F64, 19);
  own_entry_check_case(&mc, "spike", "reduced=recursive", TL_F64, 19);
  own_entry_check_case(&mc, "spike_givens", NULL, TL_F64, 19);
  static const char *const own_checks[] = {"tridsolver", "hybrid_pcr",  "distd2", "ptdma",
                                           "nshaped",    "its",         "pdd",    "rpdd",
                                           "spike",      "spike_givens"};
  for (size_t k = 0; k < sizeof own_checks / sizeof *own_checks; k++) {
    own_entry_check_case(&mc, own_checks[k], NULL, TL_F64, 5); /* no group of eight */
    own_entry_check_case(&mc, own_checks[k], NULL, TL_C128, 19); /* where it has complex */
  }
  solve_checks_case(&mc, tl_mpi_find("ptdma"), P - 1);
  for (size_t k = 0; k < count; k++)
    registry_case(&mc, reg[k], 40 + (int)k);
  spike_truncate_case(&mc, "spike");
  spike_truncate_case(&mc, "spike_dp");
  spike_truncate_case(&mc, "spike_givens_mpi");
  spike_singular_block_case(&mc);
  /* The other variants of the algorithms with a choice (the loop above
   * ran their defaults): fewer cases each. */
  static const struct {
    const char *algo, *param;
  } variants[] = {
      {"tridsolver", "reduced=gather_scatter"},
      {"tridsolver", "reduced=pcr"},
      {"tridsolver", "reduced=jacobi"},
      {"tridsolver", "reduced=jacobi,iters=10"},
      {"tridsolver", "reduced=pcr,minibatch=2"},
      {"tridsolver", "reduced=gather_scatter,minibatch=4"},
  };
  for (size_t k = 0; k < sizeof variants / sizeof variants[0]; k++) {
    const tl_algorithm *algo = tl_mpi_find(variants[k].algo);
    if (!algo)
      continue;
    const tl_algorithm *ref = algo; /* the registry's copy: its reference's classes */
    size_t minrows = ref->min_rows_per_part ? ref->min_rows_per_part : 1;
    case_param = variants[k].param;
    run_case(&mc, algo, TL_F64, n_uneven, 5, 0, uneven, PLAIN, 31 + k);
    run_case(&mc, algo, TL_F64, minrows * (size_t)P, 1, 0, NULL, PLAIN, 32 + k);
    run_case(&mc, algo, TL_F64, 40 * (size_t)P, 4, 0, NULL, BREAKDOWN, 33 + k);
    if (ref->dtypes & TL_DTYPE_BIT(TL_C128))
      run_case(&mc, algo, TL_C128, n_uneven, 9, 0, uneven, PLAIN, 34 + k);
    if (P > 1)
      run_case(&mc, algo, TL_F64, (size_t)P - 1, 1, 0, NULL, PLAIN, 35 + k);
    case_param = NULL;
  }
  /* N-shaped's own cases: its levels, a batch that is no multiple of 8
   * or 16, two-row slices (empty blocks), complex periodic, and its
   * domain check (weak row, dominance by columns only, near underflow). */
  const tl_algorithm *ns = tl_mpi_find("nshaped");
  static const char *const ns_params[] = {NULL, "levels=2", "levels=3"};
  for (size_t k = 0; ns && k < sizeof ns_params / sizeof ns_params[0]; k++) {
    case_param = ns_params[k];
    run_case(&mc, ns, TL_F64, n_uneven, 13, 0, uneven, PLAIN, 41 + k);
    run_case(&mc, ns, TL_F64, 2 * (size_t)P, 17, 0, NULL, PLAIN, 42 + k);
    run_case(&mc, ns, TL_F64, 2 * (size_t)P + 1, 3, 1, NULL, PLAIN, 43 + k);
    run_case(&mc, ns, TL_C128, n_uneven, 9, 1, uneven, PLAIN, 44 + k);
    run_case(&mc, ns, TL_C128, (size_t)P, 2, 0, NULL, PLAIN, 45 + k);
    run_case(&mc, ns, TL_F64, 40 * (size_t)P, 3, 0, NULL, WEAK, 46 + k);
    run_case(&mc, ns, TL_F64, n_uneven, 3, 0, uneven, COL_DD, 47 + k);
    run_case(&mc, ns, TL_C128, 40 * (size_t)P, 2, 1, NULL, WEAK, 48 + k);
    if (P <= 3)
      run_case(&mc, ns, TL_F64, 3, 1, 0, NULL, TINY, 49 + k);
    case_param = NULL;
  }
  /* N-shaped's batched stages (eight systems at once): 19 systems (two
   * groups and three more) on uneven slices and periodic, and a zero
   * pivot in the middle of a block in the second group, which the
   * reference's RD reports. */
  if (ns) {
    run_case(&mc, ns, TL_F64, n_uneven, 19, 0, uneven, PLAIN, 91);
    run_case(&mc, ns, TL_F64, 40 * (size_t)P + 1, 19, 1, NULL, PLAIN, 92);
    run_case(&mc, ns, TL_F64, 40 * (size_t)P, 19, 0, NULL, INNER, 93);
    run_case(&mc, ns, TL_F64, n_uneven, 19, 0, uneven, INNER, 94);
    /* and the verdict on rows inside a block (measured by RD) */
    run_case(&mc, ns, TL_F64, 40 * (size_t)P, 19, 0, NULL, WEAK_IN, 85);
    run_case(&mc, ns, TL_F64, n_uneven, 19, 1, uneven, WEAK_IN, 86);
    run_case(&mc, ns, TL_F64, 40 * (size_t)P, 19, 1, NULL, MARGIN0_IN, 87);
    run_case(&mc, ns, TL_F64, n_uneven, 19, 0, uneven, MARGIN0_IN, 88);
  }
  /* P-TDMA's and DistD2's verdicts where their passes found the rows
   * strictly dominant (those ranks send no worst row): a weak row on a
   * rank boundary in the second group of 19 systems, plain and
   * periodic, reported with the reference's row (for P-TDMA the
   * matrix's verdict, not the reduced rows' warning that comes with it,
   * in both flavours); a row whose margin is exactly 0, which a periodic
   * matrix's verdict (and DistD2's, plain too) names. */
  static const struct {
    const char *algo, *param;
  } verdicts[] = {
      {"ptdma", NULL}, {"ptdma", "flavour=combined"}, {"distd2", NULL}, {"distd2_gpu_mpi", NULL}};
  for (size_t k = 0; k < sizeof verdicts / sizeof verdicts[0]; k++) {
    const tl_algorithm *algo = tl_mpi_find(verdicts[k].algo);
    if (!algo)
      continue;
    case_param = verdicts[k].param;
    run_case(&mc, algo, TL_F64, 40 * (size_t)P, 19, 0, NULL, WEAK, 101);
    run_case(&mc, algo, TL_F64, n_uneven, 19, 1, uneven, WEAK, 102);
    run_case(&mc, algo, TL_F64, n_uneven, 19, 1, uneven, MARGIN0, 103);
    run_case(&mc, algo, TL_F64, 40 * (size_t)P, 19, 0, NULL, MARGIN0, 104);
    case_param = NULL;
  }
  /* DistD2 on the GPU kernels (distd2_gpu_mpi) against distd2_mpi, bit
   * for bit: a batch of 19 systems (a group of 8, 16 or 32 and more),
   * even and uneven slices, plain and periodic; both against the
   * reference when d' overflows in one system. */
  same_bits_case(&mc, "distd2_gpu_mpi", "distd2_mpi", 40 * (size_t)P, 19, 0, NULL, 95);
  same_bits_case(&mc, "distd2_gpu_mpi", "distd2_mpi", n_uneven, 19, 0, uneven, 96);
  same_bits_case(&mc, "distd2_gpu_mpi", "distd2_mpi", n_uneven, 35, 1, uneven, 97);
  memory_short_case(&mc, "distd2_gpu_mpi", "distd2_mpi", 98);
  static const char *const distd2s[] = {"distd2_mpi", "distd2_gpu_mpi"};
  for (size_t k = 0; k < 2; k++) {
    const tl_algorithm *algo = tl_mpi_find(distd2s[k]);
    if (!algo)
      continue;
    run_case(&mc, algo, TL_F64, 40 * (size_t)P, 19, 0, NULL, OVERFLOW, 98);
    run_case(&mc, algo, TL_F64, n_uneven, 35, 1, uneven, OVERFLOW, 99);
  }
  /* PDD's and RPDD's kernels' phases: a batch of 17 systems (two SIMD
   * groups of 8 and one more), the systems they hand to the reference in
   * its middle, RPDD with a fixed spike length too. */
  static const struct {
    const char *algo, *param;
  } batched[] = {{"pdd", NULL}, {"rpdd", NULL}, {"rpdd", "J=3"}};
  for (size_t k = 0; k < sizeof batched / sizeof batched[0]; k++) {
    const tl_algorithm *algo = tl_mpi_find(batched[k].algo);
    if (!algo)
      continue;
    case_param = batched[k].param;
    run_case(&mc, algo, TL_F64, 40 * (size_t)P, 17, 0, NULL, PLAIN, 51 + k);
    run_case(&mc, algo, TL_F64, 40 * (size_t)P, 17, 0, NULL, INNER, 52 + k);
    run_case(&mc, algo, TL_F64, 40 * (size_t)P, 17, 0, NULL, SPIKE, 53 + k);
    run_case(&mc, algo, TL_F64, n_uneven, 17, 0, uneven, INNER, 54 + k);
    run_case(&mc, algo, TL_F64, n_uneven, 17, 0, uneven, SPIKE, 55 + k);
    if (k == 0) /* PDD's rank 0 without its bottom-up sweep */
      run_case(&mc, algo, TL_F64, 40 * (size_t)P, 17, 0, NULL, WPIVOT, 57);
    run_case(&mc, algo, TL_F64, 40 * (size_t)P, 33, 0, NULL, BREAKDOWN, 56 + k);
    case_param = NULL;
  }
  /* PDD on the GPU kernels with the slices resident (pdd_gpu_mpi): the
   * reference's operations in its order, so its bits, on even and uneven
   * slices, a batch of 17 (a block of TL_GPU_SZ and more), and the
   * systems the kernels hand to the reference (a zero pivot inside a
   * block, a spike's, a breakdown on the last rank). */
  const tl_algorithm *pdd_gpu = tl_mpi_find("pdd_gpu_mpi");
  static const twist on_gpu[] = {PLAIN, INNER, SPIKE, BREAKDOWN};
  case_bits = 1;
  for (size_t k = 0; pdd_gpu && k < sizeof on_gpu / sizeof on_gpu[0]; k++) {
    run_case(&mc, pdd_gpu, TL_F64, 40 * (size_t)P, 17, 0, NULL, on_gpu[k], 111 + k);
    run_case(&mc, pdd_gpu, TL_F64, n_uneven, 17, 0, uneven, on_gpu[k], 115 + k);
  }
  case_bits = 0;
  /* x overflowing in the correction (y and the 2x2 systems finite): the
   * GPU kernel's flag sends its system to the reference (pdd_gpu_mpi),
   * as the CPU kernel's second solve does (pdd_mpi), for its report */
  static const char *const correcting[] = {"pdd_gpu_mpi", "pdd"};
  for (size_t k = 0; P > 1 && k < 2; k++)
    if (tl_mpi_find(correcting[k]))
      run_case(&mc, tl_mpi_find(correcting[k]), TL_F64, 40 * (size_t)P, 17, 0, NULL, CORRECTION,
               119);
  memory_short_case(&mc, "pdd_gpu_mpi", NULL, 99);
  /* Tridsolver's batched sweeps (eight systems at once): 19 systems (two
   * groups and three more), a breakdown (system 9, in a group) and a zero
   * row (17 systems: system 8, a group's first lane), and mini-batches
   * that cut the groups (with PCR, and with the default allgather:
   * minibatch=5 leaves every system to the reference's sweep; minibatch=8
   * runs one group in each of the first two, the breakdown in the second,
   * and the last three systems by the reference's sweep). */
  static const char *const sweeps[] = {NULL, "reduced=pcr,minibatch=9", "reduced=gather_scatter",
                                       "minibatch=5", "minibatch=8"};
  for (size_t k = 0; k < sizeof sweeps / sizeof sweeps[0]; k++) {
    const tl_algorithm *algo = tl_mpi_find("tridsolver");
    case_param = sweeps[k];
    run_case(&mc, algo, TL_F64, 40 * (size_t)P, 19, 0, NULL, PLAIN, 61 + k);
    run_case(&mc, algo, TL_F64, n_uneven, 19, 0, uneven, PLAIN, 62 + k);
    run_case(&mc, algo, TL_F64, 40 * (size_t)P, 19, 0, NULL, BREAKDOWN, 63 + k);
    run_case(&mc, algo, TL_F64, n_uneven, 17, 0, uneven, INNER, 64 + k);
    case_param = NULL;
  }
  /* 2048 rows per rank: PDD's second solve goes 16 systems at a time (a
   * scratch of 2^15 entries), so system 16 of 33 is in the second chunk. */
  const tl_algorithm *pdd = tl_mpi_find("pdd");
  static const twist chunked[] = {PLAIN, INNER, SPIKE};
  for (size_t k = 0; pdd && k < sizeof chunked / sizeof chunked[0]; k++)
    run_case(&mc, pdd, TL_F64, 2048 * (size_t)P, 33, 0, NULL, chunked[k], 61 + k);
  /* PDD's mini-batches (tl_minibatch_systems; on 2 ranks or more the
   * chunked cases above take the default, 16 systems at 2048 rows a
   * rank: three rounds):
   * minibatch=5 on 19 systems, four rounds of messages, a breakdown in
   * the second (system 9) and a zero pivot inside a block, x overflowing
   * in a correction, uneven slices; the ledger against the simulated
   * reference's in the same rounds. pdd_gpu_mpi sends its messages in the
   * same rounds and keeps the reference's bits. */
  static const twist in_minibatches[] = {PLAIN, BREAKDOWN, INNER, CORRECTION};
  for (int g = 0; g < 2; g++) {
    const tl_algorithm *algo = tl_mpi_find(g ? "pdd_gpu_mpi" : "pdd");
    case_param = "minibatch=5";
    case_bits = g;
    for (size_t k = 0; algo && k < sizeof in_minibatches / sizeof *in_minibatches; k++)
      if (in_minibatches[k] != CORRECTION || P > 1)
        run_case(&mc, algo, TL_F64, 40 * (size_t)P, 19, 0, NULL, in_minibatches[k], 131 + k);
    if (algo)
      run_case(&mc, algo, TL_F64, n_uneven, 19, 0, uneven, PLAIN, 135);
    case_param = NULL;
    case_bits = 0;
  }
  /* DistD2's mini-batches the same way (Algorithms 5-7 and the exchange
   * a mini-batch at a time, the plan rows of each in the same scratch):
   * the default on 2048 rows a rank (16 systems, three rounds of 33);
   * minibatch=8 on 33 systems, so that the batched pass runs on later
   * mini-batches and system 16, which breaks down or has a zero pivot,
   * starts the third; minibatch=5 (every system by the reference's
   * phases); periodic and uneven. The reference's bits (the batched pass
   * and Algorithm 7's lanes do its operations). distd2_gpu_mpi exchanges
   * in the same rounds. */
  static const twist d2_twists[] = {PLAIN, BREAKDOWN, INNER};
  for (int g = 0; g < 2; g++) {
    const tl_algorithm *algo = tl_mpi_find(g ? "distd2_gpu_mpi" : "distd2");
    if (!algo)
      continue;
    case_bits = 1;
    run_case(&mc, algo, TL_F64, 2048 * (size_t)P, 33, 0, NULL, PLAIN, 141);
    case_param = "minibatch=8";
    for (size_t k = 0; k < sizeof d2_twists / sizeof *d2_twists; k++)
      run_case(&mc, algo, TL_F64, 40 * (size_t)P, 33, 0, NULL, d2_twists[k], 142 + k);
    run_case(&mc, algo, TL_F64, n_uneven, 19, 1, uneven, PLAIN, 145);
    case_param = "minibatch=5";
    run_case(&mc, algo, TL_F64, 40 * (size_t)P, 19, 0, NULL, BREAKDOWN, 146);
    run_case(&mc, algo, TL_F64, n_uneven, 19, 1, uneven, PLAIN, 147);
    case_param = NULL;
    case_bits = 0;
  }
  /* ITS's local solves go the same way (16-system chunks at 2048 rows
   * per rank: system 16 of 33 in the second). On one rank the zero
   * pivots reach the local solve, its fallback; on several, the window
   * systems around the interfaces meet them first. */
  const tl_algorithm *its = tl_mpi_find("its");
  if (its) {
    run_case(&mc, its, TL_F64, 40 * (size_t)P, 17, 0, NULL, PLAIN, 71);
    run_case(&mc, its, TL_F64, 40 * (size_t)P, 17, 0, NULL, INNER, 72);
    run_case(&mc, its, TL_F64, 2048 * (size_t)P, 33, 0, NULL, PLAIN, 73);
    run_case(&mc, its, TL_F64, 2048 * (size_t)P, 33, 0, NULL, BREAKDOWN, 74);
    run_case(&mc, its, TL_F64, 2048 * (size_t)P, 33, 0, NULL, INNER, 76);
    run_case(&mc, its, TL_F64, n_uneven, 17, 0, uneven, INNER, 75);
  }
  free(uneven);
  int rc = mc_finish(&mc, "test_mpi_partition");
  MPI_Finalize();
  return rc;
}
