/* tridlab/study.h -- the studies of `tridlab sweep` and the convergence
 * figures of `tridlab report` as library calls, and the output helpers
 * they write their files with.
 *
 * A study runs one of the library's measurements (tridlab/sweep.h,
 * tridlab/convergence.h) at chosen sizes and writes into a directory:
 * its CSV, gnuplot data (.dat) and script (.gp), and the plot (.png) when
 * gnuplot is installed. It returns what it wrote and a few sentences of
 * findings computed from the numbers. Nothing is printed: the table goes
 * to a FILE* the caller passes (NULL: none), progress to a callback the
 * caller passes (NULL: none), and errors to tl_info. A C program or
 * another driver (an MPI or GPU one) runs the same studies as
 * `tridlab sweep` and `tridlab report` with tl_study_run.
 *
 *   kind TL_STUDY_SWEEP        its-compact, its-nonconst, its-n, bondeli,
 *                              dominance, jacobi-reduced (docs/sweeps.md)
 *   kind TL_STUDY_CONVERGENCE  the report's convergence figures: compact
 *                              schemes through chosen solvers
 *                              (docs/convergence.md, docs/report.md)
 */
#ifndef TRIDLAB_STUDY_H
#define TRIDLAB_STUDY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tridlab/convergence.h"
#include "tridlab/ledger.h"
#include "tridlab/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TL_STUDY_MAX_LIST 64
#define TL_STUDY_MAX_FILES 12

typedef enum tl_study_kind { TL_STUDY_SWEEP = 1, TL_STUDY_CONVERGENCE = 2 } tl_study_kind;

/* The options of the studies; tl_study_args_init gives the defaults (or
 * the quick sizes). A caller that sets a study option sets its bit in
 * `given` (TL_STUDY_OPT_*); tl_study_run fills what is not given with the
 * study's own default. */
typedef struct tl_study_args {
  const char *out; /* output directory, created if missing              */
  int quick;       /* smaller sizes                                      */
  int plot;        /* 0: no gnuplot (the .dat and .gp are still written) */
  long n, parts, kmax, rpdd_J;
  uint64_t seed;
  size_t nmin, nmax;
  size_t J[TL_STUDY_MAX_LIST], nJ;
  size_t m[TL_STUDY_MAX_LIST], nm;
  double lambda[TL_STUDY_MAX_LIST];
  size_t nlambda;
  double eps_c[TL_STUDY_MAX_LIST];
  size_t neps;
  unsigned given; /* TL_STUDY_OPT_* bits of the options set by the caller */
} tl_study_args;

/* The option bits; the names are those of `tridlab sweep`. */
enum {
  TL_STUDY_OPT_N = 1u << 0,      /* --n            */
  TL_STUDY_OPT_PARTS = 1u << 1,  /* --parts        */
  TL_STUDY_OPT_J = 1u << 2,      /* --J            */
  TL_STUDY_OPT_M = 1u << 3,      /* --m            */
  TL_STUDY_OPT_LAMBDA = 1u << 4, /* --lambda       */
  TL_STUDY_OPT_EPS = 1u << 5,    /* --eps-c        */
  TL_STUDY_OPT_NRANGE = 1u << 6, /* --nmin/--nmax  */
  TL_STUDY_OPT_KMAX = 1u << 7,   /* --kmax         */
  TL_STUDY_OPT_RPDD_J = 1u << 8, /* --rpdd-J       */
  TL_STUDY_OPT_SEED = 1u << 9    /* --seed         */
};

/* What one study wrote and found. File names are inside the output
 * directory. */
typedef struct tl_study_result {
  char csv[TL_STUDY_MAX_FILES][128];
  size_t ncsv;
  char png[TL_STUDY_MAX_FILES][128]; /* plots asked for (made or not)      */
  char caption[TL_STUDY_MAX_FILES][160];
  size_t npng;
  size_t plots_made; /* how many of them gnuplot wrote                      */
  /* The first plot gnuplot failed on (installed, but it exited with an
   * error or wrote nothing); "" when none did. */
  char plot_error[256];
  /* Sweeps: a few sentences with the measured numbers. Convergence
   * figures: one Markdown bullet per series ("- **label**: ..."). */
  char findings[8192];
  /* The command that reproduces it (sweeps), or one `tridlab converge`
   * command per series, one per line (convergence figures). */
  char command[4096];
} tl_study_result;

/* Progress of a study: called after each row with the study's name and
 * the row ("J = 7", "lambda = 2.5, m = 16"); with what == NULL once a
 * phase is over, before the study writes its table (a terminal's
 * progress line is cleared there). */
typedef struct tl_study_progress {
  void (*fn)(const char *study, const char *what, size_t done, size_t total, void *ctx);
  void *ctx;
} tl_study_progress;

/* A study of the table. */
typedef struct tl_study {
  const char *name; /* "its-compact", "conv-periodic", ...                 */
  tl_study_kind kind;
  const char *summary; /* one line (sweeps) or the figure's title             */
  /* Convergence figures: what the figure shows and what to look for; NULL
   * for the sweeps (docs/sweeps.md describes them). */
  const char *description;
  unsigned opts; /* the TL_STUDY_OPT_* options it takes                   */
} tl_study;

size_t tl_study_count(void);
const tl_study *tl_study_get(size_t index); /* NULL past the end */
const tl_study *tl_study_find(const char *name);

/* Defaults of every study for `quick` (out = "sweep"). */
void tl_study_args_init(tl_study_args *sa, int quick);

/* Run the study `name` into args->out (created if missing): its CSV, .dat
 * and .gp files, and its plots when args->plot and gnuplot is installed
 * (a plot gnuplot fails on is not an error: res->plot_error says which);
 * the table on `table` (NULL: none), progress through `progress` (NULL:
 * none). TL_OK; TL_ERR_ARG (info.msg names the study and the option: an
 * unknown study, an option it does not take, a bad value), TL_ERR_IO (a
 * file could not be written, info.msg names it), TL_ERR_NOMEM. */
int tl_study_run(const char *name, const tl_study_args *args, FILE *table,
                 const tl_study_progress *progress, tl_study_result *res, tl_info *info);

/* ------------------------------------------------------------------ */
/* A convergence study's files                                         */

/* One series of a convergence figure: a study's configuration and rows. */
typedef struct tl_converge_series {
  const char *label; /* legend and the CSV's series column; NULL: none   */
  const tl_converge_config *cfg;
  size_t fixed_m; /* > 0: rows from tl_sweep_converge_fixed_m (P = n / m) */
  const tl_converge_row *rows;
  size_t count;
} tl_converge_series;

/* The CSV of `tridlab converge --csv` and of the report's figures: a
 * header, then one row per series and n (series_column: a first column
 * with the series' label):
 * [series,]scheme,boundary,function,wavenumber,length,algo,parts,n,h,
 * err_max,err_l2,order_max,order_l2,solver_diff,dropped,status,note */
void tl_converge_csv(FILE *f, const tl_converge_series *series, size_t ns, int series_column);

/* How to plot them: log-log error against n. */
typedef struct tl_converge_plot {
  const char *title;
  const char *origin; /* the script's first comment: "tridlab converge"  */
  int width, height;  /* pixels                                          */
  /* 1: the max and L2 errors and the solver's difference to LAPACK of
   * each series (for one series); 0: the max error of each series. */
  int all_errors;
  /* Reference slopes n^-p through the first series' first point (0 ends
   * the list). */
  int slopes[4];
} tl_converge_plot;

/* dir/stem.dat (one block per series: n h err_max err_l2 order_max
 * order_l2 solver_diff status) and dir/stem.gp, a script that names its
 * files relative to dir and writes `png` (NULL: stem.png). Run
 * tl_gnuplot_make to make the plot. TL_OK or TL_ERR_IO. */
int tl_converge_plot_write(const char *dir, const char *stem, const char *png,
                           const tl_converge_series *series, size_t ns,
                           const tl_converge_plot *plot, tl_info *info);

/* ------------------------------------------------------------------ */
/* Output helpers                                                      */

/* mkdir -p. TL_OK, or TL_ERR_IO naming the directory. */
int tl_out_mkdir(const char *dir, tl_info *info);
/* fopen(dir/name, "w"); NULL with TL_ERR_IO in info. */
FILE *tl_out_open(const char *dir, const char *name, tl_info *info);
/* fclose; TL_OK, or TL_ERR_IO when the data could not be written. */
int tl_out_close(FILE *f, const char *dir, const char *name, tl_info *info);
/* 1 when dir/name exists and can be read. */
int tl_out_exists(const char *dir, const char *name);
/* A CSV number (%.9e, "nan", "inf", "-inf") and a quoted CSV string. */
void tl_csv_num(FILE *f, double v);
void tl_csv_str(FILE *f, const char *s);
/* The end of a study's CSV row: count numbers, each followed by a comma,
 * the status name, a comma, the quoted note and a newline. */
void tl_csv_row_end(FILE *f, const double *v, size_t count, int status, const char *note);
/* A gnuplot data value, with a space before it: " ?" (missing) when not
 * finite, or not positive when `logscale`. */
void tl_dat_num(FILE *f, double v, int logscale);
/* A gnuplot single-quoted string. */
void tl_gp_str(FILE *f, const char *s);
/* A script's first lines: terminal pngcairo (png when cairo is missing),
 * size, output file, '?' as the missing value, a grid. */
void tl_gp_begin(FILE *f, const char *png, int width, int height);
/* 1 when gnuplot is in $PATH. */
int tl_gnuplot_found(void);
/* Run gnuplot on dir/script (in dir, its output captured) to make
 * dir/png. TL_OK: made; TL_ERR_UNSUPPORTED: gnuplot is not installed;
 * TL_ERR_IO: gnuplot failed or wrote no png (info.msg says which, with
 * gnuplot's last message). */
int tl_gnuplot_make(const char *dir, const char *script, const char *png, tl_info *info);

/* ------------------------------------------------------------------ */
/* A picture of a communication ledger                                 */

/* Draw a ledger (tridlab/ledger.h: a simulated solve's, as `tridlab
 * trace` records it, or the entries of MPI ranks merged) with gnuplot
 * (convergence/ledger_plot.c): the ranks as horizontal lanes, the steps
 * -- each (phase, round) and kind of traffic, in the order the ledger
 * first records them -- going right; a message is an arrow from its
 * sender's lane to its receiver's with its words on it; a gather,
 * scatter or bcast a fan of dashed arrows into or out of its root; an
 * allreduce, allgather or alltoall a bar across the lanes that take
 * part, named above them with its words per rank. The verdict's traffic
 * (tl_ledger_is_verdict) is drawn in another colour on a shaded band.
 * Writes PREFIX.dat and PREFIX.gp, then PREFIX.png with gnuplot; title
 * NULL: "the ledger". TL_OK; TL_ERR_ARG for a NULL ledger or prefix, an
 * empty or incomplete (failed) ledger, an invalid entry, or more than 64
 * steps (nothing written); TL_ERR_IO; TL_ERR_UNSUPPORTED when gnuplot is
 * not installed (the .dat and .gp are written). info may be NULL. */
int tl_ledger_plot(const tl_ledger *ledger, const char *title, const char *prefix, tl_info *info);

#ifdef __cplusplus
}
#endif
#endif
