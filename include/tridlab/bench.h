/* tridlab/bench.h -- the benchmark library (bench/): the optimized CPU
 * kernels, and the reference algorithms, against the memory bandwidth of
 * this machine (docs/design.md §7, docs/performance.md). `tridlab bench`
 * and `tridlab-bench-ref` are thin drivers of these calls; a C program
 * (or another driver) gets the same figures from the same code.
 *
 * THE KERNEL TABLE. Each kernel declares its byte model -- the words it
 * must move per unknown (general Thomas in place: read a, b, c, d, write
 * d = 5; the fused compact derivative: read u, write du = 2) -- and its
 * same-traffic limit kernel: a streaming kernel that moves exactly the
 * kernel's arrays the same way (read, write or read-modify-write),
 * element-wise, with no recurrence. tl_bench_kernels lists them.
 *
 * THE TIMING DRIVER (tl_bench_time), BabelStream's shape: the untimed
 * restore of the inputs before every run, one warm-up run discarded,
 * `reps` timed runs, medians, and the spread (smallest and largest).
 * When a limit is given, every timed run is paired with a timed run of
 * it, and the ratio is the median of the paired t_limit / t.
 *
 * THE SWEEP (tl_bench_run): every selected kernel, precision, thread
 * count, n, SZ and direction; GB/s under the byte model, copy_ratio (to a
 * STREAM copy d = d0 timed at the start of each precision and thread
 * count), limit_ratio (to the kernel's limit, paired runs) and the
 * speed-ups over the reference Thomas loop and the LAPACK xGTSV loop on
 * the same batch. GB = 1e9 bytes. Nothing is printed but the CSV to the
 * FILE* the caller passes; progress goes to a callback; errors to
 * tl_info.
 */
#ifndef TRIDLAB_BENCH_H
#define TRIDLAB_BENCH_H

#include <stddef.h>
#include <stdio.h>

#include "tridlab/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TL_BENCH_MAX_LIST 32 /* sizes, thread counts, group sizes */
#define TL_BENCH_MAX_REPS 101

/* ------------------------------------------------------------------ */
/* The timing driver                                                   */

/* One step of a measurement on `arg`: a status, negative when it failed
 * (a failed run is reported, never hidden). */
typedef int (*tl_bench_fn)(void *arg);

typedef struct tl_bench_timing {
  double t, t_min, t_max;                   /* the runs: median, spread    */
  double t_limit, t_limit_min, t_limit_max; /* the paired limit runs       */
  double ratio;                             /* median of t_limit / t       */
  double t_part;                            /* median of the runs' *part   */
  int failed;                               /* 1: a run returned < 0       */
} tl_bench_timing;

/* Time `run` on arg: for each of 1 + reps runs, restore (untimed), the
 * limit (timed; then restore again), run (timed); the first is the
 * warm-up and discarded. restore and limit may be NULL (no restore; no
 * limit: the limit fields are 0). TL_OK, or TL_ERR_ARG when reps is not
 * in 1..TL_BENCH_MAX_REPS or run is NULL. A run that fails sets
 * out->failed; the times are still filled. */
int tl_bench_time(tl_bench_fn restore, tl_bench_fn limit, tl_bench_fn run, void *arg, long reps,
                  tl_bench_timing *out, tl_info *info);

/* The same driver for a run spread over several processes (the MPI
 * bench): two more steps, each optional.
 *   sync     before each timed step, untimed: e.g. a barrier, so that
 *            every process starts together;
 *   combine  after each pair, on {t_run, t_limit, part} as this process
 *            measured them: may replace them by what the measurement
 *            reports, e.g. the slowest process's (an allreduce of the
 *            maximum). part is the share of t_run that run wrote to
 *            *part (say, its communication; 0 when part is NULL); its
 *            median goes to out->t_part.
 * tl_bench_time is tl_bench_time_steps with these NULL. */
typedef struct tl_bench_steps {
  tl_bench_fn restore, limit, run;
  void (*sync)(void *arg);
  void (*combine)(void *arg, double t[3]);
  double *part;
} tl_bench_steps;

int tl_bench_time_steps(const tl_bench_steps *steps, void *arg, long reps, tl_bench_timing *out,
                        tl_info *info);

/* The median of k values (the mean of the two middle ones when k is even),
 * k <= 4 * TL_BENCH_MAX_REPS; v is not modified. NaN when k is 0. */
double tl_bench_median(const double *v, size_t k);

/* The compact derivative the benchmarks time (the fused kernel, DistD2's
 * compact entry across ranks): Lele's 6th-order first derivative on a
 * periodic grid of n points, h = 1/n, from the convergence room's scheme
 * table -- its row lhs = [1/3, 1, 1/3] and its 5-point right-hand side
 * st (divided by h). TL_ERR_ARG if the table has no such scheme. */
int tl_bench_compact_row(size_t n, double lhs[3], double st[5], tl_info *info);

/* Seconds on a monotonic clock. */
double tl_bench_now(void);

/* ------------------------------------------------------------------ */
/* The kernel table                                                    */

/* The state of one measurement; its layout is the library's. */
typedef struct tl_bench_ctx tl_bench_ctx;

typedef struct tl_bench_kernel {
  const char *name;
  const char *summary;    /* one line: what is timed                      */
  const char *moves;      /* the byte model: "read a b c d, write d"      */
  double words;           /* declared words moved per unknown             */
  const char *limit_name; /* what the same-traffic limit kernel does      */
  int per_dir;            /* 1: runs along x, y and z (Cartesian arrays)  */
  int uses_sz;            /* 1: runs once per group size SZ               */
  int double_only;
  void (*run)(tl_bench_ctx *);   /* timed; sets the status               */
  void (*limit)(tl_bench_ctx *); /* timed, paired with every run         */
  /* Untimed, before every run (and every limit run): what the kernel
   * overwrites beyond d; the driver then restores d = d0. */
  void (*restore)(tl_bench_ctx *);
  int answer_in_work; /* 1: its answer is in a work array, not in d     */
} tl_bench_kernel;

/* Every kernel, in the order of the CSV; *count gets their number. */
const tl_bench_kernel *tl_bench_kernels(size_t *count);
/* The kernel of that name, or NULL. */
const tl_bench_kernel *tl_bench_kernel_find(const char *name);

/* That the kernel's restore gives every timed run the original input:
 * the kernel on 64 systems of n rows (each direction when it has them)
 * timed by tl_bench_time (3 runs, its limit paired), then its answer
 * compared with one run on the untouched input. *maxdiff: the largest
 * difference (0 when the restore is right: the runs are deterministic).
 * TL_OK, TL_ERR_ARG, TL_ERR_NOMEM, or TL_ERR_BREAKDOWN when it failed. */
int tl_bench_check_restore(const tl_bench_kernel *k, size_t n, int fl, double *maxdiff,
                           tl_info *info);

/* ------------------------------------------------------------------ */
/* The sweep                                                           */

enum { TL_BENCH_DOUBLE = 1, TL_BENCH_FLOAT = 2 };

typedef struct tl_bench_config {
  size_t sizes[TL_BENCH_MAX_LIST], nsizes;     /* n                       */
  size_t threads[TL_BENCH_MAX_LIST], nthreads; /* thread counts           */
  size_t szs[TL_BENCH_MAX_LIST], nszs;         /* nszs = 0: tl_cpu_sz_default per n */
  size_t unknowns;     /* per batch; nsys = unknowns / n, a multiple of 64 */
  long reps;           /* timed runs per measurement                      */
  unsigned precisions; /* TL_BENCH_DOUBLE | TL_BENCH_FLOAT                */
  unsigned dirs;       /* bit 1 << TL_DIR_X, Y, Z: the Cartesian kernels' */
  const char *kernels; /* comma-separated names, or NULL: all             */
  size_t offset;       /* bytes past each array's 2 MiB boundary (0; 16:
                          where malloc puts a large array)               */
} tl_bench_config;

/* The defaults: n = 32, 64, ..., 8192, 2^25 unknowns, 7 runs, 1 and all
 * threads, both precisions, x, y, z, every kernel. quick: n = 256, 4096,
 * 2^22 unknowns, 3 runs. */
void tl_bench_config_init(tl_bench_config *cfg, int quick);
/* TL_OK, or TL_ERR_ARG with a one-line reason (an unknown kernel, a size
 * under 3 or leaving fewer than 64 systems, an unsupported SZ, ...). */
int tl_bench_config_check(const tl_bench_config *cfg, tl_info *info);
/* 1 when the kernel is selected by cfg->kernels. */
int tl_bench_selected(const tl_bench_config *cfg, const char *name);

/* One measurement: a row of the CSV. */
typedef struct tl_bench_row {
  const char *kernel;
  size_t n, nsys, sz, threads;              /* sz = 0: the kernel takes none           */
  char dir;                                 /* 'x', 'y', 'z', or '-'                   */
  int fl;                                   /* 1: float                                */
  double words;                             /* the byte model                          */
  double t, t_min, t_max;                   /* seconds per run: median and spread      */
  double t_limit, t_limit_min, t_limit_max; /* the limit kernel's         */
  double gbs, limit_gbs, copy, limit_ratio;
  double speedup_ref, speedup_gtsv; /* NaN when they do not apply         */
} tl_bench_row;

typedef struct tl_bench_results {
  tl_bench_row *rows;
  size_t count, cap;
} tl_bench_results;

void tl_bench_results_free(tl_bench_results *res);

/* Called before each measurement (count of total, an upper bound). */
typedef void (*tl_bench_progress)(void *arg, long count, long total, const char *kernel, size_t n,
                                  int fl, size_t threads);

/* The sweep of cfg. The rows of each n go to csv (NULL: none) as they
 * are complete, after tl_bench_csv_header; all of them to res (freed by
 * the caller, also on error). The thread count is restored at the end.
 * TL_OK; TL_ERR_ARG (cfg); TL_ERR_NOMEM; TL_ERR_BREAKDOWN when a kernel
 * reported an error (info.msg names it and n). */
int tl_bench_run(const tl_bench_config *cfg, FILE *csv, tl_bench_progress progress,
                 void *progress_arg, tl_bench_results *res, tl_info *info);

/* The CSV: kernel,n,dir,precision,threads,sz,nsys,words_per_unknown,
 * time_s,ns_per_unknown,gbs,copy_gbs,copy_ratio,limit_gbs,limit_ratio,
 * speedup_ref,speedup_gtsv. */
void tl_bench_csv_header(FILE *f);
void tl_bench_csv_row(FILE *f, const tl_bench_row *w);

/* The table of targets (docs/performance.md): medians over n = 256..4096
 * when measured (else every n), one column per thread count of cfg. */
void tl_bench_summary(FILE *f, const tl_bench_results *res, const tl_bench_config *cfg);

/* PREFIX.dat (one block per series) and PREFIX.gp (time per unknown
 * against n, one panel for the first and one for the last thread count),
 * naming its files relative to its own directory, then PREFIX.png by
 * gnuplot. TL_OK when the .dat and .gp were written (*png_status: TL_OK,
 * TL_ERR_UNSUPPORTED without gnuplot, TL_ERR_IO with gnuplot's message in
 * png_info), else TL_ERR_IO or TL_ERR_NOMEM. */
int tl_bench_plot(const char *prefix, const tl_bench_results *res, const tl_bench_config *cfg,
                  int *png_status, tl_info *png_info, tl_info *info);

/* ------------------------------------------------------------------ */
/* The reference algorithms                                            */

/* The throughput of every registry algorithm that takes plain systems
 * (only: that one; NULL: all) on gallery type 20 at n = 64, 512, 4096,
 * 2^21 unknowns per batch: 5 words per unknown (tl_solve reads a, b, c, d
 * and writes x; the inputs are never modified, so nothing is restored),
 * against a memcpy of as many bytes in the same run, 7 timed runs after
 * one warm-up. CSV to f: algo,n,nsys,ns_per_unknown,gbs,copy_gbs,
 * copy_ratio. TL_OK, TL_ERR_NOMEM, or the gallery's error. */
int tl_bench_reference(FILE *f, const char *only, tl_info *info);

#ifdef __cplusplus
}
#endif
#endif
