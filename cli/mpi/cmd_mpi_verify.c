/* cli/mpi/cmd_mpi_verify.c -- `tridlab-mpi verify`: every MPI algorithm
 * over the gallery, judged against LAPACK on the whole system exactly as
 * `tridlab verify` judges the simulated ones (tl_verify_judge), with the
 * ledger of a solved batch beside each algorithm and its agreement with
 * the algorithm's ledger model. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "tridlab/backend.h"
#include "mpi_cli.h"
#include "tridlab/mpi.h"
#include "tridlab/tridlab.h"

#define MAX_LIST 32

static void verify_usage(FILE *out)
{
  fprintf(out, "usage: mpirun -n P tridlab-mpi verify [options]\n"
               "\n"
               "Every MPI algorithm on every gallery type it takes (dtype, layout), at several\n"
               "sizes and batch sizes: rank 0 makes the batch, every rank solves its slice, and\n"
               "the answer is judged on the whole system with LAPACK's ratios, as 'tridlab\n"
               "verify' does (passed, reported, UNEXPECTED, SILENT, skipped). Beside each\n"
               "algorithm: the ledger of its largest solved batch, per rank, and whether it\n"
               "equals the algorithm's ledger model.\n"
               "\n"
               "options:\n"
               "  --algo NAME        only this algorithm\n"
               "  --param KEY=VALUE  a parameter of that algorithm (with --algo; repeatable),\n"
               "                     e.g. --algo tridsolver --param reduced=pcr\n"
               "  --type ID          only this gallery type\n"
               "  --sizes N1,N2,..   system sizes (default P, 2P, 3P+1, 8P, 40P+3)\n"
               "  --nsys S1,S2,..    systems per batch (default 1,3)\n"
               "  --seed S           gallery seed (default 1)\n"
               "  --ledger           print the whole ledger of each algorithm\n"
               "exit status: 0, or 1 on any SILENT or UNEXPECTED result (or bad options).\n");
}

typedef struct mpi_verify_args {
  const char *algo;
  long type;
  size_t sizes[MAX_LIST], nsizes, nsys[MAX_LIST], nnsys;
  uint64_t seed;
  int full_ledger;
  tl_options opt; /* the --param values (for --algo) */
} mpi_verify_args;

static int parse(int argc, char **argv, mpi_verify_args *a)
{
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i], *v;
    if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
      if (mpi_rank() == 0)
        verify_usage(stdout);
      return 1;
    } else if (!strcmp(arg, "--ledger")) {
      a->full_ledger = 1;
    } else if (cli_is(arg, "--algo")) {
      if (!(a->algo = cli_value(argc, argv, &i, "--algo")))
        return 2;
    } else if (cli_is(arg, "--param")) {
      const tl_mpi_algorithm *algo = a->algo ? tl_mpi_find(a->algo) : NULL;
      if (!(v = cli_value(argc, argv, &i, "--param")))
        return 2;
      if (!algo) {
        cli_error("verify: --param needs --algo NAME before it");
        return 2;
      }
      tl_info info;
      if (tl_options_set_param_kv(&a->opt, algo->reference, v, &info) != TL_OK) {
        cli_error("verify: %s", info.msg);
        return 2;
      }
    } else if (cli_is(arg, "--type")) {
      if (!(v = cli_value(argc, argv, &i, "--type")) ||
          cli_parse_int(v, "--type", 1, 100000, &a->type))
        return 2;
    } else if (cli_is(arg, "--sizes")) {
      if (!(v = cli_value(argc, argv, &i, "--sizes")) ||
          cli_parse_sizes(v, "--sizes", a->sizes, MAX_LIST, &a->nsizes))
        return 2;
    } else if (cli_is(arg, "--nsys")) {
      if (!(v = cli_value(argc, argv, &i, "--nsys")) ||
          cli_parse_sizes(v, "--nsys", a->nsys, MAX_LIST, &a->nnsys))
        return 2;
    } else if (cli_is(arg, "--seed")) {
      if (!(v = cli_value(argc, argv, &i, "--seed")) || cli_parse_u64(v, "--seed", &a->seed))
        return 2;
    } else {
      cli_error("verify: unknown option '%s' (see 'tridlab-mpi verify --help')", arg);
      return 2;
    }
  }
  if (a->algo && !tl_mpi_find(a->algo)) {
    cli_error("verify: no MPI algorithm named '%s' (see 'tridlab-mpi list')", a->algo);
    return 2;
  }
  if (a->type && !tl_gallery_find((int)a->type)) {
    cli_error("verify: no gallery type %ld", a->type);
    return 2;
  }
  return 0;
}

typedef struct tally {
  tl_verify_summary sum;
  tl_ledger ledger;    /* of the largest solved batch so far */
  size_t ledger_n, ledger_nsys;
  int ledger_model_ok; /* 1 equal, 0 differs, -1 no model    */
  char model_why[256];
} tally;

/* Keep the ledger of a solved batch (the largest) and compare it with the
 * model. Rank 0. */
static void keep_ledger(tally *t, const tl_mpi_algorithm *algo, const tl_ledger *all,
                        const tl_problem *p, const tl_options *base, const tl_info *info)
{
  size_t size = p->sys.n * p->sys.nsys;
  if (size < t->ledger_n * t->ledger_nsys)
    return;
  tl_ledger_reset(&t->ledger);
  tl_ledger_merge(&t->ledger, all);
  t->ledger_n = p->sys.n;
  t->ledger_nsys = p->sys.nsys;
  t->ledger_model_ok = -1;
  if (!algo->reference->ledger_model)
    return;
  tl_ledger model;
  tl_ledger_init(&model);
  tl_options opt = *base;
  opt.parts = mpi_size();
  opt.ledger = NULL;
  algo->reference->ledger_model(algo->reference, &p->sys, &opt, info, &model);
  t->ledger_model_ok = tl_ledger_equal(all, &model, t->model_why, sizeof t->model_why);
  tl_ledger_free(&model);
}

/* One (algorithm, type, n, nsys): made on rank 0, solved by all, judged
 * on rank 0. Returns the verdict (on rank 0). */
static tl_verdict run_one(const tl_mpi_algorithm *algo, const tl_gallery_type *type, size_t n,
                          size_t nsys, uint64_t seed, const tl_options *base, tally *t)
{
  tl_problem p;
  memset(&p, 0, sizeof p);
  tl_info info;
  int made = TL_OK;
  if (mpi_rank() == 0)
    made = tl_gallery_make(type->id, n, nsys, seed, &p, &info);
  if (mpi_agree(made) != TL_OK)
    return TL_VERDICT_SKIPPED;
  tl_mpi_batch local;
  size_t *slices = malloc((size_t)mpi_size() * sizeof *slices);
  tl_mpi_default_slices(algo, n, mpi_size(), slices);
  int scattered = tl_mpi_scatter_batch(MPI_COMM_WORLD, 0, &p.sys, slices, &local, &info);
  free(slices);
  if (scattered != TL_OK) {
    if (mpi_rank() == 0)
      tl_problem_free(&p);
    return TL_VERDICT_SKIPPED;
  }
  size_t es = tl_dtype_size(local.dtype);
  void *x = calloc(local.m * nsys + 1, es);
  void *x_all = mpi_rank() == 0 ? calloc(n * nsys, es) : NULL;
  tl_ledger mine, all;
  tl_ledger_init(&mine);
  tl_ledger_init(&all);
  tl_options opt = *base;
  opt.ledger = &mine;
  int status = tl_mpi_solve(algo, MPI_COMM_WORLD, &local, x, &opt, &info);
  int solved = tl_status_has_solution(status);
  if (solved) {
    tl_mpi_gather_x(MPI_COMM_WORLD, 0, &local, x, x_all, &info);
    tl_mpi_ledger_gather(MPI_COMM_WORLD, &mine, 0, &all);
  }
  tl_verify_result r;
  r.verdict = TL_VERDICT_SKIPPED;
  if (mpi_rank() == 0) {
    double *rcond = p.xtrue ? tl_alloc(nsys, sizeof(double)) : NULL;
    if (rcond && tl_rcond(&p.sys, rcond, NULL) < 0) {
      free(rcond);
      rcond = NULL;
    }
    opt.parts = mpi_size();
    tl_verify_judge(algo->reference, &p, &opt, status, &info, solved ? x_all : NULL, rcond, &r);
    if (r.verdict == TL_VERDICT_SILENT || r.verdict == TL_VERDICT_UNEXPECTED)
      printf("  %s: %s type %d (%s) n=%zu nsys=%zu status=%s resid=%.3g ferr=%.3g: %s\n",
             tl_verdict_name(r.verdict), algo->name, type->id, type->name, n, nsys,
             tl_status_name(status), r.resid, r.ferr, r.note);
    if (status == TL_OK)
      keep_ledger(t, algo, &all, &p, base, &info);
    free(rcond);
    tl_problem_free(&p);
  }
  free(x);
  free(x_all);
  tl_ledger_free(&mine);
  tl_ledger_free(&all);
  tl_mpi_batch_free(&local);
  return r.verdict;
}

static void print_tally(const tl_mpi_algorithm *algo, const tally *t, int full)
{
  const tl_verify_summary *s = &t->sum;
  printf("%-12s %6ld passed %6ld reported %4ld unexpected %4ld silent %6ld skipped\n", algo->name,
         s->passed, s->reported, s->unexpected, s->silent, s->skipped);
  if (!t->ledger_n) {
    printf("             ledger: no batch solved with status ok\n");
    return;
  }
  printf("             ledger of n = %zu, nsys = %zu (words of 8 bytes); model: %s%s%s\n",
         t->ledger_n, t->ledger_nsys,
         t->ledger_model_ok < 0 ? "none" : t->ledger_model_ok ? "equal" : "DIFFERS",
         t->ledger_model_ok == 0 ? " -- " : "", t->ledger_model_ok == 0 ? t->model_why : "");
  if (full) {
    tl_ledger_print(stdout, &t->ledger, "             ");
    return;
  }
  for (int r = 0; r < tl_ledger_ranks(&t->ledger); r++) {
    tl_ledger_totals tt = tl_ledger_rank_totals(&t->ledger, r, NULL);
    printf("             rank %d: %ld messages, %ld words sent, %ld received, %ld collectives\n",
           r, tt.messages, tt.words_sent, tt.words_recv, tt.collectives);
  }
}

int cmd_mpi_verify(int argc, char **argv)
{
  mpi_verify_args a;
  memset(&a, 0, sizeof a);
  a.seed = 1;
  tl_options_init(&a.opt);
  int pa = parse(argc, argv, &a);
  if (pa)
    return pa == 1 ? 0 : EXIT_BAD_INPUT;
  size_t P = (size_t)mpi_size();
  if (!a.nsizes) {
    size_t defaults[] = {P, 2 * P, 3 * P + 1, 8 * P, 40 * P + 3};
    memcpy(a.sizes, defaults, sizeof defaults);
    a.nsizes = 5;
  }
  if (!a.nnsys) {
    a.nsys[0] = 1;
    a.nsys[1] = 3;
    a.nnsys = 2;
  }
  size_t count;
  const tl_mpi_algorithm *const *reg = tl_mpi_registry(&count);
  tl_verify_summary total = {0};
  for (size_t k = 0; k < count; k++) {
    const tl_mpi_algorithm *algo = reg[k];
    if (a.algo && strcmp(a.algo, algo->name) != 0)
      continue;
    tally t;
    memset(&t, 0, sizeof t);
    tl_ledger_init(&t.ledger);
    const tl_algorithm *ref = algo->reference;
    for (size_t g = 0; g < tl_gallery_count(); g++) {
      const tl_gallery_type *type = tl_gallery_get(g);
      if (a.type && type->id != a.type)
        continue;
      unsigned layout = type->periodic ? TL_PERIODIC : TL_NONPERIODIC;
      int takes = (ref->dtypes & TL_DTYPE_BIT(type->dtype)) && (ref->layouts & layout);
      for (size_t i = 0; i < a.nsizes; i++)
        for (size_t j = 0; j < a.nnsys; j++) {
          size_t minrows = ref->min_rows_per_part ? ref->min_rows_per_part : 1;
          if (!takes || a.sizes[i] < type->min_n || a.sizes[i] < P * minrows) {
            t.sum.skipped++;
            continue;
          }
          tl_verify_summary_add(&t.sum,
                                run_one(algo, type, a.sizes[i], a.nsys[j], a.seed, &a.opt, &t));
        }
    }
    if (mpi_rank() == 0)
      print_tally(algo, &t, a.full_ledger);
    total.passed += t.sum.passed;
    total.reported += t.sum.reported;
    total.unexpected += t.sum.unexpected;
    total.silent += t.sum.silent;
    total.skipped += t.sum.skipped;
    tl_ledger_free(&t.ledger);
  }
  if (mpi_rank() == 0)
    printf("verify on %zu ranks: %ld passed, %ld reported, %ld unexpected, %ld silent failures "
           "(%ld skipped)\n",
           P, total.passed, total.reported, total.unexpected, total.silent, total.skipped);
  return mpi_agree(total.silent || total.unexpected ? EXIT_BAD_INPUT : 0);
}
