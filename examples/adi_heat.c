/* examples/adi_heat.c -- tutorial 07: the 2-D heat equation by
 * Peaceman-Rachford ADI, each half step a batch of tridiagonal solves by
 * any registry algorithm, timed, and checked against the analytic decay.
 *
 *   build/examples/adi_heat [ALGO [P [N]]] [--plot PREFIX]
 *       ALGO default thomas; P for a partitioned algorithm, default 4; N
 *       interior points a side, default 63; --plot: the solution at T and
 *       its error drawn with gnuplot as PREFIX.png (beside PREFIX.dat and
 *       PREFIX.gp), with the library's gnuplot helpers (tridlab/study.h)
 *
 * u_t = u_xx + u_yy on the unit square, u = 0 on the boundary, u(x, y, 0)
 * = sin(pi x) sin(pi y), so u = exp(-2 pi^2 t) sin(pi x) sin(pi y). On an
 * N x N interior grid (h = 1/(N+1)), with r = dt/h^2 and d2 the second
 * difference, one step is two half steps:
 *
 *   (I - r/2 d2_x) u* = (I + r/2 d2_y) u^k       N systems, one per grid row
 *   (I - r/2 d2_y) u^{k+1} = (I + r/2 d2_x) u*   N systems, one per column
 *
 * Each half step is one batch of N systems of N rows, tridiag(-r/2, 1 + r,
 * -r/2): strictly dominant, symmetric positive definite. The columns are
 * transposed into rows so that every batch is contiguous.
 *
 * Prints the time per step and the error against the analytic solution at
 * T; exit status 0 when every solve is ok and the error is below 1e-3 of
 * the amplitude (the discretisation error here is about 2e-4).
 */
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tridlab/backend.h" /* TL_FAIL: a failure with its message */
#include "tridlab/tridlab.h"

#define STEPS 50
#define DT 1e-3
static const double pi = 3.14159265358979323846;
static int N = 63; /* interior points a side: h = 1/(N+1) */

static double seconds(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* w = (I + r/2 d2) u along rows (u row-major, N x N, zero outside). */
static void explicit_rows(const double *u, double r, double *w)
{
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      double left = j > 0 ? u[i * N + j - 1] : 0, right = j < N - 1 ? u[i * N + j + 1] : 0;
      w[i * N + j] = u[i * N + j] + 0.5 * r * (left - 2 * u[i * N + j] + right);
    }
}

static void transpose(const double *u, double *t)
{
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      t[j * N + i] = u[i * N + j];
}

/* The batch matrix of a half step: N copies of tridiag(-r/2, 1 + r, -r/2). */
static void implicit_matrix(double r, double *a, double *b, double *c)
{
  for (int k = 0; k < N * N; k++) {
    int j = k % N;
    a[k] = j > 0 ? -0.5 * r : 0;
    b[k] = 1 + r;
    c[k] = j < N - 1 ? -0.5 * r : 0;
  }
}

typedef struct work {
  double *a, *b, *c, *u, *w, *t; /* N * N each, one allocation */
} work;

/* One ADI step with algo; u is row-major in and out. */
static int adi_step(const tl_algorithm *algo, const tl_options *opt, work *s, tl_info *info)
{
  tl_batch sys = {TL_F64, N, N, 0, s->a, s->b, s->c, s->t};
  double r = DT * (N + 1) * (N + 1);
  /* Half step 1: implicit in x (along rows), explicit in y (along columns). */
  transpose(s->u, s->t);
  explicit_rows(s->t, r, s->w); /* (I + r/2 d2_y) u, in column order */
  transpose(s->w, s->t);        /* back to rows: the right sides of the x solves */
  int st = tl_solve(algo, &sys, s->w, opt, info);
  if (st != TL_OK)
    return st;
  /* Half step 2: implicit in y, explicit in x. */
  explicit_rows(s->w, r, s->u);
  transpose(s->u, s->t); /* columns as rows */
  st = tl_solve(algo, &sys, s->w, opt, info);
  transpose(s->w, s->u);
  return st;
}

/* PREFIX.dat: x y u (u - exact)/amp on the whole grid, boundary included (u = 0
 * there), a blank line after each grid row, as gnuplot's `with image`
 * reads it. */
static void write_heat_dat(FILE *f, const double *u, double amp)
{
  double h = 1.0 / (N + 1);
  fprintf(f, "# x y u(x, y, T) (u - exact) / amplitude\n");
  for (int i = 0; i <= N + 1; i++) {
    for (int j = 0; j <= N + 1; j++) {
      int inside = i > 0 && i <= N && j > 0 && j <= N;
      double v = inside ? u[(i - 1) * N + (j - 1)] : 0;
      double exact = amp * sin(pi * i * h) * sin(pi * j * h);
      fprintf(f, "%.6f %.6f %.9e %.9e\n", j * h, i * h, v, (v - exact) / amp);
    }
    fputc('\n', f);
  }
}

/* PREFIX.gp: two heat maps side by side, u at T and its error as a
 * fraction of the amplitude (the number the program prints). */
static void write_heat_gp(FILE *f, const char *dat, const char *png, const char *name)
{
  char title[160];
  tl_gp_begin(f, png, 1100, 500);
  fputs("unset grid\nset multiplot layout 1,2 title ", f);
  snprintf(title, sizeof title, "ADI heat, %d x %d grid, %s: u at T = %.3f and its error", N, N,
           name, STEPS * DT);
  tl_gp_str(f, title);
  fputs(" noenhanced\nset size ratio -1\nset xrange [0:1]\nset yrange [0:1]\n"
        "set xlabel 'x'\nset ylabel 'y'\nset xtics 0.25\nset ytics 0.25\n"
        "set palette rgb 33,13,10\nset title 'u(x, y, T)'\nplot ",
        f);
  tl_gp_str(f, dat);
  fputs(" using 1:2:3 with image notitle\n"
        "set title '(u - exact) / amplitude,  exact = e^{-2{/Symbol p}^2 T} sin({/Symbol p}x) "
        "sin({/Symbol p}y)'\nset format cb '%.1e'\nplot ",
        f);
  tl_gp_str(f, dat);
  fputs(" using 1:2:4 with image notitle\nunset multiplot\n", f);
}

/* --plot PREFIX: the data, the script, then gnuplot. TL_OK, or the
 * failure with its message in info. */
static int plot_heat(const char *prefix, const double *u, double amp, const char *name,
                     tl_info *info)
{
  char copy[1024], base[1024], dat[1100], gp[1100], png[1100];
  if (!prefix[0] || snprintf(copy, sizeof copy, "%s", prefix) >= (int)sizeof copy)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "--plot", "--plot: no usable prefix '%s'", prefix);
  snprintf(base, sizeof base, "%s", prefix);
  const char *dir = dirname(copy), *stem = basename(base);
  snprintf(dat, sizeof dat, "%s.dat", stem);
  snprintf(gp, sizeof gp, "%s.gp", stem);
  snprintf(png, sizeof png, "%s.png", stem);
  FILE *f = tl_out_open(dir, dat, info);
  if (!f)
    return info->status;
  write_heat_dat(f, u, amp);
  if (tl_out_close(f, dir, dat, info) != TL_OK || !(f = tl_out_open(dir, gp, info)))
    return info->status;
  write_heat_gp(f, dat, png, name);
  if (tl_out_close(f, dir, gp, info) != TL_OK)
    return info->status;
  return tl_gnuplot_make(dir, gp, png, info);
}

/* ALGO, P and N in that order; --plot PREFIX anywhere. 0, or 1 with a
 * message. */
static int parse_args(int argc, char **argv, const char *pos[3], const char **plot)
{
  int npos = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--plot")) {
      if (i + 1 >= argc) {
        fprintf(stderr, "adi_heat: --plot needs a PREFIX\n");
        return 1;
      }
      *plot = argv[++i];
    } else if (npos < 3) {
      pos[npos++] = argv[i];
    } else {
      fprintf(stderr,
              "adi_heat: unexpected argument '%s' (usage: adi_heat [ALGO [P [N]]] "
              "[--plot PREFIX])\n",
              argv[i]);
      return 1;
    }
  }
  return 0;
}

int main(int argc, char **argv)
{
  const char *pos[3] = {"thomas", NULL, NULL}, *plot = NULL;
  if (parse_args(argc, argv, pos, &plot))
    return 1;
  const char *name = pos[0];
  const tl_algorithm *algo = tl_find(name);
  if (!algo) {
    fprintf(stderr, "adi_heat: no algorithm '%s' (see tridlab list)\n", name);
    return 1;
  }
  tl_options opt;
  tl_options_init(&opt);
  opt.parts = algo->partitioned ? (pos[1] ? atoi(pos[1]) : 4) : 1;
  if (pos[2])
    N = atoi(pos[2]);
  if (N < 3 || N > 4095) {
    fprintf(stderr, "adi_heat: N = %d, expected 3 .. 4095\n", N);
    return 1;
  }
  work s;
  size_t nn = (size_t)N * (size_t)N;
  double *mem = malloc(6 * nn * sizeof *mem);
  if (!mem) {
    fprintf(stderr, "adi_heat: no memory for N = %d\n", N);
    return 1;
  }
  s = (work){mem, mem + nn, mem + 2 * nn, mem + 3 * nn, mem + 4 * nn, mem + 5 * nn};
  double h = 1.0 / (N + 1);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      s.u[i * N + j] = sin(pi * (i + 1) * h) * sin(pi * (j + 1) * h);
  implicit_matrix(DT / (h * h), s.a, s.b, s.c);
  tl_info info;
  int st = TL_OK;
  double t0 = seconds();
  for (int k = 0; k < STEPS && st == TL_OK; k++)
    st = adi_step(algo, &opt, &s, &info);
  double elapsed = seconds() - t0;
  double amp = exp(-2 * pi * pi * STEPS * DT), err = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      double exact = amp * sin(pi * (i + 1) * h) * sin(pi * (j + 1) * h);
      double e = fabs(s.u[i * N + j] - exact);
      err = e > err ? e : err;
    }
  printf("ADI heat, %d x %d grid, dt = %g, %d steps, r = dt/h^2 = %.2f\n", N, N, DT, STEPS,
         DT / (h * h));
  if (algo->partitioned)
    printf("algorithm %s, P = %d\n", name, opt.parts);
  else
    printf("algorithm %s\n", name);
  if (st != TL_OK) {
    printf("status: %s: %s\n", tl_status_name(st), info.msg);
    free(mem);
    return 1;
  }
  printf("time per step: %.1f us (2 batches of %d systems of %d rows)\n", 1e6 * elapsed / STEPS, N,
         N);
  printf("max error at T = %.3f: %.2e of the amplitude %.4f\n", STEPS * DT, err / amp, amp);
  int ok = err < 1e-3 * amp;
  printf("%s\n", ok ? "check passed" : "CHECK FAILED");
  if (plot && plot_heat(plot, s.u, amp, name, &info) != TL_OK) {
    fprintf(stderr, "adi_heat: %s\n", info.msg);
    ok = 0;
  } else if (plot) {
    printf("plot: %s.png (u at T and its error against the analytic solution)\n", plot);
  }
  free(mem);
  return ok ? 0 : 1;
}
