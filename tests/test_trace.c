/* tests/test_trace.c -- `tridlab trace` (docs/trace.md): a tracer drives
 * the same phase functions as the one-call solve, so its x and its ledger
 * are the solve's bit for bit; and the printed trace of a fixed small
 * case, one algorithm per family (direct, cyclic reduction, partition
 * with spikes, partition with a reduced system), is the stored text in
 * tests/trace/. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_helpers.h"
#include "tridlab/tridlab.h"

static void count_stage(const tl_trace_stage *st, void *ctx)
{
  int *count = ctx;
  cr_expect_eq(st->index, *count, "stages come in order");
  (*count)++;
}

/* Trace and solve the same gallery problem with the parameters `param`
 * ("key=value,key=value", or NULL); same status, same x, same ledger. */
static void expect_same_with(const char *name, const char *param, int type, size_t n, int parts)
{
  const tl_algorithm *algo = tl_find(name);
  tl_problem p;
  tl_info info;
  cr_assert_eq(tl_gallery_make(type, n, 1, 2026, &p, &info), TL_OK);
  tl_ledger lt, ls;
  tl_ledger_init(&lt);
  tl_ledger_init(&ls);
  tl_options opt;
  tl_options_init(&opt);
  opt.parts = parts;
  char kv[128];
  snprintf(kv, sizeof kv, "%s", param ? param : "");
  for (char *save, *one = strtok_r(kv, ",", &save); one; one = strtok_r(NULL, ",", &save))
    cr_assert_eq(tl_options_set_param_kv(&opt, algo, one, &info), TL_OK, "%s", info.msg);
  double *xt = calloc(n, sizeof *xt), *xs = calloc(n, sizeof *xs);
  int stages = 0;
  int st_trace = tl_trace_run(algo, &p.sys, &opt, count_stage, &stages, &lt, xt, &info);
  opt.ledger = &ls;
  tl_info info2;
  int st_solve = tl_solve(algo, &p.sys, xs, &opt, &info2);
  cr_expect_eq(st_trace, st_solve, "%s %s type %d n %zu P %d: status", name, param ? param : "",
               type, n, parts);
  /* No stage where the solve refused the arguments: there is nothing to watch. */
  int refused = st_solve == TL_ERR_ARG || st_solve == TL_ERR_UNSUPPORTED;
  if (refused)
    cr_expect_eq(stages, 0, "%s %s n %zu P %d: stages of a refused solve", name, param ? param : "",
                 n, parts);
  else
    cr_expect_geq(stages, tl_status_has_solution(st_solve) ? 2 : 1, "%s: stages", name);
  if (tl_status_has_solution(st_solve))
    cr_expect_eq(memcmp(xt, xs, n * sizeof *xt), 0, "%s %s type %d n %zu P %d: x differs", name,
                 param ? param : "", type, n, parts);
  char why[256];
  cr_expect(tl_ledger_equal(&lt, &ls, why, sizeof why), "%s %s type %d n %zu P %d ledger: %s", name,
            param ? param : "", type, n, parts, why);
  free(xt);
  free(xs);
  tl_ledger_free(&lt);
  tl_ledger_free(&ls);
  tl_problem_free(&p);
}

static void expect_same_as_solve(const char *name, int type, size_t n, int parts)
{
  expect_same_with(name, NULL, type, n, parts);
}

Test(trace, x_and_ledger_are_the_solves)
{
  static const int types[] = {20, 22, 23, 34, 2};
  static const size_t sizes[] = {1, 2, 5, 9, 17, 40};
  for (size_t t = 0; t < 5; t++)
    for (size_t k = 0; k < 6; k++) {
      expect_same_as_solve("thomas", types[t], sizes[k], 1);
      expect_same_as_solve("pcr", types[t], sizes[k], 1);
      expect_same_as_solve("cr", types[t], sizes[k], 1);
      expect_same_as_solve("jacobi", types[t], sizes[k], 1);
      expect_same_with("jacobi", "maxit=3", types[t], sizes[k], 1);
      expect_same_with("jacobi", "tol=0.01", types[t], sizes[k], 1); /* within the drawn sweeps */
      for (int P = 1; P <= 4 && (size_t)P <= sizes[k]; P++) {
        expect_same_as_solve("pdd", types[t], sizes[k], P);
        expect_same_as_solve("rpdd", types[t], sizes[k], P);
        expect_same_with("rpdd", "J=2", types[t], sizes[k], P);
        expect_same_as_solve("its", types[t], sizes[k], P);
        expect_same_as_solve("nshaped", types[t], sizes[k], P);
        expect_same_with("nshaped", "levels=2", types[t], sizes[k], P);
        if (sizes[k] < 2 * (size_t)P)
          continue;
        expect_same_as_solve("distd2", types[t], sizes[k], P);
        expect_same_as_solve("hybrid_pcr", types[t], sizes[k], P);
        expect_same_with("ptdma", "flavour=split", types[t], sizes[k], P);
        expect_same_with("ptdma", "flavour=combined", types[t], sizes[k], P);
        static const char *const reduced[] = {"reduced=allgather", "reduced=gather_scatter",
                                              "reduced=pcr", "reduced=jacobi",
                                              "reduced=jacobi,iters=3"};
        for (size_t r = 0; r < 5; r++)
          expect_same_with("tridsolver", reduced[r], types[t], sizes[k], P);
      }
    }
}

Test(trace, periodic_thomas_is_the_solves)
{
  static const int types[] = {50, 51, 52, 56, 57};
  static const size_t sizes[] = {1, 2, 3, 5, 9, 17, 40};
  for (size_t t = 0; t < 5; t++)
    for (size_t k = 0; k < 7; k++)
      expect_same_as_solve("thomas_periodic", types[t], sizes[k], 1);
}

Test(trace, unsupported_cases_say_so)
{
  tl_problem p;
  tl_info info;
  double x[8];
  cr_assert_eq(tl_gallery_make(50, 8, 1, 2026, &p, &info), TL_OK);
  cr_expect_eq(tl_trace_run(tl_find("thomas"), &p.sys, NULL, NULL, NULL, NULL, x, &info),
               TL_ERR_UNSUPPORTED, "periodic");
  tl_problem_free(&p);
  cr_assert_eq(tl_gallery_make(20, 8, 1, 2026, &p, &info), TL_OK);
  cr_expect_eq(tl_trace_run(tl_find("gtsv"), &p.sys, NULL, NULL, NULL, NULL, x, &info),
               TL_ERR_UNSUPPORTED);
  cr_expect_not_null(strstr(info.msg, "it traces:"), "%s", info.msg);
  cr_expect_eq(tl_trace_run(tl_find("thomas_periodic"), &p.sys, NULL, NULL, NULL, NULL, x, &info),
               TL_ERR_UNSUPPORTED, "a plain system");
  tl_problem_free(&p);
}

/* The command's output against the stored text. */
static void expect_text(const char *args, const char *expected)
{
  char dir[256], out[300], cmd[1024];
  cli_tmpdir(dir, sizeof dir, "trace");
  snprintf(out, sizeof out, "%s/out.txt", dir);
  snprintf(cmd, sizeof cmd, ">%s 2>&1", out);
  cr_assert_eq(cli_run(args, cmd), 0, "tridlab %s", args);
  snprintf(cmd, sizeof cmd, "diff -u %s %s >&2", expected, out);
  cr_expect_eq(system(cmd), 0, "tridlab %s differs from %s", args, expected);
  cli_rmdir(dir);
}

Test(trace, printed_trace_of_each_family_is_the_stored_text)
{
  expect_text("trace --algo thomas --n 5 --type 23", "tests/trace/thomas-n5.txt");
  expect_text("trace --algo pcr --n 6 --type 23", "tests/trace/pcr-n6.txt");
  expect_text("trace --algo pdd --n 9 --parts 3 --type 23", "tests/trace/pdd-n9-p3.txt");
  expect_text("trace --algo tridsolver --n 9 --parts 3 --type 23",
              "tests/trace/tridsolver-n9-p3.txt");
}

/* The whole text of a file (at most size - 1 bytes). */
static void read_text(const char *path, char *buf, size_t size)
{
  FILE *f = fopen(path, "r");
  cr_assert_not_null(f, "%s", path);
  size_t got = fread(buf, 1, size - 1, f);
  buf[got] = '\0';
  fclose(f);
}

/* A solve refused before it ran (5 partitions of 4 rows) prints its
 * error and nothing after it: no header, no stage, no summary. */
Test(trace, a_refused_solve_prints_only_its_error)
{
  char dir[256], out[300], err[300], cmd[700], text[1024];
  cli_tmpdir(dir, sizeof dir, "trace");
  snprintf(out, sizeof out, "%s/out.txt", dir);
  snprintf(err, sizeof err, "%s/err.txt", dir);
  snprintf(cmd, sizeof cmd, ">%s 2>%s", out, err);
  cr_expect_eq(cli_run("trace --algo pdd --n 4 --parts 5", cmd), 1, "exit status");
  read_text(out, text, sizeof text);
  cr_expect_str_empty(text, "stdout: %s", text);
  read_text(err, text, sizeof text);
  cr_expect_str_eq(text,
                   "tridlab: n = 4 is too small for 5 partitions: pdd needs at least 1 row per "
                   "partition\n");
  cli_rmdir(dir);
}

/* PDD's bound holds for a strictly row-dominant A only: on toeplitz-1.5
 * the verdict says there is none, and why, rather than "bound 0". */
Test(trace, pdd_on_a_non_dominant_matrix_states_no_bound)
{
  char dir[256], out[300], cmd[700], text[16384];
  cli_tmpdir(dir, sizeof dir, "trace");
  snprintf(out, sizeof out, "%s/out.txt", dir);
  snprintf(cmd, sizeof cmd, ">%s 2>&1", out);
  cr_expect_eq(cli_run("trace --algo pdd --type 25 --n 12 --seed 7", cmd), 0);
  read_text(out, text, sizeof text);
  cr_expect_not_null(strstr(text, "  dropped 1.45 against tol 2.22e-16, no bound (A is not "
                                  "strictly row-dominant: row 1): outside-domain\n"),
                     "%s", text);
  cr_expect_null(strstr(text, "bound 0"), "%s", text);
  cli_rmdir(dir);
}
