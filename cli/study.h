/* cli/study.h -- what `tridlab sweep` and `tridlab report` share: the
 * studies of `sweep` as callable pieces, and the helpers that write CSV,
 * gnuplot data and scripts into an output directory. Private to the
 * command (not installed). */
#ifndef TRIDLAB_CLI_STUDY_H
#define TRIDLAB_CLI_STUDY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define STUDY_MAX_LIST 64
#define STUDY_MAX_FILES 12

/* The options of the studies; study_args_init gives the defaults (or the
 * --quick sizes), the command line overrides what it names. */
typedef struct study_args {
  const char *out; /* output directory                                  */
  int quick;       /* smaller sizes                                      */
  int plot;        /* 0: no gnuplot (the .dat and .gp are still written) */
  long n, parts, kmax, rpdd_J;
  uint64_t seed;
  size_t nmin, nmax;
  size_t J[STUDY_MAX_LIST], nJ;
  size_t m[STUDY_MAX_LIST], nm;
  double lambda[STUDY_MAX_LIST];
  size_t nlambda;
  double eps_c[STUDY_MAX_LIST];
  size_t neps;
  unsigned given; /* STUDY_OPT_* bits set on the command line            */
} study_args;

enum {
  STUDY_OPT_N = 1u << 0,
  STUDY_OPT_PARTS = 1u << 1,
  STUDY_OPT_J = 1u << 2,
  STUDY_OPT_M = 1u << 3,
  STUDY_OPT_LAMBDA = 1u << 4,
  STUDY_OPT_EPS = 1u << 5,
  STUDY_OPT_NRANGE = 1u << 6,
  STUDY_OPT_KMAX = 1u << 7,
  STUDY_OPT_RPDD_J = 1u << 8,
  STUDY_OPT_SEED = 1u << 9
};

/* What one study wrote and found. */
typedef struct study_result {
  char csv[STUDY_MAX_FILES][128]; /* file names inside the output directory */
  size_t ncsv;
  char png[STUDY_MAX_FILES][128]; /* plots asked for (made or not)         */
  char caption[STUDY_MAX_FILES][160];
  size_t npng;
  char findings[4096]; /* a few sentences with the measured numbers    */
  char command[512];   /* the command that reproduces it               */
} study_result;

/* Number of studies and their names, in order ("its-compact", ...). */
size_t study_count(void);
const char *study_name(size_t k);
const char *study_summary(size_t k);

/* Defaults of every study for `quick`. */
void study_args_init(study_args *sa, int quick);

/* Run study `name` into sa->out (created if missing): CSV, .dat, .gp and
 * the PNG when gnuplot is there; the table on `table` (NULL: none),
 * progress on stderr when it is a terminal. 0, or 1 with a message (bad
 * option for this study, file not written). */
int study_run(const char *name, const study_args *sa, FILE *table, study_result *res);

/* ---- output helpers (cli/plot.c) ---------------------------------- */

/* mkdir -p; 0, or -1 with a message. */
int out_mkdir(const char *dir);
/* fopen(dir/name, "w"); NULL with a message. */
FILE *out_open(const char *dir, const char *name);
/* fclose with a message on failure; 0 or -1. */
int out_close(FILE *f, const char *dir, const char *name);
/* 1 when dir/name exists. */
int out_exists(const char *dir, const char *name);
/* A CSV number (%.9e, "nan", "inf") and a quoted CSV string. */
void csv_num(FILE *f, double v);
void csv_str(FILE *f, const char *s);
/* A gnuplot data value: " ?" (missing) when not finite, or not positive
 * when `logscale`. */
void dat_num(FILE *f, double v, int logscale);
/* A gnuplot single-quoted string. */
void gp_str(FILE *f, const char *s);
/* The script's first lines: terminal pngcairo (png if cairo is missing),
 * size, output file. */
void gp_begin(FILE *f, const char *png, int width, int height);
/* 1 when gnuplot is in $PATH. */
int gnuplot_found(void);
/* Run gnuplot on dir/script to make dir/png. 0: made; 1: gnuplot is not
 * installed (said once on stderr); -1: gnuplot failed (said). */
int gnuplot_make(const char *dir, const char *script, const char *png);

/* Progress on stderr, only when it is a terminal: "\r<what> (k/n)". */
void progress_line(const char *prefix, const char *what, size_t done, size_t total);
void progress_clear(void);

#endif
