/* tests/mpi/cli_args_mpi.c -- `tridlab-mpi solve` on P ranks (the one
 * argument) given every kind of bad argument its options take: missing
 * and unknown options, a bad --algo, a missing or malformed system
 * directory, bad --slices (the wrong count for P, zero, too small for
 * the algorithm, a sum other than n, sizes whose sum wraps around to n,
 * not numbers, negative, empty), a bad --param, an --out that cannot be
 * written. Every run must end on every rank -- none killed by a signal,
 * none left waiting for another (each run is under timeout) -- with the
 * same exit status 1 on every rank and one line on stderr, from rank 0,
 * that names the problem. One good run with explicit slices shows the
 * checks let valid slices through. Prints "N passed, N failed".
 *
 * Each rank runs inside `sh -c` so that its own exit status and stderr
 * land in files of their own (rc.R, err.R; R from OMPI_COMM_WORLD_RANK):
 * mpirun alone reports only the first rank that failed. The shell then
 * exits 0: a non-zero exit makes mpirun end the other ranks, which could
 * be killed before they write their status (and that abort costs mpirun
 * about 2 s a run). A rank that crashes leaves the others waiting, and
 * timeout ends the run.
 *
 * Environment: TRIDLAB_MPI_CLI (the program), and the Makefile's MPI
 * environment (run as root). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "system_dir.h"
#include "tridlab/tridlab.h"

#define N 20 /* rows of the test system */

static long passed, failed;
static char tmpdir[256];
static const int run_limit = 30; /* seconds before timeout stops a run */

/* Run `mpirun -n P tridlab-mpi ARGS`, each rank writing its exit status
 * to tmpdir/rc.R and its stderr to tmpdir/err.R; mpirun's exit status
 * (124 or 137: the run timed out; else 0 unless mpirun itself failed). */
static int run(int P, const char *args)
{
  const char *cli = getenv("TRIDLAB_MPI_CLI");
  char path[512];
  for (int r = 0; r < P; r++) { /* no leftovers from the run before */
    snprintf(path, sizeof path, "%s/rc.%d", tmpdir, r);
    remove(path);
    snprintf(path, sizeof path, "%s/err.%d", tmpdir, r);
    remove(path);
  }
  static char cmd[8192];
  snprintf(cmd, sizeof cmd,
           "timeout -k 5 %d mpirun --oversubscribe -n %d sh -c 'r=$OMPI_COMM_WORLD_RANK; "
           "\"$0\" \"$@\" > %s/out.$r 2> %s/err.$r; echo $? > %s/rc.$r' %s %s "
           "> %s/mpirun.txt 2>&1",
           run_limit, P, tmpdir, tmpdir, tmpdir, cli ? cli : "build/tridlab-mpi", args, tmpdir);
  int rc = system(cmd);
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : 99;
}

/* Rank r's exit status, -1 when it wrote none (killed, or still waiting
 * when the run timed out). */
static int rank_status(int r)
{
  char path[512];
  snprintf(path, sizeof path, "%s/rc.%d", tmpdir, r);
  FILE *f = fopen(path, "r");
  int s = -1;
  if (f && fscanf(f, "%d", &s) != 1)
    s = -1;
  if (f)
    fclose(f);
  return s;
}

/* The lines rank r wrote on stderr; the first in `first`. */
static int rank_lines(int r, char *first, size_t size)
{
  char path[512], line[1024];
  snprintf(path, sizeof path, "%s/err.%d", tmpdir, r);
  FILE *f = fopen(path, "r");
  int lines = 0;
  first[0] = '\0';
  while (f && fgets(line, sizeof line, f)) {
    if (lines++ == 0)
      snprintf(first, size, "%s", line);
  }
  if (f)
    fclose(f);
  first[strcspn(first, "\n")] = '\0';
  return lines;
}

/* What is wrong with the run just made (bad input expected: exit 1 on
 * every rank, one line from rank 0 containing `says`), in why; 0 if
 * nothing is. */
static int judge_bad(int P, int rc, const char *says, char *why, size_t size)
{
  char first[1024];
  if (rc == 124 || rc == 137)
    return snprintf(why, size, "timed out after %d s: a rank waits for another", run_limit);
  for (int r = 0; r < P; r++) {
    int s = rank_status(r);
    if (s != 1)
      return s < 0 ? snprintf(why, size, "rank %d wrote no exit status: it was killed", r)
                   : snprintf(why, size, "rank %d exited with %d%s", r, s,
                              s > 128 ? " (a signal)" : "");
  }
  if (rc != 0)
    return snprintf(why, size, "mpirun exited with %d", rc);
  int lines = rank_lines(0, first, sizeof first);
  if (lines != 1 || strncmp(first, "tridlab-mpi: ", 13) != 0 || !strstr(first, says))
    return snprintf(why, size, "rank 0 wrote %d lines, the first '%s', not one saying '%s'", lines,
                    first, says);
  for (int r = 1; r < P; r++)
    if (rank_lines(r, first, sizeof first))
      return snprintf(why, size, "rank %d wrote '%s': rank 0 speaks for all", r, first);
  return 0;
}

/* One bad run: `solve ARGS` must fail as judge_bad says. */
static void expect_bad(int P, const char *label, const char *args, const char *says)
{
  char full[4200], why[1200];
  snprintf(full, sizeof full, "solve %s", args);
  int rc = run(P, full);
  if (!judge_bad(P, rc, says, why, sizeof why)) {
    passed++;
    return;
  }
  failed++;
  fprintf(stderr, "FAIL: P=%d, %s: %s\n  (solve %.300s)\n", P, label, why, args);
}

/* One good run: every rank exits 0 and nothing is written on stderr. */
static void expect_good(int P, const char *label, const char *args)
{
  char full[4200], first[1024];
  snprintf(full, sizeof full, "solve %s", args);
  int rc = run(P, full), ok = rc == 0;
  for (int r = 0; r < P && ok; r++)
    ok = rank_status(r) == 0 && rank_lines(r, first, sizeof first) == 0;
  if (ok) {
    passed++;
    return;
  }
  failed++;
  rank_lines(0, first, sizeof first);
  fprintf(stderr, "FAIL: P=%d, %s: mpirun exit %d, rank 0 said '%s'\n", P, label, rc, first);
}

/* A strictly dominant batch of nsys systems of n rows in tmpdir/name. */
static void write_system(const char *name, size_t n, size_t nsys)
{
  char dir[512];
  snprintf(dir, sizeof dir, "%s/%s", tmpdir, name);
  write_system_dir(dir, n, nsys, 7, 2, 0);
}

/* A copy of tmpdir/sys whose a.npy is not an .npy file. */
static void write_malformed(const char *name)
{
  char path[600];
  write_system(name, N, 2);
  snprintf(path, sizeof path, "%s/%s/a.npy", tmpdir, name);
  FILE *f = fopen(path, "w");
  if (f) {
    fputs("not an npy file\n", f);
    fclose(f);
  }
}

/* "--slices HEAD,2,...,2,L": HEAD as given (comma-separated, may be
 * empty), then 2s and a last value L, P values in all, the ones after
 * HEAD adding up to `tail`. */
static const char *slices(int P, const char *head, size_t tail)
{
  static char s[1024];
  int given = *head != '\0';
  for (const char *c = head; *c; c++)
    given += *c == ',';
  int k = snprintf(s, sizeof s, "--slices %s", head);
  for (int r = given; r < P; r++) {
    size_t v = r + 1 < P ? 2 : tail - 2 * (size_t)(P - 1 - given);
    k += snprintf(s + k, sizeof s - (size_t)k, "%s%zu", r ? "," : "", v);
  }
  return s;
}

/* The bad-argument runs on P ranks. */
static void bad_arguments(int P)
{
  char sys[600], args[4096], ok[700];
  snprintf(sys, sizeof sys, "--system %s/sys --out %s/x.npy", tmpdir, tmpdir);
  snprintf(ok, sizeof ok, "--algo pdd %s", sys);

  /* Options. */
  expect_bad(P, "no options", "", "are required");
  snprintf(args, sizeof args, "%s --bogus", ok);
  expect_bad(P, "unknown option", args, "unknown option '--bogus'");
  snprintf(args, sizeof args, "%s --algo", sys);
  expect_bad(P, "option without its value", args, "--algo needs a value");
  snprintf(args, sizeof args, "--algo no_such %s", sys);
  expect_bad(P, "unknown algorithm", args, "no MPI algorithm named 'no_such'");
  snprintf(args, sizeof args, "--algo pdd --system %s/none --out %s/x.npy", tmpdir, tmpdir);
  expect_bad(P, "missing system directory", args, "none");
  snprintf(args, sizeof args, "--algo pdd --system %s/malformed --out %s/x.npy", tmpdir, tmpdir);
  expect_bad(P, "malformed system directory", args, "a.npy");
  snprintf(args, sizeof args, "%s --param no_such=1", ok);
  expect_bad(P, "unknown parameter", args, "no_such");
  snprintf(args, sizeof args, "%s --param tol=-1", ok);
  expect_bad(P, "bad parameter value", args, "tol");
  snprintf(args, sizeof args, "--algo pdd --system %s/sys --out %s/no_dir/x.npy", tmpdir, tmpdir);
  expect_bad(P, "unwritable --out", args, "no_dir");
  snprintf(args, sizeof args, "--algo ptdma %s --gpu", sys);
  expect_bad(P, "--gpu for an algorithm without a GPU version", args,
             "has no version on the GPU kernels (those with one: pdd_gpu_mpi, "
             "distd2_gpu_mpi)");

  /* --slices that do not parse. */
  snprintf(args, sizeof args, "%s --slices ''", ok);
  expect_bad(P, "empty --slices", args, "--slices is empty");
  snprintf(args, sizeof args, "%s --slices", ok);
  expect_bad(P, "--slices without its value", args, "--slices needs a value");
  snprintf(args, sizeof args, "%s %s", ok, slices(P, "0", N));
  expect_bad(P, "a zero slice", args, "positive integers");
  snprintf(args, sizeof args, "%s %s", ok, slices(P, "x", N));
  expect_bad(P, "not a number", args, "positive integers");
  snprintf(args, sizeof args, "%s %s", ok, slices(P, "-10", N));
  expect_bad(P, "a negative slice", args, "must be positive");
  snprintf(args, sizeof args, "%s %s", ok, slices(P, "' -10'", N));
  expect_bad(P, "a blank, then a negative slice", args, "positive integers");
  snprintf(args, sizeof args, "%s %s", ok, slices(P, "99999999999999999999999", N));
  expect_bad(P, "a slice beyond 64 bits", args, "positive integers");

  /* --slices that parse but do not fit. */
  snprintf(args, sizeof args, "%s %s,1", ok, slices(P, "", N));
  expect_bad(P, "one slice too many", args, "sizes for");
  snprintf(args, sizeof args, "%s %s", ok, slices(P, "", N - 1));
  expect_bad(P, "slices adding up to n - 1", args, "add up to 19 rows");
  snprintf(args, sizeof args, "%s %s", ok, slices(P, "", 2 * (size_t)(P - 1) + 1000000));
  expect_bad(P, "a slice past n", args, "1000000 rows");
  /* SIZE_MAX + (n + 1) wraps around to n. */
  snprintf(args, sizeof args, "%s %s", ok, slices(P, "18446744073709551615", N + 1));
  expect_bad(P, "slices whose sum wraps around to n", args, "18446744073709551615 rows");
  if (P >= 2) {
    snprintf(args, sizeof args, "--algo ptdma %s %s", sys, slices(P, "1", N - 1));
    expect_bad(P, "a slice below the algorithm's smallest", args, "needs at least 2");
    snprintf(args, sizeof args, "--algo pdd --system %s/tiny --out %s/x.npy", tmpdir, tmpdir);
    expect_bad(P, "fewer rows than ranks", args, "too small for");
  }
  if (P >= 3) {
    snprintf(args, sizeof args, "%s %s", ok, slices(P, "2,18446744073709551615", N - 1));
    expect_bad(P, "a slice past n in the middle", args, "18446744073709551615 rows");
  }

  /* The checks let valid slices through: slices of 2 rows, ptdma's
   * smallest (an exact solver: PDD drops spikes on slices this thin). */
  snprintf(args, sizeof args, "--algo ptdma %s --quiet %s", sys, slices(P, "", N));
  expect_good(P, "valid uneven slices", args);
  /* --gpu: pdd's version on the GPU kernels (pdd_gpu_mpi); on 1 or 2
   * ranks, where the 20 rows make slices long enough for PDD's spikes to
   * decay below tol (on more, its warning says they do not: right). */
  snprintf(args, sizeof args, "--algo pdd --gpu %s --quiet", sys);
  if (P <= 2)
    expect_good(P, "--gpu", args);
  /* --gpu: distd2's (distd2_gpu_mpi) on 1 rank, where nothing is dropped
   * (on 2, the 10-row slices drop a coupling of 8.6e-12 > tol: outside
   * the domain, a warning, right). */
  snprintf(args, sizeof args, "--algo distd2 --gpu %s --quiet", sys);
  if (P == 1)
    expect_good(P, "--gpu --algo distd2", args);
}

int main(int argc, char **argv)
{
  int P = argc > 1 ? atoi(argv[1]) : 0;
  if (P < 1 || P > 64) {
    fprintf(stderr, "usage: cli_args_mpi P (the number of ranks, 1 to 64)\n");
    return 2;
  }
  snprintf(tmpdir, sizeof tmpdir, "/tmp/tridlab-mpi-args-XXXXXX");
  if (!mkdtemp(tmpdir)) {
    perror("mkdtemp");
    return 1;
  }
  write_system("sys", N, 2);
  write_system("tiny", 1, 1);
  write_malformed("malformed");
  bad_arguments(P);
  char rm[512];
  snprintf(rm, sizeof rm, "rm -rf %s", tmpdir);
  if (system(rm) != 0)
    fprintf(stderr, "could not remove %s\n", tmpdir);
  printf("cli_args_mpi on %d ranks: %ld passed, %ld failed\n", P, passed, failed);
  return failed ? 1 : 0;
}
