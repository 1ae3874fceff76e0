/* cli/cmd_validate.c -- `tridlab validate`: a port (an external program or
 * a shared library entry point) over the whole gallery, judged as
 * `verify` judges, beside a reference algorithm (tl_validate_run,
 * verify/port_run.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tridlab/tridlab.h"

#define MAX_SIZES 64
static const size_t default_sizes[] = {1, 2, 3, 5, 17, 100};

static void validate_usage(FILE *out)
{
  fprintf(out,
          "usage: tridlab validate (--exec 'CMD {system} {out}' | --lib PATH.so:SYMBOL)\n"
          "                        [--like ALGO | --contract NAME] [--ref ALGO] [--no-status]\n"
          "                        [--sizes N,...] [--nsys K] [--seed S] [--type ID] [--quiet]\n"
          "                        [--timeout SECONDS]\n"
          "\n"
          "Runs your solver on every gallery system and judges each answer as 'tridlab verify'\n"
          "does, beside a reference algorithm of the registry (docs/ports.md).\n"
          "  --exec CMD   a program in any language: {system} is replaced by a system directory\n"
          "               (a.npy b.npy c.npy d.npy, `periodic` marker), {out} by the .npy file\n"
          "               to write x to. Exit code: 0 solved; 3 solved outside its domain;\n"
          "               2 no solution (breakdown); 4 does not handle this case (skipped);\n"
          "               any other: the program failed (reported). It runs in a process\n"
          "               group of its own, in a temporary directory emptied before each\n"
          "               system and removed at the end (also on Ctrl-C or SIGTERM).\n"
          "  --lib SO:SYM a shared library exporting\n"
          "                 int SYM(int dtype, int periodic, int64_t n, int64_t nsys,\n"
          "                         const double *a, const double *b, const double *c,\n"
          "                         const double *d, double *x)\n"
          "               (dtype 1 real, 2 complex as pairs of doubles); it returns 0 solved,\n"
          "               1 solved outside its domain, -2 breakdown, -4 unsupported\n"
          "               (-1, -3, -5, -6 also count as breakdown; any other value is an\n"
          "               invalid status).\n"
          "\n"
          "options:\n"
          "  --like ALGO      the solver makes the promises of this registry algorithm (its\n"
          "                   classes, dtypes, layouts), which is also the reference column\n"
          "  --contract NAME  thomas-like (default), cr-like, pivoting, periodic, approximate;\n"
          "                   the reference column is thomas, cr, gtsv, thomas_periodic, pdd\n"
          "  --ref ALGO       another reference column\n"
          "  --no-status      the solver returns no status: judge only the cells where a pass\n"
          "                   is expected (the others are skipped)\n"
          "  --sizes N,...    system sizes (default 1,2,3,5,17,100)\n"
          "  --nsys K         systems per batch (default 1)\n"
          "  --seed S         gallery seed (default 2026)\n"
          "  --type ID        only this gallery type\n"
          "  --quiet          only the failures and the summary line\n"
          "  --timeout S      --exec: seconds the program may take on one system (default\n"
          "                   60; 0: no limit); then its process group gets SIGTERM, and\n"
          "                   SIGKILL half a second later, and the cell is a timeout\n"
          "\n"
          "UNEXPECTED, whatever the matrix: a timeout; a program that removed its input;\n"
          "an x of another shape or dtype than d's (\"x has shape (10, 1), expected (2, 5)\");\n"
          "a status outside the convention (\"invalid status 42\"); a write outside x (x\n"
          "lies between guard regions, checked after every call).\n"
          "Exits 1 on bad input or when any answer is SILENT or UNEXPECTED, else 0.\n");
}

typedef struct validate_ctx {
  cli_cell *port, *ref; /* one cell per gallery type */
  FILE *failures;       /* one line per SILENT or UNEXPECTED answer, printed last */
} validate_ctx;

static size_t type_slot(const tl_gallery_type *t)
{
  for (size_t k = 0; k < tl_gallery_count(); k++)
    if (tl_gallery_get(k) == t)
      return k;
  return 0;
}

static void on_result(const tl_verify_result *port, const tl_verify_result *ref, void *ctx)
{
  validate_ctx *vc = ctx;
  size_t t = type_slot(port->type);
  cli_cell_add(&vc->port[t], port);
  if (ref)
    cli_cell_add(&vc->ref[t], ref);
  if (port->verdict == TL_VERDICT_SILENT || port->verdict == TL_VERDICT_UNEXPECTED)
    fprintf(vc->failures, "%-10s type %2d %-26s n=%-4zu status=%s resid=%.3g ferr=%.3g  %s\n",
            tl_verdict_name(port->verdict), port->type->id, port->type->name, port->n,
            tl_status_name(port->status), port->resid, port->ferr, port->note);
}

/* The cells of the port and the reference, and whether they agree: the
 * same word, or both passing (the ratios differ, the verdict does not). */
static void print_table(const validate_ctx *vc, const tl_algorithm *port, const tl_algorithm *ref)
{
  printf("%3s %-28s %-16s %-16s %s\n", "id", "gallery type", port->name, ref ? ref->name : "",
         ref ? "compared" : "");
  for (size_t t = 0; t < tl_gallery_count(); t++) {
    const cli_cell *pc = &vc->port[t];
    long judged = 0; /* rows where every answer was skipped say nothing */
    for (int v = 0; v < TL_VERDICT_SKIPPED; v++)
      judged += pc->n[v];
    if (!judged)
      continue;
    char pw[48], rw[48] = "";
    cli_cell_text(pc, pw, sizeof pw);
    const char *cmp = "";
    if (ref) {
      cli_cell_text(&vc->ref[t], rw, sizeof rw);
      int same = strncmp(pw, rw, strcspn(pw, " ")) == 0 && strcspn(pw, " ") == strcspn(rw, " ");
      cmp = same ? "same" : "differs";
    }
    const tl_gallery_type *type = tl_gallery_get(t);
    printf("%3d %-28s %-16s %-16s %s\n", type->id, type->name, pw, rw, cmp);
  }
}

typedef struct validate_args {
  const char *exec, *lib, *like, *contract, *ref;
  int quiet;
  double timeout; /* --timeout; NAN: not given */
  tl_validate_config cfg;
  size_t sizes[MAX_SIZES];
} validate_args;

static int parse_timeout(const char *s, double *out)
{
  char *end = NULL;
  double v = strtod(s, &end);
  if (end == s || *end != '\0' || !isfinite(v) || v < 0.0) {
    cli_error("--timeout must be a number of seconds >= 0 (0: no limit), got '%s'", s);
    return -1;
  }
  *out = v;
  return 0;
}

/* 0 to go on, else the exit status + 1 (so --help's 0 is distinct). */
static int parse_args(int argc, char **argv, validate_args *va)
{
  long lv;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i], *v;
    const char **slot = cli_is(arg, "--exec")       ? &va->exec
                        : cli_is(arg, "--lib")      ? &va->lib
                        : cli_is(arg, "--like")     ? &va->like
                        : cli_is(arg, "--contract") ? &va->contract
                        : cli_is(arg, "--ref")      ? &va->ref
                                                    : NULL;
    if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
      validate_usage(stdout);
      return 1;
    } else if (slot) {
      if (!(*slot = cli_value(argc, argv, &i, arg)))
        return EXIT_BAD_INPUT + 1;
    } else if (!strcmp(arg, "--no-status")) {
      va->cfg.no_status = 1;
    } else if (!strcmp(arg, "--quiet") || !strcmp(arg, "-q")) {
      va->quiet = 1;
    } else if (cli_is(arg, "--sizes")) {
      if (!(v = cli_value(argc, argv, &i, "--sizes")) ||
          cli_parse_sizes(v, "--sizes", va->sizes, MAX_SIZES, &va->cfg.nsizes))
        return EXIT_BAD_INPUT + 1;
    } else if (cli_is(arg, "--nsys")) {
      if (!(v = cli_value(argc, argv, &i, "--nsys")) || cli_parse_int(v, "--nsys", 1, 100000, &lv))
        return EXIT_BAD_INPUT + 1;
      va->cfg.nsys = (size_t)lv;
    } else if (cli_is(arg, "--seed")) {
      if (!(v = cli_value(argc, argv, &i, "--seed")) || cli_parse_u64(v, "--seed", &va->cfg.seed))
        return EXIT_BAD_INPUT + 1;
    } else if (cli_is(arg, "--timeout")) {
      if (!(v = cli_value(argc, argv, &i, "--timeout")) || parse_timeout(v, &va->timeout))
        return EXIT_BAD_INPUT + 1;
    } else if (cli_is(arg, "--type")) {
      if (!(v = cli_value(argc, argv, &i, "--type")) || cli_parse_int(v, "--type", 1, 100000, &lv))
        return EXIT_BAD_INPUT + 1;
      va->cfg.type_id = (int)lv;
    } else {
      cli_error("validate: unknown option '%s' (try --help)", arg);
      return EXIT_BAD_INPUT + 1;
    }
  }
  if (!va->exec == !va->lib) {
    cli_error("validate: give exactly one of --exec and --lib (try --help)");
    return EXIT_BAD_INPUT + 1;
  }
  /* A library runs inside this process: nothing can stop it safely. */
  if (va->lib && !isnan(va->timeout)) {
    cli_error("validate: --timeout applies to --exec only (a --lib entry point runs inside "
              "validate)");
    return EXIT_BAD_INPUT + 1;
  }
  return 0;
}

int cmd_validate(int argc, char **argv)
{
  validate_args va = {.timeout = NAN, .cfg = {.nsys = 1, .seed = 2026}};
  va.cfg.nsizes = sizeof default_sizes / sizeof default_sizes[0];
  memcpy(va.sizes, default_sizes, sizeof default_sizes);
  int rc = parse_args(argc, argv, &va);
  if (rc)
    return rc - 1;
  va.cfg.sizes = va.sizes;
  const tl_algorithm *like = cli_find_contract(va.contract, va.like);
  if (!like)
    return EXIT_BAD_INPUT;
  va.cfg.ref = va.ref ? tl_find(va.ref) : tl_contract_reference(like);
  if (va.ref && !va.cfg.ref) {
    cli_error("--ref: no algorithm named '%s'", va.ref);
    return EXIT_BAD_INPUT;
  }
  tl_port port;
  tl_info info;
  tl_info_clear(&info);
  int st = va.exec ? tl_port_open_exec(&port, va.exec, like, &info)
                   : tl_port_open_lib(&port, va.lib, like, &info);
  if (st != TL_OK) {
    cli_error("%s", info.msg);
    return EXIT_BAD_INPUT;
  }
  if (!isnan(va.timeout))
    port.timeout = va.timeout;
  validate_ctx vc = {calloc(tl_gallery_count(), sizeof(cli_cell)),
                     calloc(tl_gallery_count(), sizeof(cli_cell)), tmpfile()};
  va.cfg.solver = &port.algo;
  va.cfg.on_result = on_result;
  va.cfg.ctx = &vc;
  tl_verify_summary sum = {0};
  st = (vc.port && vc.ref && vc.failures) ? tl_validate_run(&va.cfg, &sum, &info) : TL_ERR_NOMEM;
  if (st == TL_OK && !va.quiet)
    print_table(&vc, &port.algo, va.cfg.ref);
  if (vc.failures) {
    int ch;
    rewind(vc.failures);
    while ((ch = fgetc(vc.failures)) != EOF)
      putchar(ch);
    fclose(vc.failures);
  }
  if (st == TL_OK) {
    char timeouts[48] = ""; /* said only when there were any */
    if (port.timeouts)
      snprintf(timeouts, sizeof timeouts, " (%ld timed out)", port.timeouts);
    printf("validate: %ld passed, %ld reported, %ld unexpected%s, %ld silent failures (%ld "
           "skipped)\n",
           sum.passed, sum.reported, sum.unexpected, timeouts, sum.silent, sum.skipped);
  } else
    cli_error("validate: %s", st == TL_ERR_NOMEM ? "out of memory" : info.msg);
  tl_port_close(&port);
  free(vc.port);
  free(vc.ref);
  if (st != TL_OK)
    return EXIT_BAD_INPUT;
  return (sum.silent || sum.unexpected) ? 1 : 0;
}
