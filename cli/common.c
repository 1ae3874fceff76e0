/* cli/common.c -- option parsing helpers of the tridlab command, and the
 * progress line and plot notes of the studies it runs. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "tridlab/port.h"

const char *cli_program = "tridlab";
int cli_silent = 0;

void cli_error(const char *fmt, ...)
{
  if (cli_silent)
    return;
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "%s: ", cli_program);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

double cli_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int cli_is(const char *arg, const char *opt)
{
  size_t len = strlen(opt);
  return strncmp(arg, opt, len) == 0 && (arg[len] == '\0' || arg[len] == '=');
}

const char *cli_value(int argc, char **argv, int *i, const char *opt)
{
  const char *eq = strchr(argv[*i], '=');
  if (eq && strncmp(argv[*i], "--", 2) == 0)
    return eq + 1;
  if (*i + 1 >= argc) {
    cli_error("option %s needs a value", opt);
    return NULL;
  }
  return argv[++*i];
}

int cli_parse_int(const char *s, const char *what, long min, long max, long *out)
{
  char *end = NULL;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (end == s || *end != '\0' || errno == ERANGE || v < min || v > max) {
    cli_error("%s must be an integer in [%ld, %ld], got '%s'", what, min, max, s);
    return -1;
  }
  *out = v;
  return 0;
}

int cli_parse_u64(const char *s, const char *what, uint64_t *out)
{
  char *end = NULL;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 0);
  if (end == s || *end != '\0' || errno == ERANGE || s[0] == '-') {
    cli_error("%s must be a non-negative integer, got '%s'", what, s);
    return -1;
  }
  *out = (uint64_t)v;
  return 0;
}

int cli_parse_sizes(const char *s, const char *what, size_t *out, size_t cap, size_t *count)
{
  size_t k = 0;
  const char *p = s;
  while (*p) {
    char *end = NULL;
    errno = 0;
    if (*p == '-') {
      cli_error("%s: sizes must be positive, got '%s'", what, s);
      return -1;
    }
    /* strtoull skips blanks and takes a sign: " -10" would come back as
     * 2^64 - 10, so every value must start with a digit; and a comma
     * must be followed by one ("10," is not a list of one). */
    unsigned long long v = strtoull(p, &end, 10);
    if (!isdigit((unsigned char)*p) || end == p || errno == ERANGE || v == 0 ||
        (*end != ',' && *end != '\0') || (*end == ',' && end[1] == '\0')) {
      cli_error("%s must be a comma-separated list of positive integers, got '%s'", what, s);
      return -1;
    }
    if (k == cap) {
      cli_error("%s: at most %zu values", what, cap);
      return -1;
    }
    out[k++] = (size_t)v;
    p = (*end == ',') ? end + 1 : end;
  }
  if (k == 0) {
    cli_error("%s is empty", what);
    return -1;
  }
  *count = k;
  return 0;
}

/* ---------------------------------------------------------------- */
/* Progress and plot notes of the studies                            */

static int progress_on = -1;

void progress_line(const char *prefix, const char *what, size_t done, size_t total)
{
  if (progress_on < 0)
    progress_on = isatty(STDERR_FILENO);
  if (progress_on)
    fprintf(stderr, "\r%s: %s (%zu/%zu)%10s", prefix, what, done, total, "");
}

void progress_clear(void)
{
  if (progress_on < 0)
    progress_on = isatty(STDERR_FILENO);
  if (progress_on)
    fprintf(stderr, "\r%78s\r", "");
}

void cli_study_progress(const char *study, const char *what, size_t done, size_t total, void *ctx)
{
  (void)ctx;
  if (what)
    progress_line(study, what, done, total);
  else
    progress_clear();
}

void cli_plot_notes(const char *dir, int plot, const tl_study_result *res)
{
  static int said_missing = 0;
  if (!plot || res->plots_made == res->npng)
    return;
  if (!tl_gnuplot_found()) {
    if (!said_missing++)
      fprintf(stderr,
              "tridlab: gnuplot is not installed: no plots made; the .dat and .gp files are "
              "written (run 'gnuplot FILE.gp' in %s to make each plot)\n",
              dir);
  } else if (res->plot_error[0]) {
    cli_error("%s", res->plot_error);
  }
}

int cli_parse_types(const char *s, int *out, size_t cap, size_t *count)
{
  char buf[1024];
  snprintf(buf, sizeof buf, "%s", s);
  size_t k = 0;
  for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    char *end = NULL;
    long id = strtol(tok, &end, 10);
    const tl_gallery_type *t = (end != tok && *end == '\0') ? tl_gallery_find((int)id)
                                                             : tl_gallery_find_name(tok);
    if (!t) {
      cli_error("--types: no gallery type '%s' (see 'tridlab gallery list')", tok);
      return -1;
    }
    if (k == cap) {
      cli_error("--types: at most %zu types", cap);
      return -1;
    }
    out[k++] = t->id;
  }
  if (k == 0) {
    cli_error("--types is empty");
    return -1;
  }
  *count = k;
  return 0;
}

const tl_algorithm *cli_find_contract(const char *contract, const char *like)
{
  if (contract && like) {
    cli_error("--contract and --like exclude each other");
    return NULL;
  }
  if (like) {
    const tl_algorithm *a = tl_find(like);
    if (!a)
      cli_error("--like: no algorithm named '%s' (see 'tridlab list')", like);
    return a;
  }
  const tl_algorithm *c = tl_contract_find(contract ? contract : "thomas-like");
  if (!c)
    cli_error("--contract: no contract '%s' (thomas-like, cr-like, pivoting, periodic, "
              "approximate)",
              contract);
  return c;
}

void cli_cell_add(cli_cell *c, const tl_verify_result *r)
{
  c->n[r->verdict]++;
  if (r->verdict == TL_VERDICT_PASSED && r->resid > c->max_resid)
    c->max_resid = r->resid;
}

void cli_cell_text(const cli_cell *c, char *buf, size_t size)
{
  long pass = c->n[TL_VERDICT_PASSED], rep = c->n[TL_VERDICT_REPORTED];
  if (c->n[TL_VERDICT_SILENT])
    snprintf(buf, size, "SILENT");
  else if (c->n[TL_VERDICT_UNEXPECTED])
    snprintf(buf, size, "UNEXPECTED");
  else if (pass)
    snprintf(buf, size, "%s %.2g", rep ? "pass+rep" : "pass", c->max_resid);
  else if (rep)
    snprintf(buf, size, "rep");
  else
    snprintf(buf, size, "-");
}

int cli_plugin(int argc, char **argv, int *i)
{
  const char *path = cli_value(argc, argv, i, "--plugin");
  tl_info info;
  if (!path)
    return -1;
  if (tl_plugin_load(path, &info) != TL_OK) {
    cli_error("%s", info.msg);
    return -1;
  }
  return 0;
}

void cli_print_dropped(const tl_algorithm *algo, const tl_info *info)
{
  printf("dropped: %.3g   (%s)\n", info->dropped,
         algo->dropped_means ? algo->dropped_means : "what the algorithm neglected");
  printf("tolerance: %.3g   (dropped above it: outside-domain)\n", info->tol);
  printf("bound: %.3g   (%s)\n", info->bound,
         algo->bound_means ? algo->bound_means : "its stated error bound; 0: none");
  if (info->iterations)
    printf("iterations: %d\n", info->iterations);
}
