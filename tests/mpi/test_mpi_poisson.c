/* tests/mpi/test_mpi_poisson.c -- the Poisson/Helmholtz mini-app
 * (apps/poisson): the observed order on the manufactured solution at
 * n = 8, 16, 32 is 2.00 +- 0.1 (Poisson and Helmholtz), and the answer is
 * the same, to LAPACK-scaled round-off, on every process grid the launched
 * ranks allow (1x1, 1x2, 2x1, 2x2, 1x4, 4x1, 2x3: a sub-communicator of
 * the first Py Pz ranks) by the default algorithm, the transpose route and
 * every MPI algorithm of the registry that says its answer is good. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_check.h"
#include "poisson.h"
#include "tridlab/tridlab.h"

/* Solve on the first Py Pz ranks of the world; the whole u gathered on
 * world rank 0 (into whole, when `gather`). Returns the status (agreed
 * over the world; ranks outside the grid say TL_OK), *err the error. */
static int solve_on(int Py, int Pz, const ps_problem *pb, const tl_algorithm *algo,
                    int transpose, int gather, double *whole, double *err, tl_info *info)
{
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm sub;
  int in = rank < Py * Pz;
  MPI_Comm_split(MPI_COMM_WORLD, in ? 0 : MPI_UNDEFINED, rank, &sub);
  int st = TL_OK;
  *err = 0;
  if (in) {
    ps_solver s;
    st = ps_create(sub, Py, Pz, pb, algo, transpose, &s, info);
    if (st >= 0) {
      size_t cnt = tl_grid_local_count(&s.gx);
      double *f = malloc((cnt + 1) * sizeof *f);
      ps_fill_forcing(&s, f);
      st = ps_solve(&s, f, f, info);
      if (tl_status_has_solution(st)) {
        *err = ps_max_error(&s, f);
        if (gather)
          tl_grid_gather_d(&s.gx, 0, f, whole, info);
      }
      free(f);
    }
    ps_free(&s);
    MPI_Comm_free(&sub);
  }
  /* The world agrees (ranks outside the grid wait here). */
  return tl_grid_agree(MPI_COMM_WORLD, st, info);
}

static ps_problem problem(ps_mode mode, size_t n, double alpha)
{
  return (ps_problem){.n = {n, n, n - 1}, .L = {1, 1, 1}, .mode = mode, .alpha = alpha};
}

static void convergence(mpi_check *mc, ps_mode mode)
{
  int Pz = mc->size % 2 == 0 ? 2 : 1, Py = mc->size / Pz;
  mc_case(mc, "%s convergence on %dx%d", mode == PS_POISSON ? "Poisson" : "Helmholtz", Py, Pz);
  double err[3];
  size_t ns[3] = {8, 16, 32};
  for (int k = 0; k < 3; k++) {
    tl_info info;
    tl_info_clear(&info);
    ps_problem pb = problem(mode, ns[k], 0.01);
    int st = solve_on(Py, Pz, &pb, NULL, 0, 0, NULL, &err[k], &info);
    MC_EXPECT(mc, tl_status_has_solution(st), "n = %zu: %s", ns[k], info.msg);
  }
  for (int k = 1; k < 3; k++) {
    double order = log(err[k - 1] / err[k]) / log(2.0);
    MC_EXPECT(mc, fabs(order - 2) <= 0.1, "order %.3f between n = %zu and %zu", order, ns[k - 1],
              ns[k]);
  }
  mc_end(mc);
}

/* max |u - ref| against round-off of the size of the answer. */
static double roundoff_ratio(const double *u, const double *ref, size_t count, size_t nsum)
{
  double diff = 0, big = 0;
  for (size_t p = 0; p < count; p++) {
    diff = fmax(diff, fabs(u[p] - ref[p]));
    big = fmax(big, fabs(ref[p]));
  }
  return diff / (big * TL_EPS * (double)nsum);
}

static void grids(mpi_check *mc, ps_mode mode, double alpha)
{
  static const int shapes[][2] = {{1, 1}, {1, 2}, {2, 1}, {2, 2}, {1, 4}, {4, 1}, {2, 3}};
  ps_problem pb = problem(mode, 16, alpha);
  size_t count = pb.n[0] * pb.n[1] * pb.n[2], nsum = pb.n[0] + pb.n[1] + pb.n[2];
  double *ref = mc->rank == 0 ? malloc(count * sizeof *ref) : NULL;
  double *u = mc->rank == 0 ? malloc(count * sizeof *u) : NULL, err;
  const char *mname = mode == PS_POISSON ? "Poisson" : "Helmholtz";
  tl_info info;
  tl_info_clear(&info);
  /* The reference: one rank, the OpenMP kernel along z. */
  solve_on(1, 1, &pb, NULL, 0, 1, ref, &err, &info);
  size_t nalg;
  const tl_algorithm *const *reg = tl_mpi_registry(&nalg);
  for (size_t g = 0; g < sizeof shapes / sizeof shapes[0]; g++) {
    int Py = shapes[g][0], Pz = shapes[g][1];
    if (Py * Pz > mc->size)
      continue;
    /* -1: the default algorithm; -2: the transpose route; else reg[k]. */
    for (long k = -2; k < (long)nalg; k++) {
      if (k >= 0 && mode == PS_POISSON)
        continue; /* every algorithm on the dominant Helmholtz systems only */
      const tl_algorithm *algo = k >= 0 ? reg[k] : NULL;
      const char *name = k == -2 ? "transpose route" : algo ? algo->name : "default algorithm";
      mc_case(mc, "%s on %dx%d, %s", mname, Py, Pz, name);
      tl_info_clear(&info);
      int st = solve_on(Py, Pz, &pb, algo, k == -2, 1, u, &err, &info);
      /* The default algorithm must answer; a chosen one may say the
       * systems are outside its domain (then its answer is not judged). */
      int judge = st == TL_OK || (k < 0 && st == TL_OUTSIDE_DOMAIN);
      MC_EXPECT(mc, judge || (k >= 0 && st == TL_OUTSIDE_DOMAIN), "status %s: %s",
                tl_status_name(st), info.msg);
      if (judge && mc->rank == 0) {
        double ratio = roundoff_ratio(u, ref, count, nsum);
        MC_EXPECT(mc, ratio < TL_THRESH, "differs from the 1x1 answer: ratio %.3g", ratio);
      }
      mc_end(mc);
    }
  }
  free(ref);
  free(u);
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  mpi_check mc;
  mc_init(&mc, MPI_COMM_WORLD);
  convergence(&mc, PS_POISSON);
  convergence(&mc, PS_HELMHOLTZ);
  grids(&mc, PS_POISSON, 0);
  grids(&mc, PS_HELMHOLTZ, 1e-3);
  int rc = mc_finish(&mc, "test_mpi_poisson");
  MPI_Finalize();
  return rc;
}
