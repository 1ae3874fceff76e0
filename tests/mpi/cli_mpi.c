/* tests/mpi/cli_mpi.c -- `tridlab-mpi solve` as a user meets it, run
 * through mpirun from this plain program: the answer agrees with the
 * simulated reference; bad input gives ONE line (from rank 0, not one
 * per rank) and the same exit status on every rank; a breakdown exits 2;
 * nothing hangs (every run is under timeout). Prints "N passed, N failed".
 *
 * Environment: TRIDLAB_MPI_CLI (the program), MPIRUN_ENV handled by the
 * Makefile (run as root, oversubscribe). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "system_dir.h"
#include "tridlab/tridlab.h"

static long passed, failed;
static char tmpdir[256];
static int run_limit = 60; /* seconds before timeout stops a run */

#define EXPECT(cond, ...)                                                                       \
  do {                                                                                          \
    if (cond) {                                                                                 \
      passed++;                                                                                 \
    } else {                                                                                    \
      failed++;                                                                                 \
      fprintf(stderr, "FAIL: ");                                                                \
      fprintf(stderr, __VA_ARGS__);                                                             \
      fprintf(stderr, " (%s:%d)\n", __FILE__, __LINE__);                                        \
    }                                                                                           \
  } while (0)

/* Run `mpirun -n P tridlab-mpi ARGS`; its exit status, and the number of
 * lines it wrote on stderr (in *lines) and the first of them. */
static int run(int P, const char *args, int *lines, char *first, size_t first_size)
{
  const char *cli = getenv("TRIDLAB_MPI_CLI");
  char cmd[2048], errpath[512];
  snprintf(errpath, sizeof errpath, "%s/stderr.txt", tmpdir);
  snprintf(cmd, sizeof cmd, "timeout -k 5 %d mpirun -n %d %s %s > %s/stdout.txt 2> %s", run_limit,
           P, cli ? cli : "build/tridlab-mpi", args, tmpdir, errpath);
  int rc = system(cmd);
  FILE *f = fopen(errpath, "r");
  char line[1024];
  *lines = 0;
  if (first_size)
    first[0] = '\0';
  while (f && fgets(line, sizeof line, f)) {
    /* The program's lines; mpirun adds its own banner after a non-zero
     * exit, which is not counted. */
    if (strncmp(line, "tridlab-mpi", 11) != 0)
      continue;
    if (*lines == 0 && first_size)
      snprintf(first, first_size, "%s", line);
    (*lines)++;
  }
  if (f)
    fclose(f);
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : 99;
}

/* A dominant system of n rows in tmpdir/name (b[0] = 0 when broken). */
static void write_system(const char *name, size_t n, size_t nsys, int broken)
{
  char dir[512];
  snprintf(dir, sizeof dir, "%s/%s", tmpdir, name);
  write_system_dir(dir, n, nsys, 5, nsys > 1 ? 2 : 1, broken);
}

int main(void)
{
  snprintf(tmpdir, sizeof tmpdir, "/tmp/tridlab-mpi-cli-XXXXXX");
  if (!mkdtemp(tmpdir)) {
    perror("mkdtemp");
    return 1;
  }
  write_system("sys", 120, 3, 0);
  write_system("small", 2, 1, 0);
  write_system("broken", 90, 2, 1);
  char args[1024], first[1024];
  int lines;

  /* A good solve agrees with the simulated reference on the same slices. */
  snprintf(args, sizeof args, "solve --algo pdd --system %s/sys --out %s/x.npy --quiet", tmpdir,
           tmpdir);
  int rc = run(3, args, &lines, first, sizeof first);
  EXPECT(rc == 0 && lines == 0, "good solve: exit %d, %d stderr lines (%s)", rc, lines, first);
  char path[600];
  snprintf(path, sizeof path, "%s/x.npy", tmpdir);
  tl_npy x;
  tl_system_dir sd;
  tl_info info;
  char sysdir[600];
  snprintf(sysdir, sizeof sysdir, "%s/sys", tmpdir);
  if (tl_npy_read(path, &x, &info) == TL_OK &&
      tl_system_dir_read(sysdir, 0, &sd, &info) == TL_OK) {
    double ratio = tl_residual_ratio(&sd.sys, x.data);
    EXPECT(ratio < TL_THRESH && x.count == 360, "residual ratio %g, %zu entries", ratio, x.count);
    tl_options opt;
    tl_options_init(&opt);
    opt.parts = 3;
    double *xs = malloc(360 * sizeof *xs);
    tl_solve(tl_find("pdd"), &sd.sys, xs, &opt, &info);
    /* Equal to rounding: the ranks' local phase runs through the CPU
     * kernel, which multiplies by reciprocals where the reference divides. */
    double diff = 0, scale = 0;
    for (size_t k = 0; k < 360; k++) {
      diff = fmax(diff, fabs(xs[k] - ((double *)x.data)[k]));
      scale = fmax(scale, fabs(xs[k]));
    }
    EXPECT(diff <= 30 * TL_EPS * scale, "MPI and simulated pdd differ by %g (|x| %g)", diff,
           scale);
    free(xs);
    tl_npy_free(&x);
    tl_system_dir_free(&sd);
  } else {
    EXPECT(0, "could not read back: %s", info.msg);
  }

  /* Bad input: one line, from one rank, exit 1 everywhere. */
  const char *bad[] = {"solve --algo pdd --system %s/none --out %s/y.npy",
                       "solve --algo no_such --system %s/sys --out %s/y.npy",
                       "solve --algo pdd --param tol=-1 --system %s/sys --out %s/y.npy",
                       "solve --algo pdd --system %s/small --out %s/y.npy",
                       "solve --algo pdd --slices 60,60 --system %s/sys --out %s/y.npy",
                       "solve --algo pdd --slices 10,10,99 --system %s/sys --out %s/y.npy"};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    snprintf(args, sizeof args, bad[k], tmpdir, tmpdir);
    rc = run(3, args, &lines, first, sizeof first);
    EXPECT(rc == 1 && lines == 1 && strncmp(first, "tridlab-mpi: ", 13) == 0,
           "'%s': exit %d, %d lines, first '%s'", args, rc, lines, first);
  }

  /* A breakdown: exit 2, one line naming the row. */
  snprintf(args, sizeof args, "solve --algo rpdd --system %s/broken --out %s/y.npy", tmpdir,
           tmpdir);
  rc = run(4, args, &lines, first, sizeof first);
  EXPECT(rc == 2 && lines == 1 && strstr(first, "breakdown") && strstr(first, "row 0"),
         "breakdown: exit %d, %d lines, '%s'", rc, lines, first);

  rc = run(2, "solve --help", &lines, first, sizeof first);
  EXPECT(rc == 0 && lines == 0, "--help: exit %d", rc);
  rc = run(2, "verify --algo pdd --sizes 64 --nsys 2", &lines, first, sizeof first);
  EXPECT(rc == 0, "verify: exit %d (%s)", rc, first);

  /* The bench as a program that runs, not a timing: every algorithm and
   * the packed kernel give a row with a status and a finite residual, the
   * ping-pong its model row; a bad option is one message, exit 1. */
  snprintf(args, sizeof args,
           "bench --n 64 --unknowns 4096 --reps 1 --pingpong-max 1048576 --csv %s/bench.csv "
           "--plot %s/bench",
           tmpdir, tmpdir);
  run_limit = 300; /* a sanitized build on a loaded machine is slow */
  rc = run(2, args, &lines, first, sizeof first);
  run_limit = 60;
  EXPECT(rc == 0, "bench: exit %d (%s)", rc, first);
  char row[1024];
  snprintf(path, sizeof path, "%s/bench.csv", tmpdir);
  FILE *csv = fopen(path, "r");
  int mpi_rows = 0, ok_rows = 0, openmp_rows = 0, model_rows = 0;
  while (csv && fgets(row, sizeof row, csv)) {
    mpi_rows += !strncmp(row, "mpi,", 4);
    ok_rows += !strncmp(row, "mpi,", 4) && strstr(row, ",ok,") != NULL;
    openmp_rows += !strncmp(row, "openmp,", 7);
    model_rows += !strncmp(row, "alpha_beta,", 11);
  }
  if (csv)
    fclose(csv);
  /* The MPI algorithms, as `tridlab-mpi list` names them (after the
   * registry, a header line "MPI algorithm ...", then one line each). */
  size_t nalgo = 0;
  int in_mpi = 0;
  run(1, "list", &lines, first, sizeof first);
  snprintf(path, sizeof path, "%s/stdout.txt", tmpdir);
  FILE *list = fopen(path, "r");
  while (list && fgets(row, sizeof row, list)) {
    nalgo += in_mpi;
    in_mpi |= !strncmp(row, "MPI algorithm", 13);
  }
  if (list)
    fclose(list);
  EXPECT(mpi_rows == (int)nalgo && ok_rows == mpi_rows && openmp_rows == 1 && model_rows == 1,
         "bench CSV: %d mpi rows (%d ok) of %zu algorithms, %d openmp, %d model", mpi_rows,
         ok_rows, nalgo, openmp_rows, model_rows);
  /* --compact: DistD2's compact entry (two ways) and the fused kernel,
   * rows with a status (128 rows per rank: DistD2 drops nothing). */
  snprintf(args, sizeof args,
           "bench --n 256 --unknowns 8192 --reps 1 --algo pdd --no-packed --no-pingpong --compact "
           "--csv %s/compact.csv",
           tmpdir);
  rc = run(2, args, &lines, first, sizeof first);
  EXPECT(rc == 0, "bench --compact: exit %d (%s)", rc, first);
  snprintf(path, sizeof path, "%s/compact.csv", tmpdir);
  int compact_ok = 0;
  if ((csv = fopen(path, "r")) != NULL) {
    while (fgets(row, sizeof row, csv))
      compact_ok += (!strncmp(row, "mpi-compact,", 12) || !strncmp(row, "openmp-compact,", 15)) &&
                    strstr(row, ",ok,") != NULL;
    fclose(csv);
  }
  EXPECT(compact_ok == 3, "bench --compact: %d of 3 compact rows ok", compact_ok);
  rc = run(2, "bench --reps 0", &lines, first, sizeof first);
  EXPECT(rc == 1 && lines == 1 && strstr(first, "--reps"), "bench --reps 0: exit %d, %d lines",
         rc, lines);

  char rm[512];
  snprintf(rm, sizeof rm, "rm -rf %s", tmpdir);
  if (system(rm) != 0)
    fprintf(stderr, "could not remove %s\n", tmpdir);
  printf("cli_mpi: %ld passed, %ld failed\n", passed, failed);
  return failed ? 1 : 0;
}
