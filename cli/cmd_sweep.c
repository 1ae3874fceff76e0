/* cli/cmd_sweep.c -- `tridlab sweep`: truncation-error studies of the
 * approximate partition algorithms (docs/sweeps.md). The studies, their
 * defaults and their files are the library's (tridlab/study.h); this file
 * parses the options and prints the tables, findings and what was
 * written. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tridlab/study.h"
#include "tridlab/tridlab.h"

/* ---------------------------------------------------------------- */
/* The command                                                       */

static void sweep_usage(FILE *out)
{
  fprintf(out, "usage: tridlab sweep STUDY|all [options]\n"
               "       tridlab sweep --study STUDY [options]\n"
               "\n"
               "Truncation-error studies of the approximate partition algorithms. Each study\n"
               "prints a table, writes STUDY.csv, and a gnuplot script (.gp) with its data (.dat)\n"
               "and the plot (.png, made when gnuplot is installed; else said on stderr) into the\n"
               "output directory, and ends with a short summary of what it found.\n"
               "\n"
               "studies:\n");
  const tl_study *s;
  for (size_t k = 0; (s = tl_study_get(k)); k++)
    if (s->kind == TL_STUDY_SWEEP)
      fprintf(out, "  %-15s %s\n", s->name, s->summary);
  fprintf(out,
          "  %-15s every study above, with their defaults\n"
          "\n"
          "options:\n"
          "  --out DIR          output directory (default sweep/), created if missing\n"
          "  --quick            smaller sizes (its-n to n = 6144, fewer lambdas and m)\n"
          "  --no-plot          write the .dat and .gp files but do not run gnuplot\n"
          "options of one study (an option a study does not take is an error):\n"
          "  --n N              its-compact (252), its-nonconst (1000): system size\n"
          "  --parts P          partitions: its-compact 3, its-nonconst 4, its-n 3,\n"
          "                     dominance 4 (at least 3), jacobi-reduced 16\n"
          "  --J J1,J2,...      its-compact, its-nonconst: J = 1..30; its-n: 7,15,27\n"
          "  --nmin N --nmax N  its-n: n = nmin, 2 nmin, ... <= nmax (96 .. 98304)\n"
          "  --lambda L1,...    tridiag(1, lambda, 1), each > 2: bondeli (40 values, 2.01 ..\n"
          "                     10), dominance (2.05 .. 8, 12 values), jacobi-reduced\n"
          "                     (2.05,2.5,4)\n"
          "  --eps-c E1,...     bondeli: cut-off thresholds (1e-4,1e-8,1e-12,1e-15)\n"
          "  --m M1,...         rows per partition: dominance (2,4,...,256), jacobi-reduced\n"
          "                     (4,16)\n"
          "  --rpdd-J J         dominance: J of the fixed-J RPDD series (8; 0: no such series)\n"
          "  --kmax K           jacobi-reduced: K = 1 .. K sweeps (40)\n"
          "  --seed S           dominance, jacobi-reduced: seed of x_exact (2026)\n"
          "\n"
          "Statuses in the tables: * outside-domain (solved; the algorithm dropped more than\n"
          "its tolerance or the matrix is outside its class), ! failed (no solution; the\n"
          "CSV has the message).\n"
          "\n"
          "exit status:\n"
          "  0  the studies ran (rows where a solver failed are marked, not fatal)\n"
          "  1  bad usage (the message names the option), or a file could not be written\n"
          "\n"
          "examples:\n"
          "  tridlab sweep its-compact --out sweep\n"
          "  tridlab sweep dominance --lambda 2.05,3,8 --m 8,16,32,64 --parts 8\n"
          "  tridlab sweep all --quick --out sweep-quick\n",
          "all");
}

static int parse_reals(const char *s, const char *what, double *out, size_t cap, size_t *count)
{
  size_t k = 0;
  const char *p = s;
  while (*p) {
    char *end = NULL;
    double v = strtod(p, &end);
    if (end == p || !isfinite(v) || !(v > 0.0) || (*end != ',' && *end != '\0')) {
      cli_error("%s must be a comma-separated list of positive numbers, got '%s'", what, s);
      return -1;
    }
    if (k == cap) {
      cli_error("%s: at most %zu values", what, cap);
      return -1;
    }
    out[k++] = v;
    p = *end == ',' ? end + 1 : end;
  }
  if (!k) {
    cli_error("%s is empty", what);
    return -1;
  }
  *count = k;
  return 0;
}

/* 0 to go on; else the exit status + 1 (help: 0 + 1). */
static int parse_sweep_args(int argc, char **argv, tl_study_args *sa, const char **name)
{
  long lv;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i], *v;
    if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
      sweep_usage(stdout);
      return 0 + 1;
    } else if (arg[0] != '-') {
      if (*name) {
        cli_error("sweep: one study at a time ('%s' and '%s')", *name, arg);
        return EXIT_BAD_INPUT + 1;
      }
      *name = arg;
    } else if (cli_is(arg, "--study")) {
      if (!(v = cli_value(argc, argv, &i, "--study")))
        return EXIT_BAD_INPUT + 1;
      if (*name) {
        cli_error("sweep: one study at a time ('%s' and '%s')", *name, v);
        return EXIT_BAD_INPUT + 1;
      }
      *name = v;
    } else if (!strcmp(arg, "--quick")) {
      sa->quick = 1;
    } else if (!strcmp(arg, "--no-plot")) {
      sa->plot = 0;
    } else if (cli_is(arg, "--out")) {
      if (!(sa->out = cli_value(argc, argv, &i, "--out")))
        return EXIT_BAD_INPUT + 1;
    } else if (cli_is(arg, "--n")) {
      if (!(v = cli_value(argc, argv, &i, "--n")) || cli_parse_int(v, "--n", 3, 100000000L, &lv))
        return EXIT_BAD_INPUT + 1;
      sa->n = lv;
      sa->given |= TL_STUDY_OPT_N;
    } else if (cli_is(arg, "--parts")) {
      if (!(v = cli_value(argc, argv, &i, "--parts")) ||
          cli_parse_int(v, "--parts", 1, TL_MAX_PARTS, &lv))
        return EXIT_BAD_INPUT + 1;
      sa->parts = lv;
      sa->given |= TL_STUDY_OPT_PARTS;
    } else if (cli_is(arg, "--J")) {
      if (!(v = cli_value(argc, argv, &i, "--J")) ||
          cli_parse_sizes(v, "--J", sa->J, TL_STUDY_MAX_LIST, &sa->nJ))
        return EXIT_BAD_INPUT + 1;
      sa->given |= TL_STUDY_OPT_J;
    } else if (cli_is(arg, "--m")) {
      if (!(v = cli_value(argc, argv, &i, "--m")) ||
          cli_parse_sizes(v, "--m", sa->m, TL_STUDY_MAX_LIST, &sa->nm))
        return EXIT_BAD_INPUT + 1;
      sa->given |= TL_STUDY_OPT_M;
    } else if (cli_is(arg, "--lambda")) {
      if (!(v = cli_value(argc, argv, &i, "--lambda")) ||
          parse_reals(v, "--lambda", sa->lambda, TL_STUDY_MAX_LIST, &sa->nlambda))
        return EXIT_BAD_INPUT + 1;
      sa->given |= TL_STUDY_OPT_LAMBDA;
    } else if (cli_is(arg, "--eps-c")) {
      if (!(v = cli_value(argc, argv, &i, "--eps-c")) ||
          parse_reals(v, "--eps-c", sa->eps_c, TL_STUDY_MAX_LIST, &sa->neps))
        return EXIT_BAD_INPUT + 1;
      sa->given |= TL_STUDY_OPT_EPS;
    } else if (cli_is(arg, "--nmin") || cli_is(arg, "--nmax")) {
      int is_min = cli_is(arg, "--nmin");
      const char *o = is_min ? "--nmin" : "--nmax";
      if (!(v = cli_value(argc, argv, &i, o)) || cli_parse_int(v, o, 3, 100000000L, &lv))
        return EXIT_BAD_INPUT + 1;
      *(is_min ? &sa->nmin : &sa->nmax) = (size_t)lv;
      sa->given |= TL_STUDY_OPT_NRANGE;
    } else if (cli_is(arg, "--kmax")) {
      if (!(v = cli_value(argc, argv, &i, "--kmax")) ||
          cli_parse_int(v, "--kmax", 1, 100000, &sa->kmax))
        return EXIT_BAD_INPUT + 1;
      sa->given |= TL_STUDY_OPT_KMAX;
    } else if (cli_is(arg, "--rpdd-J")) {
      if (!(v = cli_value(argc, argv, &i, "--rpdd-J")) ||
          cli_parse_int(v, "--rpdd-J", 0, 100000000L, &sa->rpdd_J))
        return EXIT_BAD_INPUT + 1;
      sa->given |= TL_STUDY_OPT_RPDD_J;
    } else if (cli_is(arg, "--seed")) {
      if (!(v = cli_value(argc, argv, &i, "--seed")) || cli_parse_u64(v, "--seed", &sa->seed))
        return EXIT_BAD_INPUT + 1;
      sa->given |= TL_STUDY_OPT_SEED;
    } else {
      cli_error("sweep: unknown option '%s' (see 'tridlab sweep --help')", arg);
      return EXIT_BAD_INPUT + 1;
    }
  }
  return 0;
}

/* Run one study with its table on stdout; 0, or 1 with the library's
 * message. */
static int run_study(const char *name, const tl_study_args *sa, tl_study_result *res)
{
  const tl_study *s = tl_study_find(name);
  if (!s || s->kind != TL_STUDY_SWEEP) {
    cli_error("sweep: no study named '%s' (see 'tridlab sweep --help')", name);
    return EXIT_BAD_INPUT;
  }
  tl_info info;
  tl_study_progress prog = {cli_study_progress, NULL};
  if (tl_study_run(name, sa, stdout, &prog, res, &info) != TL_OK) {
    cli_error("%s", info.msg);
    return EXIT_BAD_INPUT;
  }
  cli_plot_notes(sa->out, sa->plot, res);
  return 0;
}

int cmd_sweep(int argc, char **argv)
{
  tl_study_args sa;
  tl_study_args_init(&sa, 0);
  const char *name = NULL;
  int pa = parse_sweep_args(argc, argv, &sa, &name);
  if (pa)
    return pa - 1;
  if (!name) {
    cli_error("sweep: name a study, or 'all' (see 'tridlab sweep --help')");
    return EXIT_BAD_INPUT;
  }
  /* --quick changes the defaults that depend on it. */
  tl_study_args q;
  tl_study_args_init(&q, sa.quick);
  if (!(sa.given & TL_STUDY_OPT_KMAX))
    sa.kmax = q.kmax;
  if (!(sa.given & TL_STUDY_OPT_NRANGE)) {
    sa.nmin = q.nmin;
    sa.nmax = q.nmax;
  }
  if (sa.nmin > sa.nmax) {
    cli_error("sweep: --nmax %zu is below --nmin %zu", sa.nmax, sa.nmin);
    return EXIT_BAD_INPUT;
  }
  if (!strcmp(name, "all")) {
    if (sa.given & ~TL_STUDY_OPT_SEED) {
      cli_error("sweep all: the options of one study need its name (only --out, --quick, "
                "--no-plot and --seed apply to all)");
      return EXIT_BAD_INPUT;
    }
    const tl_study *s;
    for (size_t k = 0; (s = tl_study_get(k)); k++) {
      if (s->kind != TL_STUDY_SWEEP)
        continue;
      tl_study_result res;
      tl_study_args one = sa;
      one.given = s->opts & TL_STUDY_OPT_SEED ? sa.given : 0;
      if (run_study(s->name, &one, &res))
        return EXIT_BAD_INPUT;
      printf("%s\n\n", res.findings);
    }
    printf("sweep: wrote %s/\n", sa.out);
    return 0;
  }
  tl_study_result res;
  int rc = run_study(name, &sa, &res);
  if (rc)
    return rc;
  printf("%s\n", res.findings);
  printf("sweep: wrote");
  for (size_t k = 0; k < res.ncsv; k++)
    printf(" %s/%s", sa.out, res.csv[k]);
  for (size_t k = 0; k < res.npng; k++)
    printf(" %s/%s%s", sa.out, res.png[k], tl_out_exists(sa.out, res.png[k]) ? "" : " (not made)");
  printf("\n");
  return 0;
}
