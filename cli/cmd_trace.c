/* cli/cmd_trace.c -- `tridlab trace`: one small solve, stage by stage
 * (tl_trace_run, verify/trace.c). This file only prints. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tridlab/tridlab.h"

#define MAX_PARAMS 8
#define VALUES_UP_TO 12 /* print values up to this n, the pattern beyond */

static void trace_usage(FILE *out)
{
  fprintf(out,
          "usage: tridlab trace --algo NAME [--parts P] [--n N | --system DIR] [--type ID]\n"
          "                     [--param key=value]... [--png PREFIX] [--ledger-png PREFIX]\n"
          "\n"
          "Runs one small solve through the algorithm's phase functions and prints, stage by\n"
          "stage, the system as it stands (values up to n = %d, the non-zero pattern beyond),\n"
          "the vectors of every partition, every message (source, destination, words: the\n"
          "ledger), the reduced system, and the entries an approximate algorithm drops with\n"
          "their size against its tolerance (marked * among values, x in a pattern).\n"
          "Traces:\n  %s.\n"
          "\n"
          "options:\n"
          "  --algo NAME        the algorithm\n"
          "  --parts P          partitions (partitioned algorithms; default 3)\n"
          "  --n N              rows of a gallery system (default 8)\n"
          "  --type ID          its gallery type (default 22, toeplitz-2.5; for a periodic-only\n"
          "                     algorithm 51, toeplitz-2.5-periodic; see 'tridlab gallery list')\n"
          "  --seed S           gallery seed (default 2026)\n"
          "  --system DIR       a system directory instead (one real, plain system)\n"
          "  --param key=value  algorithm parameter (repeatable)\n"
          "  --png PREFIX       also draw each stage's matrix with gnuplot: PREFIX-NN.png\n"
          "  --ledger-png PREFIX  also draw the solve's ledger with gnuplot: PREFIX.png\n"
          "                     (partitions as lanes, each message an arrow with its words,\n"
          "                     collectives as bars or fans, the verdict's traffic apart),\n"
          "                     beside PREFIX.dat and PREFIX.gp\n",
          VALUES_UP_TO, tl_trace_algorithms());
}

typedef struct trace_ctx {
  const tl_ledger *ledger;
  const char *png;
  int plots;
  const tl_algorithm *algo;
  size_t n;
  int parts;
} trace_ctx;

/* 1 when (i, j) is an entry the stage says is dropped. */
static int dropped_at(const tl_trace_stage *st, size_t i, size_t j)
{
  for (int k = 0; k < st->ndrop; k++)
    if (st->drop_row[k] == (long)i && st->drop_col[k] == (long)j)
      return 1;
  return 0;
}

static int is_boundary(const tl_trace_stage *st, size_t i)
{
  for (int p = 1; p < st->parts; p++)
    if (st->begin[p] == i)
      return 1;
  return 0;
}

static void print_matrix(const tl_trace_stage *st)
{
  size_t n = st->n;
  int values = n <= VALUES_UP_TO;
  for (size_t i = 0; i < n; i++) {
    if (i > 0 && is_boundary(st, i)) {
      size_t width = (values ? 9 * n + 2 * (size_t)(st->parts - 1) : n + (size_t)st->parts - 1);
      printf("      ");
      for (size_t k = 0; k < width; k++)
        putchar('-');
      putchar('\n');
    }
    printf("  %3zu ", i);
    for (size_t j = 0; j < n; j++) {
      if (j > 0 && is_boundary(st, j))
        printf(values ? " |" : "|");
      double v = st->dense[i * n + j];
      int drop = dropped_at(st, i, j);
      if (values && v == 0) /* RPDD drops entries it never computed */
        printf(drop ? "%8s*" : "%9s", ".");
      else if (values)
        printf(drop ? " %7.3g*" : " %8.3g", v);
      else
        putchar(drop ? 'x' : v == 0 ? '.' : '*');
    }
    printf(values ? "   | %10.4g\n" : "  | %.4g\n", st->rhs[i]);
  }
}

static void print_reduced(const tl_trace_stage *st)
{
  printf("  reduced system on rows");
  for (size_t i = 0; i < st->nr; i++)
    printf(" %zu", st->rows[i]);
  printf(" (* = dropped):\n");
  for (size_t i = 0; i < st->nr; i++) {
    printf("  %3zu ", st->rows[i]);
    for (size_t j = 0; j < st->nr; j++) {
      double v = st->rdense[i * st->nr + j];
      int drop = dropped_at(st, st->rows[i], st->rows[j]);
      if (v == 0 && !drop)
        printf("%10s", ".");
      else
        printf(" %8.3g%s", v, drop ? "*" : " ");
    }
    printf("   | %10.4g\n", st->rrhs[i]);
  }
}

static void print_drops(const tl_trace_stage *st)
{
  for (int k = 0; k < st->ndrop; k++) {
    if (st->drop_col[k] >= 0)
      printf("  dropped: row %ld, column %ld:", st->drop_row[k], st->drop_col[k]);
    else /* not a matrix entry (ITS: the coefficients beyond J) */
      printf("  dropped at row %ld: the neglected coefficients sum to", st->drop_row[k]);
    printf(" %.3g %s tol %.3g\n", st->drop_val[k],
           fabs(st->drop_val[k]) > st->tol ? ">" : "<=", st->tol);
  }
}

static void print_vectors(const tl_trace_stage *st)
{
  for (int k = 0; k < st->nvec; k++) {
    const tl_trace_vec *v = &st->vec[k];
    if (v->part >= 0)
      printf("  partition %d %s (rows %zu..%zu):", v->part, v->name, v->row0, v->row0 + v->len - 1);
    else
      printf("  %s:", v->name);
    for (size_t i = 0; i < v->len && i < 16; i++)
      printf(" %.4g", v->v[i]);
    printf(v->len > 16 ? " ...\n" : "\n");
  }
}

#define ROUNDS_SHOWN 3 /* a phase with more rounds shows its first and a total */

/* The words of a collective as one line: the same for every partition,
 * or (gather, scatter, bcast) what each partition other than the root
 * sends or receives. */
static void print_collective(const tl_ledger *L, const tl_ledger_entry *e)
{
  printf("  %s [%s, round %d]: ", tl_ledger_kind_name(e->kind), e->phase, e->round);
  if (e->peer < 0) {
    printf("every partition, %ld words each\n", e->words_sent);
    return;
  }
  long words = 0;
  for (size_t k = 0; k < L->count; k++) {
    const tl_ledger_entry *f = &L->entries[k];
    if (f->kind == e->kind && f->round == e->round && f->rank != f->peer &&
        !strcmp(f->phase, e->phase))
      words = f->words_sent > f->words_recv ? f->words_sent : f->words_recv;
  }
  printf("root %d, %ld words %s each other partition\n", e->peer, words,
         e->kind == TL_LEDGER_GATHER ? "from" : "to");
}

/* The ledger entries of one phase: each message once (its send), each
 * collective once for all partitions; of a phase repeated more than
 * ROUNDS_SHOWN times (Jacobi's sweeps), the first round and a total. */
static void print_messages(const tl_ledger *L, const char *phase)
{
  int said_collective = -1, rounds = 0;
  for (size_t k = 0; L && k < L->count; k++)
    if (!strcmp(L->entries[k].phase, phase) && L->entries[k].round + 1 > rounds)
      rounds = L->entries[k].round + 1;
  for (size_t k = 0; L && k < L->count; k++) {
    const tl_ledger_entry *e = &L->entries[k];
    if (strcmp(e->phase, phase) != 0 || (rounds > ROUNDS_SHOWN && e->round > 0))
      continue;
    if (e->kind == TL_LEDGER_SEND)
      printf("  message [%s] partition %d -> %d: %ld words\n", phase, e->rank, e->peer,
             e->words_sent);
    else if (e->kind != TL_LEDGER_RECV && said_collective != e->round) {
      said_collective = e->round;
      print_collective(L, e);
    }
  }
  if (rounds > ROUNDS_SHOWN) {
    tl_ledger_totals t = tl_ledger_rank_totals(L, -1, phase);
    printf("  ... rounds 1..%d of [%s] the same; in all %ld messages, %ld words sent, %ld "
           "collective calls\n",
           rounds - 1, phase, t.messages, t.words_sent, t.collectives);
  }
}

/* The first line, with the first stage: a solve refused before it ran
 * (bad partitions, parameters, entries) prints its error and nothing
 * else. */
static void print_header(const trace_ctx *tc)
{
  printf("trace: %s on n = %zu", tc->algo->name, tc->n);
  if (tc->algo->partitioned)
    printf(", P = %d", tc->parts);
  printf("\n\n");
}

static void on_stage(const tl_trace_stage *st, void *ctx)
{
  trace_ctx *tc = ctx;
  if (st->index == 0)
    print_header(tc);
  printf("== stage %d: %s ==\n  %s\n", st->index, st->title, st->note);
  if (st->dense)
    print_matrix(st);
  print_vectors(st);
  for (int k = 0; k < 2; k++)
    if (st->ledger_phase[k][0])
      print_messages(tc->ledger, st->ledger_phase[k]);
  if (st->nr)
    print_reduced(st);
  print_drops(st);
  if (tc->png && st->dense) {
    tl_info info;
    if (tl_trace_plot(st, tc->png, &info) == TL_OK)
      tc->plots++;
    else if (tc->plots >= 0) {
      cli_error("trace: %s", info.msg);
      tc->plots = -1; /* say it once */
    }
  }
  putchar('\n');
}

typedef struct trace_args {
  const char *algo, *dir, *png, *ledger_png;
  long parts, n, type;
  uint64_t seed;
  const char *params[MAX_PARAMS];
  int nparams;
} trace_args;

/* 0 to go on, else the exit status + 1. */
static int parse_args(int argc, char **argv, trace_args *ta)
{
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i], *v;
    if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
      trace_usage(stdout);
      return 1;
    } else if (cli_is(arg, "--algo") || cli_is(arg, "--system") || cli_is(arg, "--png") ||
               cli_is(arg, "--ledger-png")) {
      const char **slot = cli_is(arg, "--algo")     ? &ta->algo
                          : cli_is(arg, "--system") ? &ta->dir
                          : cli_is(arg, "--png")    ? &ta->png
                                                    : &ta->ledger_png;
      if (!(*slot = cli_value(argc, argv, &i, arg)))
        return EXIT_BAD_INPUT + 1;
    } else if (cli_is(arg, "--parts") || cli_is(arg, "--n") || cli_is(arg, "--type")) {
      long *slot = cli_is(arg, "--parts") ? &ta->parts : cli_is(arg, "--n") ? &ta->n : &ta->type;
      if (!(v = cli_value(argc, argv, &i, arg)) || cli_parse_int(v, arg, 1, 4096, slot))
        return EXIT_BAD_INPUT + 1;
    } else if (cli_is(arg, "--seed")) {
      if (!(v = cli_value(argc, argv, &i, "--seed")) || cli_parse_u64(v, "--seed", &ta->seed))
        return EXIT_BAD_INPUT + 1;
    } else if (cli_is(arg, "--param")) {
      if (!(v = cli_value(argc, argv, &i, "--param")))
        return EXIT_BAD_INPUT + 1;
      if (ta->nparams == MAX_PARAMS) {
        cli_error("trace: at most %d --param options", MAX_PARAMS);
        return EXIT_BAD_INPUT + 1;
      }
      ta->params[ta->nparams++] = v;
    } else {
      cli_error("trace: unknown option '%s' (try --help)", arg);
      return EXIT_BAD_INPUT + 1;
    }
  }
  if (!ta->algo) {
    cli_error("trace: --algo NAME is required (it traces: %s)", tl_trace_algorithms());
    return EXIT_BAD_INPUT + 1;
  }
  return 0;
}

/* The traced system: a directory, or a gallery problem. */
static int load_system(const trace_args *ta, tl_system_dir *sd, tl_problem *p, tl_batch *sys)
{
  tl_info info;
  tl_info_clear(&info);
  if (ta->dir) {
    if (tl_system_dir_read(ta->dir, 0, sd, &info) != TL_OK) {
      cli_error("%s", info.msg);
      return -1;
    }
    *sys = sd->sys;
    return 0;
  }
  if (tl_gallery_make((int)ta->type, (size_t)ta->n, 1, ta->seed, p, &info) != TL_OK) {
    cli_error("trace: %s", info.msg);
    return -1;
  }
  *sys = p->sys;
  return 0;
}

static void print_summary(const tl_batch *sys, const double *x, int st, const tl_info *info,
                          const tl_ledger *ledger)
{
  printf("status: %s%s%s\n", tl_status_name(st), info->msg[0] ? ": " : "", info->msg);
  if (tl_status_has_solution(st))
    printf("residual ratio: %.3g   (THRESH 30)\n", tl_residual_ratio(sys, x));
  tl_ledger_totals t, v;
  tl_ledger_split_totals(ledger, -1, &t, &v);
  if (!ledger->count)
    return;
  printf("the algorithm: %ld messages, %ld words sent, %ld collective calls (all partitions)\n",
         t.messages, t.words_sent, t.collectives);
  if (v.messages || v.collectives)
    printf("the verdict, checking the answer: %ld messages, %ld words sent, %ld collective "
           "calls\n",
           v.messages, v.words_sent, v.collectives);
}

/* --ledger-png PREFIX: the solve's ledger drawn by the library
 * (tl_ledger_plot). A ledger that cannot be drawn (a serial algorithm
 * sends nothing) is bad input; gnuplot's absence or failure is said, not
 * fatal, as for --png. Returns the exit status. */
static int draw_ledger(const char *prefix, const trace_ctx *tc, const tl_ledger *ledger)
{
  char title[160];
  snprintf(title, sizeof title, "%s on n = %zu, P = %d: every message of the solve", tc->algo->name,
           tc->n, tc->parts);
  tl_info info;
  int st = tl_ledger_plot(ledger, title, prefix, &info);
  if (st == TL_OK)
    printf("ledger plot: %s.png\n", prefix);
  else
    cli_error("trace: --ledger-png: %s", info.msg);
  return st == TL_ERR_ARG ? EXIT_BAD_INPUT : 0;
}

int cmd_trace(int argc, char **argv)
{
  trace_args ta = {.parts = 3, .n = 8, .type = 0, .seed = 2026};
  int rc = parse_args(argc, argv, &ta);
  if (rc)
    return rc - 1;
  const tl_algorithm *algo = tl_find(ta.algo);
  if (!algo || !tl_trace_supported(ta.algo)) {
    cli_error("trace: cannot trace '%s' (it traces: %s)", ta.algo, tl_trace_algorithms());
    return EXIT_BAD_INPUT;
  }
  if (!ta.type) /* the default system: toeplitz-2.5, cyclic for thomas_periodic */
    ta.type = algo->layouts == TL_PERIODIC ? 51 : 22;
  tl_options opt;
  tl_options_init(&opt);
  opt.parts = (int)ta.parts;
  tl_info info;
  tl_info_clear(&info);
  for (int k = 0; k < ta.nparams; k++)
    if (tl_options_set_param_kv(&opt, algo, ta.params[k], &info) != TL_OK) {
      cli_error("--param %s: %s", ta.params[k], info.msg);
      return EXIT_BAD_INPUT;
    }
  tl_system_dir sd = {0};
  tl_problem p = {0};
  tl_batch sys;
  if (load_system(&ta, &sd, &p, &sys))
    return EXIT_BAD_INPUT;
  double *x = calloc(sys.n ? sys.n : 1, sizeof *x);
  tl_ledger ledger;
  tl_ledger_init(&ledger);
  trace_ctx tc = {&ledger, ta.png, 0, algo, sys.n, opt.parts};
  int st = x ? tl_trace_run(algo, &sys, &opt, on_stage, &tc, &ledger, x, &info) : TL_ERR_NOMEM;
  rc = 0;
  if (st == TL_ERR_UNSUPPORTED || st == TL_ERR_ARG || st == TL_ERR_NOMEM) {
    cli_error("%s", info.msg);
    rc = EXIT_BAD_INPUT;
  } else {
    print_summary(&sys, x, st, &info, &ledger);
    if (tc.plots > 0)
      printf("plots: %s-NN.png (%d)\n", ta.png, tc.plots);
    if (ta.ledger_png)
      rc = draw_ledger(ta.ledger_png, &tc, &ledger);
  }
  tl_ledger_free(&ledger);
  free(x);
  tl_system_dir_free(&sd);
  tl_problem_free(&p);
  return rc;
}
