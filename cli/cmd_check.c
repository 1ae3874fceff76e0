/* cli/cmd_check.c -- `tridlab check`: LAPACK's ratios and the verdict
 * `verify` would give one answer, with the reason (tl_check_answer,
 * verify/port_export.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "tridlab/tridlab.h"

enum { EXIT_CHECK_FAILED = 2 };

static void check_usage(FILE *out)
{
  fprintf(out,
          "usage: tridlab check --system DIR --x X.npy [--contract NAME | --like ALGO]\n"
          "                     [--status S] [--periodic]\n"
          "\n"
          "Judges one answer x of the system in DIR (a.npy b.npy c.npy d.npy, as 'tridlab\n"
          "gallery export' writes them) exactly as 'tridlab verify' would: the residual ratio\n"
          "(DGTT02), the forward-error ratio (DGET04) against DIR/x_true.npy when it exists,\n"
          "with the 1-norm condition estimate, and the verdict (passed, reported, UNEXPECTED,\n"
          "SILENT, skipped; docs/verification.md). A large difference from the true solution\n"
          "is a bug only when cond1 eps does not allow it: the forward-error ratio says which.\n"
          "The classes that decide whether a pass is expected come from DIR/type (the gallery\n"
          "type), else they are measured on the matrix.\n"
          "\n"
          "options:\n"
          "  --contract NAME  what the solver promises: thomas-like (default), cr-like,\n"
          "                   pivoting, periodic, approximate\n"
          "  --like ALGO      the same promises as a registry algorithm (see 'tridlab list')\n"
          "  --status S       what the solver said: ok (default), outside-domain, breakdown,\n"
          "                   not-converged, unsupported, or an exit code 0, 3, 2, 4\n"
          "  --periodic       the system is cyclic (also: a file DIR/periodic exists)\n"
          "\n"
          "exit status: 0 passed, reported or skipped; 1 bad input; 2 SILENT or UNEXPECTED\n");
}

/* An answer of the system's dtype and size, read from path. */
static int read_vector(const char *path, const tl_batch *sys, tl_npy *arr)
{
  tl_info info;
  if (tl_npy_read(path, arr, &info) != TL_OK) {
    cli_error("%s", info.msg);
    return -1;
  }
  if (arr->dtype != sys->dtype || arr->count != sys->n * sys->nsys) {
    cli_error("%s: %zu %s entries, the system needs %zu %s", path, arr->count,
              tl_dtype_name(arr->dtype), sys->n * sys->nsys, tl_dtype_name(sys->dtype));
    tl_npy_free(arr);
    return -1;
  }
  return 0;
}

static void print_result(const char *dir, const tl_batch *sys, const tl_gallery_type *type,
                         const tl_algorithm *like, int status, const tl_check_result *r)
{
  printf("system    %s: ", dir);
  if (type)
    printf("gallery type %d %s, ", type->id, type->name);
  printf("%s, %s, n = %zu, nsys = %zu\n", tl_dtype_name(sys->dtype),
         sys->periodic ? "periodic" : "plain", sys->n, sys->nsys);
  printf("contract  %s (expected: %s)\n", like->name,
         type ? tl_expected_word(type, like) : (r->v.expected ? "pass" : "may-report"));
  printf("status    %s\n", tl_status_name(status));
  printf("residual ratio (DGTT02)       %.3g\n", r->v.resid);
  printf("forward-error ratio (DGET04)  %.3g\n", r->v.ferr);
  printf("relative error to x_true      %.3g\n", r->relerr);
  printf("condition estimate cond1      %.3g\n", r->cond);
  printf("verdict   %s\n", tl_verdict_name(r->v.verdict));
  printf("why       %s\n", r->why);
}

int cmd_check(int argc, char **argv)
{
  const char *dir = NULL, *xpath = NULL, *contract = NULL, *like_name = NULL, *v;
  int status = TL_OK, periodic = 0;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
      check_usage(stdout);
      return 0;
    } else if (!strcmp(arg, "--periodic")) {
      periodic = 1;
    } else if (cli_is(arg, "--system")) {
      if (!(dir = cli_value(argc, argv, &i, "--system")))
        return EXIT_BAD_INPUT;
    } else if (cli_is(arg, "--x")) {
      if (!(xpath = cli_value(argc, argv, &i, "--x")))
        return EXIT_BAD_INPUT;
    } else if (cli_is(arg, "--contract")) {
      if (!(contract = cli_value(argc, argv, &i, "--contract")))
        return EXIT_BAD_INPUT;
    } else if (cli_is(arg, "--like")) {
      if (!(like_name = cli_value(argc, argv, &i, "--like")))
        return EXIT_BAD_INPUT;
    } else if (cli_is(arg, "--status")) {
      if (!(v = cli_value(argc, argv, &i, "--status")))
        return EXIT_BAD_INPUT;
      if (tl_status_parse(v, &status) != TL_OK) {
        cli_error("--status: '%s' is not ok, outside-domain, breakdown, not-converged, "
                  "unsupported or 0, 2, 3, 4",
                  v);
        return EXIT_BAD_INPUT;
      }
    } else {
      cli_error("check: unknown option '%s' (try --help)", arg);
      return EXIT_BAD_INPUT;
    }
  }
  if (!dir || !xpath) {
    cli_error("check: --system DIR and --x X.npy are required (try --help)");
    return EXIT_BAD_INPUT;
  }
  const tl_algorithm *like = cli_find_contract(contract, like_name);
  if (!like)
    return EXIT_BAD_INPUT;
  tl_system_dir sd;
  tl_info info;
  tl_info_clear(&info);
  if (tl_system_dir_read(dir, periodic, &sd, &info) != TL_OK) {
    cli_error("%s", info.msg);
    return EXIT_BAD_INPUT;
  }
  tl_npy x = {0}, xtrue = {0};
  char tpath[4200];
  struct stat st;
  snprintf(tpath, sizeof tpath, "%s/x_true.npy", dir);
  int have_true = stat(tpath, &st) == 0;
  int rc = EXIT_BAD_INPUT;
  if (read_vector(xpath, &sd.sys, &x) == 0 &&
      (!have_true || read_vector(tpath, &sd.sys, &xtrue) == 0)) {
    const tl_gallery_type *type = tl_system_dir_type(dir);
    tl_check_result r;
    if (tl_check_answer(&sd.sys, have_true ? xtrue.data : NULL, type, like, status,
                        tl_status_has_solution(status) ? x.data : NULL, &r, &info) == TL_OK) {
      print_result(dir, &sd.sys, type, like, status, &r);
      int bad = r.v.verdict == TL_VERDICT_SILENT || r.v.verdict == TL_VERDICT_UNEXPECTED;
      rc = bad ? EXIT_CHECK_FAILED : 0;
    } else {
      cli_error("check: %s", info.msg);
    }
  }
  tl_npy_free(&x);
  tl_npy_free(&xtrue);
  tl_system_dir_free(&sd);
  return rc;
}
