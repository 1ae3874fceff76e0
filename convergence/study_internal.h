/* convergence/study_internal.h -- what the study runners share
 * (convergence/studies.c, study_sweeps.c, study_converge.c). Private to
 * the library, not installed. */
#ifndef TRIDLAB_STUDY_INTERNAL_H
#define TRIDLAB_STUDY_INTERNAL_H

#include <stdio.h>

#include "tridlab/study.h"
#include "tridlab/sweep.h"

/* One run of a study: its arguments (defaults filled), where the table
 * and the progress go, what it wrote, and the status it fails with. */
typedef struct study_ctx {
  const char *name;
  const tl_study_args *sa;
  FILE *table; /* NULL: no table */
  const tl_study_progress *progress;
  tl_study_result *res;
  tl_info *info;
} study_ctx;

#define STUDY_NPALETTE 8
extern const char *const study_palette[STUDY_NPALETTE];

/* Append to res->findings (printf format); silently cut at its size. */
void study_findings(tl_study_result *res, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Record a CSV file written. */
void study_add_csv(tl_study_result *res, const char *name);

/* "" (ok), "*" (outside-domain: solved, no guarantee), "!" (failed). */
const char *study_mark(int status);

/* A number for a table: "-" when NaN. */
const char *study_num(char *buf, size_t size, const char *fmt, double v);

/* Progress of the study (c->progress may be NULL): a row, or the end of
 * a phase. */
void study_progress(const study_ctx *c, const char *what, size_t done, size_t total);
void study_progress_end(const study_ctx *c);

/* A library study's progress (tridlab/sweep.h) forwarded to the study's. */
tl_sweep_progress study_sweep_progress(const study_ctx *c);

/* Fail the study with the message of a library call's info, prefixed by
 * the study's name and `where` (may be NULL): "sweep its-n: n = 96: ...".
 * Returns the failing status. */
int study_fail(const study_ctx *c, const tl_info *inner, const char *where);

/* dir/<stem>.dat opened and closed; NULL or TL_ERR_IO with c->info set. */
FILE *study_open_dat(const study_ctx *c, const char *stem);
int study_close_dat(const study_ctx *c, FILE *f, const char *stem);

/* dir/<stem>.gp opened with its first lines (a comment, terminal, size,
 * output); study_finish_plot closes it, records the PNG with its caption
 * and runs gnuplot when asked. TL_OK or TL_ERR_IO. */
FILE *study_open_plot(const study_ctx *c, const char *stem, int width, int height);
int study_finish_plot(const study_ctx *c, FILE *f, const char *stem, const char *caption);

/* Record dir/png with its caption, and make it from dir/script with
 * gnuplot when asked: a failure is kept in res->plot_error, not returned. */
void study_make_plot(const study_ctx *c, const char *script, const char *png, const char *caption);

/* The sweeps (study_sweeps.c). */
int study_run_its_compact(const study_ctx *c);
int study_run_its_nonconst(const study_ctx *c);
int study_run_its_n(const study_ctx *c);
int study_run_bondeli(const study_ctx *c);
int study_run_dominance(const study_ctx *c);
int study_run_jacobi(const study_ctx *c);

/* The convergence figures (study_converge.c): figure k of the table
 * (NULL past the end), and the runner of one of them. */
const tl_study *study_converge_get(size_t k);
int study_run_converge(const study_ctx *c, const tl_study *figure);

#endif
