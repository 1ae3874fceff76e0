/* cli/cmd_verify.c -- `tridlab verify`: the registry against LAPACK on the
 * gallery, one table, zero silent failures promised. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "tridlab/tridlab.h"

#define MAX_SIZES 64
static const size_t default_sizes[] = {1, 2, 3, 4, 5, 8, 17, 64, 255, 1000, 4096};
static const size_t quick_sizes[] = {1, 2, 3, 5, 17, 100, 1000};

static void verify_usage(FILE *out)
{
  fprintf(out,
          "usage: tridlab verify [options]\n"
          "\n"
          "Runs every registry algorithm on every gallery matrix (docs/gallery.md) at several\n"
          "sizes and classifies each pair with LAPACK's test ratios (eps = 2^-53, THRESH 30):\n"
          "  passed      status ok, residual ratio (DGTT02) and forward-error ratio (DGET04,\n"
          "              rcond from DGTCON) both < 30\n"
          "  reported    the solver returned a failure or outside-domain status\n"
          "  UNEXPECTED  reported, but the gallery type is in the algorithm's classes; or,\n"
          "              on any matrix, a status outside tridlab/status.h or a write outside\n"
          "              x (guard regions around x are checked after every call)\n"
          "  SILENT      status ok but a ratio >= 30 or not finite: a silent wrong answer\n"
          "Exits 1 if any pair is SILENT or UNEXPECTED, else 0.\n"
          "\n"
          "options:\n"
          "  --algo NAME        only this algorithm\n"
          "  --param KEY=VALUE  a parameter of that algorithm (with --algo; repeatable),\n"
          "                     e.g. --algo spike --param truncate=1\n"
          "  --type ID          only this gallery type\n"
          "  --sizes N1,N2,...  system sizes (default 1,2,3,4,5,8,17,64,255,1000,4096)\n"
          "  --quick            sizes 1,2,3,5,17,100,1000\n"
          "  --nsys K           systems per batch (default 2)\n"
          "  --seed S           gallery seed (default 2026)\n"
          "  --parts P1,P2,...  partition counts for partitioned algorithms, each run\n"
          "                     once per count (default 1,2,3,4,7,16)\n"
          "  --plugin PATH.so   load a plug-in first: its tridlab_plugin_init registers its\n"
          "                     algorithms, which are then verified with the others\n"
          "  --csv FILE         every pair, one CSV row each\n"
          "  --markdown FILE    the table and the summary as Markdown\n"
          "  --quiet            only the summary line and failures\n");
}

typedef struct verify_ctx {
  size_t nalg, ntypes;
  cli_cell *cells;       /* ntypes x nalg */
  FILE *csv;
  long done, total;
  int progress;
  char (*failures)[512];
  size_t nfail, capfail;
} verify_ctx;

static size_t algo_index(const tl_algorithm *al)
{
  size_t count;
  const tl_algorithm *const *reg = tl_registry(&count);
  for (size_t k = 0; k < count; k++)
    if (reg[k] == al)
      return k;
  return 0;
}

static size_t type_index(const tl_gallery_type *t)
{
  for (size_t k = 0; k < tl_gallery_count(); k++)
    if (tl_gallery_get(k) == t)
      return k;
  return 0;
}

static void csv_field(FILE *f, const char *s)
{
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"')
      fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

static void add_failure(verify_ctx *vc, const tl_verify_result *r)
{
  if (vc->nfail == vc->capfail) {
    size_t cap = vc->capfail ? 2 * vc->capfail : 16;
    void *p = realloc(vc->failures, cap * sizeof *vc->failures);
    if (!p)
      return;
    vc->failures = p;
    vc->capfail = cap;
  }
  snprintf(vc->failures[vc->nfail++], sizeof vc->failures[0],
           "%-10s %-16s type %2d %-24s n=%-5zu P=%-3d status=%s resid=%.3g ferr=%.3g  %s",
           tl_verdict_name(r->verdict), r->algo->name, r->type->id, r->type->name, r->n, r->parts,
           tl_status_name(r->status), r->resid, r->ferr, r->note);
}

static void on_result(const tl_verify_result *r, void *ctx)
{
  verify_ctx *vc = ctx;
  cli_cell_add(&vc->cells[type_index(r->type) * vc->nalg + algo_index(r->algo)], r);
  if (r->verdict == TL_VERDICT_SILENT || r->verdict == TL_VERDICT_UNEXPECTED)
    add_failure(vc, r);
  if (vc->csv) {
    fprintf(vc->csv, "%s,%d,%s,%s,%d,%zu,%zu,%d,%s,%.6g,%.6g,%d,%s,", r->algo->name, r->type->id,
            r->type->name, tl_dtype_name(r->type->dtype), r->type->periodic, r->n, r->nsys,
            r->parts, tl_status_name(r->status), r->resid, r->ferr, r->expected,
            tl_verdict_name(r->verdict));
    csv_field(vc->csv, r->note);
    fputc('\n', vc->csv);
  }
  vc->done++;
  if (vc->progress && vc->done % 50 == 0)
    fprintf(stderr, "\rverify: %ld/%ld pairs", vc->done, vc->total);
}

/* 1 if algorithm k ran on some type (a column worth printing). */
static int column_ran(const verify_ctx *vc, size_t k)
{
  for (size_t t = 0; t < vc->ntypes; t++)
    for (int v = 0; v < 5; v++)
      if (vc->cells[t * vc->nalg + k].n[v])
        return 1;
  return 0;
}

static void print_table(FILE *out, const verify_ctx *vc, int markdown)
{
  size_t nalg;
  const tl_algorithm *const *reg = tl_registry(&nalg);
  if (markdown) {
    fprintf(out, "| id | gallery type |");
    for (size_t k = 0; k < nalg; k++)
      if (column_ran(vc, k))
        fprintf(out, " %s |", reg[k]->name);
    fprintf(out, "\n|---:|---|");
    for (size_t k = 0; k < nalg; k++)
      if (column_ran(vc, k))
        fprintf(out, "---|");
    fputc('\n', out);
  } else {
    fprintf(out, "%3s %-26s", "id", "gallery type");
    for (size_t k = 0; k < nalg; k++)
      if (column_ran(vc, k))
        fprintf(out, " %-16s", reg[k]->name);
    fputc('\n', out);
  }
  for (size_t t = 0; t < vc->ntypes; t++) {
    const tl_gallery_type *type = tl_gallery_get(t);
    const cli_cell *row = &vc->cells[t * nalg];
    long any = 0;
    for (size_t k = 0; k < nalg; k++)
      for (int v = 0; v < 4; v++)
        any += row[k].n[v];
    if (!any)
      continue;
    if (markdown)
      fprintf(out, "| %d | %s |", type->id, type->name);
    else
      fprintf(out, "%3d %-26s", type->id, type->name);
    for (size_t k = 0; k < nalg; k++) {
      if (!column_ran(vc, k))
        continue;
      char word[48];
      cli_cell_text(&row[k], word, sizeof word);
      if (markdown)
        fprintf(out, " %s |", word);
      else
        fprintf(out, " %-16s", word);
    }
    fputc('\n', out);
  }
}

static const char legend[] =
    "cells: pass R = every size passed, R the largest residual ratio (DGTT02, in units of\n"
    "eps = 2^-53) among the passes; rep = the solver reported a failure or outside-domain\n"
    "status at every size; pass+rep = some of each; SILENT = status ok but a ratio >= 30 (a silent wrong\n"
    "answer); UNEXPECTED = reported on a matrix inside its classes; - = not applicable.\n";

static void write_markdown(const char *path, const verify_ctx *vc, const tl_verify_summary *s,
                           const tl_verify_config *cfg)
{
  FILE *f = fopen(path, "w");
  if (!f) {
    cli_error("cannot write %s", path);
    return;
  }
  fprintf(f, "# tridlab verification\n\n");
  fprintf(f, "Every registry algorithm on every gallery matrix (docs/gallery.md), sizes n =");
  for (size_t k = 0; k < cfg->nsizes; k++)
    fprintf(f, "%s%zu", k ? ", " : " ", cfg->sizes[k]);
  fprintf(f, ", %zu systems per batch, seed %llu; partitioned algorithms with P =", cfg->nsys,
          (unsigned long long)cfg->seed);
  for (size_t k = 0; k < cfg->nparts; k++)
    fprintf(f, "%s%d", k ? ", " : " ", cfg->parts_list[k]);
  fprintf(f, ". Reproduce with `build/tridlab verify`.\n\n");
  fprintf(f, "**%ld passed, %ld reported, %ld unexpected, %ld silent failures** (%ld skipped).\n\n",
          s->passed, s->reported, s->unexpected, s->silent, s->skipped);
  print_table(f, vc, 1);
  fprintf(f, "\n```\n%s```\n", legend);
  if (vc->nfail) {
    fprintf(f, "\n## Failures\n\n```\n");
    for (size_t k = 0; k < vc->nfail; k++)
      fprintf(f, "%s\n", vc->failures[k]);
    fprintf(f, "```\n");
  }
  fclose(f);
}

/* --param KEY=VALUE: checked against the algorithm of --algo, given first. */
static int verify_param(const char *name, tl_options *opt, const char *kv)
{
  const tl_algorithm *algo = name ? tl_find(name) : NULL;
  if (!algo) {
    cli_error("verify: --param needs --algo NAME (of a registry algorithm) before it");
    return 1;
  }
  tl_info info;
  if (tl_options_set_param_kv(opt, algo, kv, &info) != TL_OK) {
    cli_error("verify: %s", info.msg);
    return 1;
  }
  return 0;
}

int cmd_verify(int argc, char **argv)
{
  tl_verify_config cfg;
  cli_verify_defaults(&cfg, 0);
  size_t sizes[MAX_SIZES], nsizes = cfg.nsizes;
  memcpy(sizes, cfg.sizes, nsizes * sizeof sizes[0]);
  size_t parts_sz[MAX_SIZES], nparts = cfg.nparts;
  for (size_t k = 0; k < nparts; k++)
    parts_sz[k] = (size_t)cfg.parts_list[k];
  int parts[MAX_SIZES];
  const char *csv_path = NULL, *md_path = NULL;
  int quiet = 0;
  long lv;
  tl_options opt; /* the --param values (for --algo) */
  tl_options_init(&opt);
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i], *v;
    if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
      verify_usage(stdout);
      return 0;
    } else if (!strcmp(arg, "--quick")) {
      nsizes = sizeof quick_sizes / sizeof quick_sizes[0];
      memcpy(sizes, quick_sizes, sizeof quick_sizes);
    } else if (!strcmp(arg, "--quiet") || !strcmp(arg, "-q")) {
      quiet = 1;
    } else if (cli_is(arg, "--algo")) {
      if (!(cfg.algo = cli_value(argc, argv, &i, "--algo")))
        return EXIT_BAD_INPUT;
    } else if (cli_is(arg, "--param")) {
      if (!(v = cli_value(argc, argv, &i, "--param")) || verify_param(cfg.algo, &opt, v))
        return EXIT_BAD_INPUT;
      cfg.options = &opt;
    } else if (cli_is(arg, "--type")) {
      if (!(v = cli_value(argc, argv, &i, "--type")) ||
          cli_parse_int(v, "--type", 1, 100000, &lv))
        return EXIT_BAD_INPUT;
      cfg.type_id = (int)lv;
    } else if (cli_is(arg, "--sizes")) {
      if (!(v = cli_value(argc, argv, &i, "--sizes")) ||
          cli_parse_sizes(v, "--sizes", sizes, MAX_SIZES, &nsizes))
        return EXIT_BAD_INPUT;
    } else if (cli_is(arg, "--nsys")) {
      if (!(v = cli_value(argc, argv, &i, "--nsys")) ||
          cli_parse_int(v, "--nsys", 1, 1000000, &lv))
        return EXIT_BAD_INPUT;
      cfg.nsys = (size_t)lv;
    } else if (cli_is(arg, "--seed")) {
      if (!(v = cli_value(argc, argv, &i, "--seed")) || cli_parse_u64(v, "--seed", &cfg.seed))
        return EXIT_BAD_INPUT;
    } else if (cli_is(arg, "--parts")) {
      if (!(v = cli_value(argc, argv, &i, "--parts")) ||
          cli_parse_sizes(v, "--parts", parts_sz, MAX_SIZES, &nparts))
        return EXIT_BAD_INPUT;
    } else if (cli_is(arg, "--plugin")) {
      if (cli_plugin(argc, argv, &i))
        return EXIT_BAD_INPUT;
    } else if (cli_is(arg, "--csv")) {
      if (!(csv_path = cli_value(argc, argv, &i, "--csv")))
        return EXIT_BAD_INPUT;
    } else if (cli_is(arg, "--markdown")) {
      if (!(md_path = cli_value(argc, argv, &i, "--markdown")))
        return EXIT_BAD_INPUT;
    } else {
      cli_error("verify: unknown option '%s' (see 'tridlab verify --help')", arg);
      return EXIT_BAD_INPUT;
    }
  }
  cfg.sizes = sizes;
  cfg.nsizes = nsizes;
  for (size_t k = 0; k < nparts; k++) {
    if (parts_sz[k] > TL_MAX_PARTS) {
      cli_error("verify: --parts values must be at most %d", TL_MAX_PARTS);
      return EXIT_BAD_INPUT;
    }
    parts[k] = (int)parts_sz[k];
  }
  cfg.parts_list = parts;
  cfg.nparts = nparts;
  tl_verify_summary sum;
  int rc = cli_verify_run(&cfg, csv_path, md_path, quiet, &sum);
  if (rc)
    return rc;
  return (sum.silent || sum.unexpected) ? 1 : 0;
}

void cli_verify_defaults(tl_verify_config *cfg, int quick)
{
  static const int default_parts[] = {1, 2, 3, 4, 7, 16};
  memset(cfg, 0, sizeof *cfg);
  cfg->nsys = 2;
  cfg->seed = 2026;
  cfg->parts = 1;
  cfg->sizes = quick ? quick_sizes : default_sizes;
  cfg->nsizes = quick ? sizeof quick_sizes / sizeof quick_sizes[0]
                      : sizeof default_sizes / sizeof default_sizes[0];
  cfg->parts_list = default_parts;
  cfg->nparts = sizeof default_parts / sizeof default_parts[0];
}

int cli_verify_run(tl_verify_config *cfg_in, const char *csv_path, const char *md_path, int quiet,
                   tl_verify_summary *out)
{
  tl_verify_config cfg = *cfg_in;
  size_t nsizes = cfg.nsizes, nparts = cfg.nparts ? cfg.nparts : 1;
  memset(out, 0, sizeof *out);
  verify_ctx vc;
  memset(&vc, 0, sizeof vc);
  tl_registry(&vc.nalg);
  vc.ntypes = tl_gallery_count();
  vc.cells = calloc(vc.nalg * vc.ntypes, sizeof *vc.cells);
  if (!vc.cells) {
    cli_error("out of memory");
    return EXIT_BAD_INPUT;
  }
  vc.total = (long)(vc.nalg * vc.ntypes * nsizes * nparts);
  vc.progress = isatty(STDERR_FILENO);
  const char *gpu_check = getenv("TRIDLAB_GPU_CHECK"); /* tridlab/gpu.h */
  if (gpu_check && !strcmp(gpu_check, "0") && !quiet)
    fprintf(stderr, "verify: TRIDLAB_GPU_CHECK=0: the GPU emulator's checker is off (races, loads "
                    "of words never stored and indices outside a shared sub-array go unseen)\n");
  if (csv_path) {
    vc.csv = fopen(csv_path, "w");
    if (!vc.csv) {
      cli_error("cannot write %s", csv_path);
      free(vc.cells);
      return EXIT_BAD_INPUT;
    }
    fprintf(vc.csv, "algo,type_id,type,dtype,periodic,n,nsys,parts,status,resid_ratio,"
                    "ferr_ratio,expected,verdict,note\n");
  }
  cfg.on_result = on_result;
  cfg.ctx = &vc;
  tl_verify_summary sum;
  tl_info info;
  tl_info_clear(&info);
  int st = tl_verify_run(&cfg, &sum, &info);
  if (vc.progress)
    fprintf(stderr, "\r%40s\r", "");
  if (vc.csv)
    fclose(vc.csv);
  if (st < 0) {
    cli_error("verify: %s", info.msg);
    free(vc.cells);
    free(vc.failures);
    return EXIT_BAD_INPUT;
  }
  if (!quiet) {
    print_table(stdout, &vc, 0);
    printf("\n%s\n", legend);
  }
  for (size_t k = 0; k < vc.nfail; k++)
    printf("%s\n", vc.failures[k]);
  printf("verify: %ld passed, %ld reported, %ld unexpected, %ld silent failures (%ld skipped)\n",
         sum.passed, sum.reported, sum.unexpected, sum.silent, sum.skipped);
  if (md_path)
    write_markdown(md_path, &vc, &sum, &cfg);
  free(vc.cells);
  free(vc.failures);
  *out = sum;
  return 0;
}
