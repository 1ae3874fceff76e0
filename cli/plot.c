/* cli/plot.c -- output helpers of `tridlab sweep` and `tridlab report`:
 * the output directory, CSV fields, gnuplot data and scripts, running
 * gnuplot, progress lines. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "study.h"

int out_mkdir(const char *dir)
{
  char path[4096];
  int w = snprintf(path, sizeof path, "%s", dir);
  if (w <= 0 || (size_t)w >= sizeof path) {
    cli_error("output directory name too long: %s", dir);
    return -1;
  }
  /* Create each component in turn, as mkdir -p does. */
  for (char *p = path + 1;; p++) {
    if (*p == '/' || *p == '\0') {
      char keep = *p;
      *p = '\0';
      if (mkdir(path, 0777) != 0 && errno != EEXIST) {
        cli_error("cannot create directory %s: %s", path, strerror(errno));
        return -1;
      }
      *p = keep;
      if (keep == '\0')
        break;
    }
  }
  struct stat st;
  if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
    cli_error("%s is not a directory", dir);
    return -1;
  }
  return 0;
}

static int join(char *buf, size_t size, const char *dir, const char *name)
{
  int w = snprintf(buf, size, "%s/%s", dir, name);
  return w > 0 && (size_t)w < size ? 0 : -1;
}

FILE *out_open(const char *dir, const char *name)
{
  char path[4096];
  FILE *f = NULL;
  if (join(path, sizeof path, dir, name) == 0)
    f = fopen(path, "w");
  if (!f)
    cli_error("cannot write %s/%s", dir, name);
  return f;
}

int out_close(FILE *f, const char *dir, const char *name)
{
  if (fclose(f) != 0) {
    cli_error("cannot write %s/%s", dir, name);
    return -1;
  }
  return 0;
}

int out_exists(const char *dir, const char *name)
{
  char path[4096];
  return join(path, sizeof path, dir, name) == 0 && access(path, R_OK) == 0;
}

void csv_num(FILE *f, double v)
{
  if (isnan(v))
    fputs("nan", f);
  else if (isinf(v))
    fputs(v > 0 ? "inf" : "-inf", f);
  else
    fprintf(f, "%.9e", v);
}

void csv_str(FILE *f, const char *s)
{
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"')
      fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

void dat_num(FILE *f, double v, int logscale)
{
  if (!isfinite(v) || (logscale && !(v > 0.0)))
    fputs(" ?", f);
  else
    fprintf(f, " %.9e", v);
}

void gp_str(FILE *f, const char *s)
{
  fputc('\'', f);
  for (; *s; s++) {
    if (*s == '\'')
      fputc('\'', f);
    fputc(*s, f);
  }
  fputc('\'', f);
}

void gp_begin(FILE *f, const char *png, int width, int height)
{
  fprintf(f,
          "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
          "  set terminal pngcairo enhanced size %d,%d\n"
          "} else {\n"
          "  set terminal png enhanced size %d,%d\n"
          "}\n",
          width, height, width, height);
  fputs("set output ", f);
  gp_str(f, png);
  fputs("\nset datafile missing '?'\nset grid\n", f);
}

int gnuplot_found(void)
{
  const char *path = getenv("PATH");
  if (!path)
    return 0;
  char buf[4096];
  while (*path) {
    size_t len = strcspn(path, ":");
    int w = snprintf(buf, sizeof buf, "%.*s%sgnuplot", (int)len, path, len ? "/" : "./");
    if (w > 0 && (size_t)w < sizeof buf && access(buf, X_OK) == 0)
      return 1;
    path += len;
    if (*path == ':')
      path++;
  }
  return 0;
}

int gnuplot_make(const char *dir, const char *script, const char *png)
{
  static int said_missing = 0;
  if (!gnuplot_found()) {
    if (!said_missing++)
      fprintf(stderr,
              "tridlab: gnuplot is not installed: no plots made; the .dat and .gp files are "
              "written (run 'gnuplot FILE.gp' in %s to make each plot)\n",
              dir);
    return 1;
  }
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    cli_error("cannot run gnuplot: %s", strerror(errno));
    return -1;
  }
  if (pid == 0) {
    /* gnuplot's chatter goes to stderr; the script names its files
     * relative to the directory. */
    if (chdir(dir) != 0)
      _exit(127);
    execlp("gnuplot", "gnuplot", script, (char *)NULL);
    _exit(127);
  }
  int st;
  if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
    cli_error("gnuplot failed on %s/%s: no plot made", dir, script);
    return -1;
  }
  if (!out_exists(dir, png)) {
    cli_error("gnuplot ran but %s/%s was not written", dir, png);
    return -1;
  }
  return 0;
}

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
