/* cli/mpi/cmd_mpi_verify.c -- `tridlab-mpi verify`: the MPI room's
 * algorithms through the verification runner of `tridlab verify`
 * (tl_verify_run): every rank makes the same gallery batch, tl_solve
 * hands it to the ranks (tl_mpi_solve_batch) and gathers x, and the
 * runner judges it against LAPACK. This file only parses the options and
 * prints, on rank 0: per algorithm its counts, and the ledger of its
 * largest solved batch with the runner's comparison against the
 * algorithm's ledger model. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "tridlab/backend.h"
#include "tridlab/gpu.h"
#include "mpi_cli.h"
#include "tridlab/mpi.h"
#include "tridlab/tridlab.h"

#define MAX_LIST 32

static void verify_usage(FILE *out)
{
  fprintf(out, "usage: mpirun -n P tridlab-mpi verify [options]\n"
               "\n"
               "Every MPI algorithm on every gallery type it takes (dtype, layout), at several\n"
               "sizes and batch sizes, through the runner of 'tridlab verify': every rank makes\n"
               "the batch, each solves its slice, x is gathered, and the answer is judged on\n"
               "the whole system with LAPACK's ratios (passed, reported, UNEXPECTED, SILENT,\n"
               "skipped; a size too small for P ranks is skipped). Beside each\n"
               "algorithm: the ledger of its largest solved batch, per rank, and whether it\n"
               "equals the algorithm's ledger model.\n"
               "\n"
               "options:\n"
               "  --algo NAME        only this algorithm\n"
               "  --gpu              only the algorithms whose ranks run their local phase on\n"
               "                     the GPU kernels (with --algo: its version that does)\n"
               "  --param KEY=VALUE  a parameter of that algorithm (with --algo; repeatable),\n"
               "                     e.g. --algo tridsolver --param reduced=pcr\n"
               "  --type ID          only this gallery type\n"
               "  --sizes N1,N2,..   system sizes (default P, 2P, 3P+1, 8P, 40P+3)\n"
               "  --nsys S1,S2,..    systems per batch (default 1,3,9: 9 is a whole group of\n"
               "                     eight SIMD lanes and one more, so that the rank\n"
               "                     programs' batched kernels meet the gallery too)\n"
               "  --seed S           gallery seed (default 1)\n"
               "  --ledger           print the whole ledger of each algorithm\n"
               "exit status: 0, or 1 on any SILENT or UNEXPECTED result (or bad options).\n");
}

typedef struct mpi_verify_args {
  const char *algo;
  long type;
  size_t sizes[MAX_LIST], nsizes, nsys[MAX_LIST], nnsys;
  uint64_t seed;
  int full_ledger, gpu;
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
    } else if (!strcmp(arg, "--gpu")) {
      a->gpu = 1;
    } else if (!strcmp(arg, "--ledger")) {
      a->full_ledger = 1;
    } else if (cli_is(arg, "--algo")) {
      if (!(a->algo = cli_value(argc, argv, &i, "--algo")))
        return 2;
    } else if (cli_is(arg, "--param")) {
      const tl_algorithm *algo = a->algo ? tl_mpi_find(a->algo) : NULL;
      if (!(v = cli_value(argc, argv, &i, "--param")))
        return 2;
      if (!algo) {
        cli_error("verify: --param needs --algo NAME before it");
        return 2;
      }
      tl_info info;
      if (tl_options_set_param_kv(&a->opt, algo, v, &info) != TL_OK) {
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
  if (a->algo && a->gpu && !(a->algo = mpi_gpu_name("verify", a->algo)))
    return 2;
  if (a->type && !tl_gallery_find((int)a->type)) {
    cli_error("verify: no gallery type %ld", a->type);
    return 2;
  }
  return 0;
}

/* What rank 0 prints per algorithm: its counts, and the ledger of its
 * largest batch solved with status ok, as the runner compared it. */
typedef struct tally {
  const tl_algorithm *algo;
  tl_verify_summary sum;
  tl_ledger ledger;
  size_t ledger_n, ledger_nsys;
  int ledger_model_ok; /* 1 equal, 0 differs, -1 no model */
  char model_why[256];
} tally;

typedef struct verify_ctx {
  tally *t;
  size_t count;
} verify_ctx;

static void on_result(const tl_verify_result *r, void *ctx)
{
  verify_ctx *vc = ctx;
  tally *t = NULL;
  for (size_t k = 0; k < vc->count && !t; k++)
    if (!strcmp(vc->t[k].algo->name, r->algo->name))
      t = &vc->t[k];
  if (!t)
    return;
  tl_verify_summary_add(&t->sum, r->verdict);
  if ((r->verdict == TL_VERDICT_SILENT || r->verdict == TL_VERDICT_UNEXPECTED) && mpi_rank() == 0)
    printf("  %s: %s type %d (%s) n=%zu nsys=%zu status=%s resid=%.3g ferr=%.3g: %s\n",
           tl_verdict_name(r->verdict), r->algo->name, r->type->id, r->type->name, r->n, r->nsys,
           tl_status_name(r->status), r->resid, r->ferr, r->note);
  if (r->status != TL_OK || !r->ledger || r->n * r->nsys < t->ledger_n * t->ledger_nsys)
    return;
  tl_ledger_reset(&t->ledger);
  tl_ledger_merge(&t->ledger, r->ledger);
  t->ledger_n = r->n;
  t->ledger_nsys = r->nsys;
  t->ledger_model_ok = r->ledger_model;
  snprintf(t->model_why, sizeof t->model_why, "%s", r->ledger_why);
}

static void print_tally(const tally *t, int full)
{
  const tl_verify_summary *s = &t->sum;
  printf("%-16s %6ld passed %6ld reported %4ld unexpected %4ld silent %6ld skipped\n",
         t->algo->name, s->passed, s->reported, s->unexpected, s->silent, s->skipped);
  if (!t->ledger_n) {
    printf("                 ledger: no batch solved with status ok\n");
    return;
  }
  printf("                 ledger of n = %zu, nsys = %zu (words of 8 bytes); model: %s%s%s\n",
         t->ledger_n, t->ledger_nsys,
         t->ledger_model_ok < 0 ? "none" : t->ledger_model_ok ? "equal" : "DIFFERS",
         t->ledger_model_ok == 0 ? " -- " : "", t->ledger_model_ok == 0 ? t->model_why : "");
  if (full) {
    tl_ledger_print(stdout, &t->ledger, "                 ");
    return;
  }
  for (int r = 0; r < tl_ledger_ranks(&t->ledger); r++)
    tl_ledger_print_rank(stdout, &t->ledger, r, "                 ");
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
    a.nsys[2] = 9;
    a.nnsys = 3;
  }
  size_t count;
  const tl_algorithm *const *reg = tl_mpi_registry(&count);
  verify_ctx vc = {.t = calloc(count, sizeof(tally)), .count = count};
  if (!vc.t) {
    cli_error("verify: no memory");
    return mpi_agree(EXIT_FAILURE);
  }
  for (size_t k = 0; k < count; k++) {
    vc.t[k].algo = reg[k];
    tl_ledger_init(&vc.t[k].ledger);
  }
  tl_verify_config cfg = {.sizes = a.sizes, .nsizes = a.nsizes, .seed = a.seed,
                          .algo = a.algo ? tl_mpi_find(a.algo)->name : NULL,
                          .type_id = (int)a.type, .parts = (int)P, .room = "mpi",
                          .options = &a.opt, .ledgers = 1, .on_result = on_result, .ctx = &vc};
  int status = TL_OK;
  tl_info info;
  /* --gpu without --algo: each algorithm on the GPU kernels in turn. */
  for (size_t k = 0; k < count && status == TL_OK; k++) {
    int gpu = reg[k]->backend && strstr(reg[k]->backend, "gpu");
    if (a.gpu && !a.algo && !gpu)
      continue;
    if (a.gpu && !a.algo)
      cfg.algo = reg[k]->name;
    for (size_t j = 0; j < a.nnsys && status == TL_OK; j++) {
      cfg.nsys = a.nsys[j];
      status = tl_verify_run(&cfg, NULL, &info);
    }
    if (!(a.gpu && !a.algo))
      break; /* one run covers --algo, or every algorithm */
  }
  tl_verify_summary total = {0};
  for (size_t k = 0; k < count; k++) {
    const tally *t = &vc.t[k];
    if (a.algo && t->algo->name != cfg.algo)
      continue;
    if (a.gpu && !a.algo && !(t->algo->backend && strstr(t->algo->backend, "gpu")))
      continue;
    if (mpi_rank() == 0)
      print_tally(t, a.full_ledger);
    total.passed += t->sum.passed;
    total.reported += t->sum.reported;
    total.unexpected += t->sum.unexpected;
    total.silent += t->sum.silent;
    total.skipped += t->sum.skipped;
  }
  for (size_t k = 0; k < count; k++)
    tl_ledger_free(&vc.t[k].ledger);
  free(vc.t);
  if (status != TL_OK) {
    cli_error("verify: %s", info.msg);
    return mpi_agree(EXIT_FAILURE);
  }
  if (mpi_rank() == 0 && a.gpu) { /* a device where the device build found one, else the host */
    printf("GPU kernels on rank 0: %s\n", tl_gpu_backend_name());
    printf("GPU-aware MPI: %s; the messages cross through host buffers\n", tl_mpi_gpu_aware(NULL));
  }
  if (mpi_rank() == 0)
    printf("verify on %zu ranks: %ld passed, %ld reported, %ld unexpected, %ld silent failures "
           "(%ld skipped)\n",
           P, total.passed, total.reported, total.unexpected, total.silent, total.skipped);
  return mpi_agree(total.silent || total.unexpected ? EXIT_BAD_INPUT : 0);
}
