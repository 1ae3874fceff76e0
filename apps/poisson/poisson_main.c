/* apps/poisson/poisson_main.c -- the mini-app's command (docs/poisson.md):
 *
 *   mpirun -n 4 build/poisson --grid 2x2 --n 64 [--algo NAME]
 *          [--route distributed|transpose] [--mode poisson|helmholtz]
 *          [--alpha A] [--reps R] [--ledger] [--study PREFIX]
 *
 * It solves the manufactured problem, prints the largest error, the time
 * split FFT / transposes / tridiagonal / other (the slowest rank's) and
 * the ledger; --study runs n = 16, 32, 64 and writes the convergence
 * table (PREFIX.csv) and plot (PREFIX.png, with gnuplot).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "poisson.h"

typedef struct args {
  int Py, Pz, reps, ledger, transpose;
  size_t n;
  ps_problem pb;
  const char *algo, *study;
} args;

static int usage(int rank, const char *why)
{
  if (rank == 0)
    fprintf(stderr,
            "poisson: %s\nusage: poisson [--grid PyxPz] [--n N] [--algo NAME] "
            "[--route distributed|transpose] [--mode poisson|helmholtz] [--alpha A] "
            "[--reps R] [--ledger] [--study PREFIX]\n",
            why);
  return 1;
}

static int parse(int argc, char **argv, int size, int rank, args *a)
{
  *a = (args){.Py = 1, .Pz = size, .reps = 3, .n = 32, .pb = {.L = {1, 1, 1}, .alpha = 0.01}};
  for (int k = 1; k < argc; k++) {
    const char *o = argv[k], *v = k + 1 < argc ? argv[k + 1] : NULL;
    if (!strcmp(o, "--ledger"))
      a->ledger = 1;
    else if (!v)
      return usage(rank, "an option without its value");
    else if (!strcmp(o, "--grid") && sscanf(v, "%dx%d", &a->Py, &a->Pz) == 2)
      k++;
    else if (!strcmp(o, "--n") && sscanf(v, "%zu", &a->n) == 1 && a->n >= 4)
      k++;
    else if (!strcmp(o, "--reps") && sscanf(v, "%d", &a->reps) == 1 && a->reps >= 1)
      k++;
    else if (!strcmp(o, "--alpha") && sscanf(v, "%lf", &a->pb.alpha) == 1 && a->pb.alpha > 0)
      k++;
    else if (!strcmp(o, "--algo"))
      a->algo = argv[++k];
    else if (!strcmp(o, "--study"))
      a->study = argv[++k];
    else if (!strcmp(o, "--route") && (!strcmp(v, "distributed") || !strcmp(v, "transpose"))) {
      a->transpose = !strcmp(v, "transpose");
      k++;
    } else if (!strcmp(o, "--mode") && (!strcmp(v, "poisson") || !strcmp(v, "helmholtz"))) {
      a->pb.mode = !strcmp(v, "helmholtz") ? PS_HELMHOLTZ : PS_POISSON;
      k++;
    } else
      return usage(rank, "unknown option or bad value");
  }
  if (a->Py < 1 || a->Pz < 1 || a->Py * a->Pz != size) {
    if (rank == 0)
      fprintf(stderr, "poisson: a %dx%d grid needs %d ranks, mpirun gave %d\n", a->Py, a->Pz,
              a->Py * a->Pz, size);
    return 1;
  }
  if (a->algo && !tl_mpi_find(a->algo)) {
    if (rank == 0) {
      size_t count;
      const tl_algorithm *const *reg = tl_mpi_registry(&count);
      fprintf(stderr, "poisson: unknown algorithm '%s'; the MPI registry has:", a->algo);
      for (size_t k = 0; k < count; k++)
        fprintf(stderr, " %s", reg[k]->name);
      fprintf(stderr, "\n");
    }
    return 1;
  }
  return 0;
}

/* One resolution: n points per period, n - 1 unknowns between the walls
 * (so hz = hx = 1/n on the unit box). Returns the status; *err the error. */
static int run(const args *a, size_t n, int print, double *err)
{
  ps_problem pb = a->pb;
  pb.n[0] = pb.n[1] = n;
  pb.n[2] = n - 1;
  ps_solver s;
  tl_info info;
  tl_info_clear(&info);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int st = ps_create(MPI_COMM_WORLD, a->Py, a->Pz, &pb, a->algo ? tl_mpi_find(a->algo) : NULL,
                     a->transpose, &s, &info);
  if (st < 0) {
    if (rank == 0)
      fprintf(stderr, "poisson: %s\n", info.msg);
    ps_free(&s);
    return st;
  }
  size_t cnt = tl_grid_local_count(&s.gx);
  double *f = malloc((cnt + 1) * sizeof *f), *u = malloc((cnt + 1) * sizeof *u);
  ps_fill_forcing(&s, f);
  ps_times best = {0};
  for (int r = 0; r < a->reps && st >= 0; r++) {
    st = ps_solve(&s, f, u, &info);
    /* The split of the slowest rank, the best of the repetitions. */
    struct {
      double t;
      int rank;
    } mine = {s.t.total, rank}, slowest;
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
    ps_times worst = s.t;
    MPI_Bcast(&worst, 5, MPI_DOUBLE, slowest.rank, MPI_COMM_WORLD);
    if (r == 0 || worst.total < best.total)
      best = worst;
  }
  *err = st >= 0 ? ps_max_error(&s, u) : NAN;
  if (print && rank == 0) {
    /* Which route the z systems took: with Pz = 1 they are whole already. */
    const char *how = a->Pz == 1          ? "OpenMP kernel (z whole on every rank)"
                      : s.transpose_route ? "OpenMP kernel after a transpose (transpose route)"
                                          : "distributed route";
    printf("%s, %zu x %zu x %zu, grid %dx%d (Py x Pz), z systems: %s%s%s\n",
           pb.mode == PS_POISSON ? "Poisson" : "Helmholtz", pb.n[0], pb.n[1], pb.n[2], a->Py, a->Pz,
           a->Pz > 1 && !s.transpose_route ? s.algo->name : "",
           a->Pz > 1 && !s.transpose_route ? ", " : "", how);
    printf("  status %s%s%s\n", tl_status_name(st), info.msg[0] ? ": " : "", info.msg);
    printf("  max |u - exact| = %.3e\n", *err);
    printf("  time per solve (slowest rank, best of %d): total %.3f ms = FFT %.3f + "
           "transposes %.3f + tridiagonal %.3f + other %.3f\n",
           a->reps, 1e3 * best.total, 1e3 * best.fft, 1e3 * best.transpose, 1e3 * best.tridiag,
           1e3 * best.other);
  }
  if (print && rank == 0) { /* the ledger's totals always; every entry on request */
    tl_ledger_totals t, v;
    tl_ledger_split_totals(&s.ledger, -1, &t, &v);
    printf("  ledger of rank 0: algorithm %ld messages, %ld words sent, %ld received, %ld "
           "collectives; verdict %ld messages, %ld words sent, %ld received, %ld collectives%s\n",
           t.messages, t.words_sent, t.words_recv, t.collectives, v.messages, v.words_sent,
           v.words_recv, v.collectives, a->ledger ? "" : " (--ledger: every entry)");
  }
  if (print && a->ledger && rank == 0) {
    printf("  ledger of rank 0 (ranks numbered in its grid lines):\n");
    tl_ledger_print(stdout, &s.ledger, "    ");
  }
  free(f);
  free(u);
  ps_free(&s);
  return st;
}

/* --study: three resolutions, the observed order, a CSV and a plot. */
static int study(const args *a, int rank)
{
  size_t ns[3] = {16, 32, 64};
  double err[3];
  for (int k = 0; k < 3; k++)
    if (run(a, ns[k], 0, &err[k]) < 0)
      return 1;
  if (rank != 0)
    return 0;
  char path[512];
  snprintf(path, sizeof path, "%s.csv", a->study);
  FILE *f = fopen(path, "w");
  printf("   n        h     max error   order\n");
  if (f)
    fprintf(f, "n,h,error,order\n");
  for (int k = 0; k < 3; k++) {
    double order = k ? log(err[k - 1] / err[k]) / log(2.0) : NAN;
    printf("%4zu  %7.5f  %10.3e   %s", ns[k], 1.0 / (double)ns[k], err[k], k ? "" : "-\n");
    if (k)
      printf("%.2f\n", order);
    if (f)
      fprintf(f, "%zu,%.6g,%.6e,%.4f\n", ns[k], 1.0 / (double)ns[k], err[k], order);
  }
  if (f)
    fclose(f);
  /* The plot: a gnuplot script beside the CSV, run when gnuplot is there. */
  snprintf(path, sizeof path, "%s.gp", a->study);
  FILE *gp = fopen(path, "w");
  if (gp) {
    fprintf(gp,
            "set terminal png size 640,480\nset output '%s.png'\nset logscale xy\n"
            "set key left\nset xlabel 'h'\nset ylabel 'max |u - exact|'\n"
            "set datafile separator ','\n"
            "plot '%s.csv' skip 1 using 2:3 with linespoints title 'measured', \\\n"
            "     '%s.csv' skip 1 using 2:(%.6e * ($2 / %.6g)**2) with lines title 'h^2'\n",
            a->study, a->study, a->study, err[0], 1.0 / (double)ns[0]);
    fclose(gp);
  }
  snprintf(path, sizeof path, "gnuplot '%s.gp' 2>/dev/null", a->study);
  if (system(path) == 0)
    printf("wrote %s.csv and %s.png\n", a->study, a->study);
  else
    printf("wrote %s.csv (no gnuplot: no plot)\n", a->study);
  return 0;
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, size, rc;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  args a;
  rc = parse(argc, argv, size, rank, &a);
  if (!rc) {
    double err;
    rc = a.study ? study(&a, rank) : run(&a, a.n, 1, &err) < 0;
  }
  tl_mpi_scratch_release(); /* the line solves' scratch, kept between solves */
  MPI_Finalize();
  return rc;
}
