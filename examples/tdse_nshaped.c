/* examples/tdse_nshaped.c -- a mini-app for tutorial 06: a free Gaussian
 * wave packet propagated by Crank-Nicolson, each step a complex
 * tridiagonal solve by the N-shaped partition method (`nshaped`, paper
 * 004) on P partitions. Build with `make`; run build/examples/tdse_nshaped.
 *
 * The equation, in units hbar = m = 1: i psi_t = H psi, H = -1/2 d^2/dx^2
 * (no potential), on x in [-L, L] with psi = 0 at both ends. Second-order
 * differences give H as tridiag(-1/(2h^2), 1/h^2, -1/(2h^2)); Crank-Nicolson
 * is
 *     (I + i dt/2 H) psi^{k+1} = (I - i dt/2 H) psi^k,
 * a complex system that is strictly diagonally dominant (|1 + i r| > r for
 * r = dt/(2h^2) > 0), and unitary: the discrete norm h sum |psi|^2 is
 * conserved exactly in exact arithmetic, so what changes is round-off.
 *
 * Checked (exit status 0 when all hold):
 *   - every solve returns ok (inside nshaped's domain);
 *   - the norm stays 1 to round-off (|norm - 1| < 1e-12);
 *   - the density |psi|^2 matches the analytic free-particle packet,
 *       |psi(x,t)|^2 = exp(-(x - x0 - k0 t)^2 / (2 s^2)) / sqrt(2 pi s^2),
 *       s = sigma sqrt(1 + (t / (2 sigma^2))^2),
 *     to the discretisation error (max difference < 1 % of the peak);
 *   - the same steps solved by LAPACK's zgtsv (gtsv) agree to round-off.
 */
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "tridlab/tridlab.h"

#define N 800     /* interior grid points                  */
#define HALF 20.0 /* x in [-HALF, HALF]                    */
#define STEPS 200 /* time steps of DT: T = 2               */
#define DT 0.01
#define PARTS 4
static const double sigma = 1.0, x0 = -5.0, k0 = 2.0;
static const double pi = 3.14159265358979323846;

typedef struct grid {
  double h, x[N];
  double complex a[N], b[N], c[N]; /* I + i dt/2 H (the left side) */
} grid;

static void grid_init(grid *g)
{
  g->h = 2 * HALF / (N + 1);
  double r = DT / (2 * g->h * g->h); /* i dt/2 times H's entries */
  for (int i = 0; i < N; i++) {
    g->x[i] = -HALF + (i + 1) * g->h;
    g->a[i] = i > 0 ? -0.5 * I * r : 0; /* corners zero: not periodic */
    g->c[i] = i < N - 1 ? -0.5 * I * r : 0;
    g->b[i] = 1 + I * r;
  }
}

/* d = (I - i dt/2 H) psi: the right side of one step. H is real, so
 * I - i dt/2 H is the complex conjugate of the left side's matrix. */
static void rhs(const grid *g, const double complex *psi, double complex *d)
{
  for (int i = 0; i < N; i++) {
    double complex left = i > 0 ? psi[i - 1] : 0, right = i < N - 1 ? psi[i + 1] : 0;
    d[i] = conj(g->a[i]) * left + conj(g->b[i]) * psi[i] + conj(g->c[i]) * right;
  }
}

static double norm(const grid *g, const double complex *psi)
{
  double s = 0;
  for (int i = 0; i < N; i++)
    s += creal(psi[i] * conj(psi[i]));
  return s * g->h;
}

static double density_exact(double x, double t)
{
  double s = sigma * sqrt(1 + pow(t / (2 * sigma * sigma), 2));
  double u = x - x0 - k0 * t;
  return exp(-u * u / (2 * s * s)) / sqrt(2 * pi * s * s);
}

/* Propagate STEPS steps with algo on P partitions; the largest |norm - 1|. */
static int propagate(const grid *g, const char *name, int parts, double complex *psi, double *drift)
{
  const tl_algorithm *algo = tl_find(name);
  double complex d[N];
  tl_options opt;
  tl_options_init(&opt);
  opt.parts = algo->partitioned ? parts : 1;
  tl_batch sys = {TL_C128, N, 1, 0, g->a, g->b, g->c, d};
  *drift = 0;
  for (int k = 0; k < STEPS; k++) {
    tl_info info;
    rhs(g, psi, d);
    int st = tl_solve(algo, &sys, psi, &opt, &info);
    if (st != TL_OK) {
      printf("%s: step %d: %s\n", name, k, info.msg);
      return st;
    }
    double e = fabs(norm(g, psi) - 1);
    *drift = e > *drift ? e : *drift;
  }
  return TL_OK;
}

int main(void)
{
  static grid g;
  grid_init(&g);
  static double complex psi[N], ref[N];
  double c0 = pow(2 * pi * sigma * sigma, -0.25);
  for (int i = 0; i < N; i++) {
    double u = g.x[i] - x0;
    psi[i] = ref[i] = c0 * cexp(-u * u / (4 * sigma * sigma) + I * k0 * g.x[i]);
  }
  double n0 = norm(&g, psi);
  for (int i = 0; i < N; i++) /* normalise the discrete packet exactly */
    psi[i] = ref[i] = psi[i] / sqrt(n0);
  printf("TDSE, free Gaussian packet: sigma %.1f, x0 %.1f, k0 %.1f; n = %d, h = %.4f, dt = %.3f, "
         "T = %.1f\n",
         sigma, x0, k0, N, g.h, DT, STEPS * DT);
  double drift = 0, drift_ref = 0;
  int st = propagate(&g, "nshaped", PARTS, psi, &drift);
  int st_ref = propagate(&g, "gtsv", 1, ref, &drift_ref);
  double peak = 0, err = 0, diff = 0, pmax = 0;
  for (int i = 0; i < N; i++) {
    double rho = creal(psi[i] * conj(psi[i])), e = density_exact(g.x[i], STEPS * DT);
    peak = e > peak ? e : peak;
    err = fabs(rho - e) > err ? fabs(rho - e) : err;
    diff = cabs(psi[i] - ref[i]) > diff ? cabs(psi[i] - ref[i]) : diff;
    pmax = cabs(ref[i]) > pmax ? cabs(ref[i]) : pmax;
  }
  printf("nshaped, P = %d: every step ok: %s\n", PARTS, st == TL_OK ? "yes" : "no");
  printf("norm drift, max over the steps: %.1e (gtsv: %.1e)\n", drift, drift_ref);
  printf("density against the analytic packet at T: max error %.2e = %.2f %% of the peak\n", err,
         100 * err / peak);
  printf("nshaped against gtsv after %d steps: %.1e relative\n", STEPS, diff / pmax);
  int ok =
      st == TL_OK && st_ref == TL_OK && drift < 1e-12 && err < 0.01 * peak && diff < 1e-10 * pmax;
  printf("%s\n", ok ? "all checks passed" : "CHECK FAILED");
  return ok ? 0 : 1;
}
