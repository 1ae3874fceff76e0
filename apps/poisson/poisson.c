/* apps/poisson/poisson.c -- the Poisson/Helmholtz solver of the mini-app:
 * FFTs along x and y (FFTW), tridiagonal systems along z (tridlab's
 * process grid and MPI algorithms). The method is in poisson.h; the
 * pictures and the measurements in docs/poisson.md.
 */
#include "poisson.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double now(void)
{
  return MPI_Wtime();
}

const tl_algorithm *ps_default_algo(void)
{
  /* CaNS's own (paper 001) when the registry has it; else an exact
   * algorithm (the modes near p = q = 0 are only weakly dominant, where
   * a truncating algorithm is outside its domain). */
  const tl_algorithm *pt = tl_mpi_find("ptdma");
  if (pt)
    return pt;
  size_t count;
  const tl_algorithm *const *reg = tl_mpi_registry(&count);
  for (size_t k = 0; k < count; k++)
    if (!reg[k]->mpi->baseline && reg[k]->exact)
      return reg[k];
  for (size_t k = 0; k < count; k++)
    if (reg[k]->mpi->baseline)
      return reg[k];
  return count ? reg[0] : NULL;
}

/* ---- the manufactured solution --------------------------------------- */

/* u = sin(pi z/Lz) (cos(2 pi x/Lx) sin(4 pi y/Ly) + 1/2)
 *   + 0.3 sin(2 pi z/Lz) sin(2 pi x/Lx + 2 pi y/Ly):
 * zero on both walls, several modes including p = q = 0. */
static void terms(const ps_problem *pb, double x, double y, double z, double v[3], double k2[3])
{
  const double pi = 3.14159265358979323846;
  double kx = 2 * pi / pb->L[0], ky = 2 * pi / pb->L[1], kz = pi / pb->L[2];
  v[0] = sin(kz * z) * cos(kx * x) * sin(2 * ky * y);
  k2[0] = kz * kz + kx * kx + 4 * ky * ky;
  v[1] = 0.5 * sin(kz * z);
  k2[1] = kz * kz;
  v[2] = 0.3 * sin(2 * kz * z) * sin(kx * x + ky * y);
  k2[2] = 4 * kz * kz + kx * kx + ky * ky;
}

double ps_exact(const ps_problem *pb, double x, double y, double z)
{
  double v[3], k2[3];
  terms(pb, x, y, z, v, k2);
  return v[0] + v[1] + v[2];
}

double ps_forcing(const ps_problem *pb, double x, double y, double z)
{
  double v[3], k2[3], lap = 0, u = 0;
  terms(pb, x, y, z, v, k2);
  for (int t = 0; t < 3; t++) {
    lap -= k2[t] * v[t];
    u += v[t];
  }
  return pb->mode == PS_POISSON ? lap : u - pb->alpha * lap;
}

static void coords(const ps_problem *pb, size_t i, size_t j, size_t k, double *x, double *y,
                   double *z)
{
  *x = (double)i * pb->L[0] / (double)pb->n[0];
  *y = (double)j * pb->L[1] / (double)pb->n[1];
  *z = (double)(k + 1) * pb->L[2] / (double)(pb->n[2] + 1);
}

void ps_fill_forcing(const ps_solver *s, double *f)
{
  const tl_grid *g = &s->gx;
  for (size_t k = 0; k < g->m[2]; k++)
    for (size_t j = 0; j < g->m[1]; j++)
      for (size_t i = 0; i < g->m[0]; i++) {
        double x, y, z;
        coords(&s->pb, g->begin[0] + i, g->begin[1] + j, g->begin[2] + k, &x, &y, &z);
        f[(k * g->m[1] + j) * g->m[0] + i] = ps_forcing(&s->pb, x, y, z);
      }
}

double ps_max_error(const ps_solver *s, const double *u)
{
  const tl_grid *g = &s->gx;
  double err = 0, all;
  for (size_t k = 0; k < g->m[2]; k++)
    for (size_t j = 0; j < g->m[1]; j++)
      for (size_t i = 0; i < g->m[0]; i++) {
        double x, y, z;
        coords(&s->pb, g->begin[0] + i, g->begin[1] + j, g->begin[2] + k, &x, &y, &z);
        err = fmax(err, fabs(u[(k * g->m[1] + j) * g->m[0] + i] - ps_exact(&s->pb, x, y, z)));
      }
  MPI_Allreduce(&err, &all, 1, MPI_DOUBLE, MPI_MAX, s->gx.cart);
  return all;
}

/* ---- setting up ------------------------------------------------------- */

/* The eigenvalue of the periodic second difference for wavenumber p. */
static double lambda(size_t p, size_t n, double L)
{
  const double pi = 3.14159265358979323846;
  double h = L / (double)n;
  return (2 * cos(2 * pi * (double)p / (double)n) - 2) / (h * h);
}

/* One z system per (p, q), both doubles of a complex mode alike:
 *   Poisson     a = c = 1/hz^2,  b = -2/hz^2 + lx + ly
 *   Helmholtz   a = c = -alpha/hz^2,  b = 1 + 2 alpha/hz^2 - alpha (lx + ly) */
static void fill_systems(const ps_solver *s, const tl_grid *g, double *A, double *B, double *C)
{
  const ps_problem *pb = &s->pb;
  double hz = pb->L[2] / (double)(pb->n[2] + 1), off = 1 / (hz * hz);
  for (size_t k = 0; k < g->m[2]; k++)
    for (size_t j = 0; j < g->m[1]; j++)
      for (size_t i = 0; i < g->m[0]; i++) {
        size_t p = (g->begin[0] + i) / 2, q = g->begin[1] + j, at = (k * g->m[1] + j) * g->m[0] + i;
        double lam = lambda(p, pb->n[0], pb->L[0]) + lambda(q, pb->n[1], pb->L[1]);
        if (pb->mode == PS_POISSON) {
          A[at] = C[at] = off;
          B[at] = -2 * off + lam;
        } else {
          A[at] = C[at] = -pb->alpha * off;
          B[at] = 1 + 2 * pb->alpha * off - pb->alpha * lam;
        }
      }
}

/* FFTW plans on this rank's boxes: along x every x-line of gx (real to
 * complex, nx/2 + 1 outputs), along y every y-line of gy (in place,
 * lines mxh apart... one guru plan for both loops). */
static int make_plans(ps_solver *s, double *real)
{
  const tl_grid *gx = &s->gx, *gy = &s->gy;
  int nx = (int)gx->n[0], nxh = nx / 2 + 1;
  int lines = (int)(gx->m[1] * gx->m[2]);
  if (lines > 0) {
    fftw_complex *cx = (fftw_complex *)s->spec_x;
    s->fx = fftw_plan_many_dft_r2c(1, &nx, lines, real, NULL, 1, nx, cx, NULL, 1, nxh,
                                   FFTW_ESTIMATE | FFTW_UNALIGNED);
    s->bx = fftw_plan_many_dft_c2r(1, &nx, lines, cx, NULL, 1, nxh, real, NULL, 1, nx,
                                   FFTW_ESTIMATE | FFTW_UNALIGNED);
  }
  if (gy->m[0] * gy->m[2] > 0) {
    int mx = (int)gy->m[0], ny = (int)gy->n[1];
    fftw_iodim dim = {ny, mx, mx};
    fftw_iodim loops[2] = {{mx, 1, 1}, {(int)gy->m[2], mx * ny, mx * ny}};
    fftw_complex *cy = (fftw_complex *)s->spec_y;
    s->fy = fftw_plan_guru_dft(1, &dim, 2, loops, cy, cy, FFTW_FORWARD, FFTW_ESTIMATE);
    s->by = fftw_plan_guru_dft(1, &dim, 2, loops, cy, cy, FFTW_BACKWARD, FFTW_ESTIMATE);
  }
  return (lines > 0 && (!s->fx || !s->bx)) || (gy->m[0] * gy->m[2] > 0 && (!s->fy || !s->by));
}

/* The transpose route's z-pencils: z whole, y split over the Pz ranks
 * of each z grid line (CaNS's z-pencils); the systems made there once. */
static int make_z_pencils(ps_solver *s, tl_info *info)
{
  int st = tl_grid_pencil(&s->gr, TL_DIR_Z, TL_DIR_Y, &s->gz, info);
  if (st < 0)
    return st;
  if ((st = tl_grid_transpose_plan(&s->gr, &s->gz, s->gr.line[2], 1, &s->yz, info)) < 0)
    return st;
  size_t cnt = tl_grid_local_count(&s->gz);
  s->az = malloc((4 * cnt + 1) * sizeof(double));
  st = s->az ? TL_OK : TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "poisson: out of memory");
  if (s->az) {
    s->bz = s->az + cnt;
    s->cz = s->bz + cnt;
    s->rz = s->cz + cnt;
    fill_systems(s, &s->gz, s->az, s->bz, s->cz);
  }
  return tl_grid_agree(s->gx.cart, st, info);
}

int ps_create(MPI_Comm comm, int Py, int Pz, const ps_problem *pb, const tl_algorithm *algo,
              int transpose_route, ps_solver *s, tl_info *info)
{
  memset(s, 0, sizeof *s);
  tl_grid *grids[5] = {&s->gx, &s->gc, &s->gy, &s->gr, &s->gz};
  for (int k = 0; k < 5; k++) /* nothing to free yet, whatever fails below */
    grids[k]->cart = grids[k]->line[0] = grids[k]->line[1] = grids[k]->line[2] = MPI_COMM_NULL;
  s->pb = *pb;
  s->algo = algo ? algo : ps_default_algo();
  s->transpose_route = transpose_route;
  tl_ledger_init(&s->ledger);
  int P[3] = {1, Py, Pz}, st;
  size_t nxh = pb->n[0] / 2 + 1, nc[3] = {nxh, pb->n[1], pb->n[2]};
  if ((st = tl_grid_create(comm, P, pb->n, NULL, &s->gx, info)) < 0)
    return st;
  /* The spectrum has nx/2 + 1 complex points per x-line, same y and z
   * slices; made on gx's ranks so the coordinates agree. */
  if ((st = tl_grid_create(s->gx.cart, P, nc, NULL, &s->gc, info)) < 0)
    return st;
  if ((st = tl_grid_pencil(&s->gc, TL_DIR_Y, TL_DIR_X, &s->gy, info)) < 0)
    return st;
  /* gy read as doubles: every slice of x twice as long. */
  size_t *xs = malloc((size_t)s->gy.P[0] * sizeof *xs);
  for (int q = 0; q < s->gy.P[0]; q++)
    xs[q] = 2 * s->gy.slices[0][q];
  size_t nr[3] = {2 * nxh, pb->n[1], pb->n[2]};
  const size_t *sl[3] = {xs, NULL, NULL};
  st = tl_grid_create(s->gy.cart, s->gy.P, nr, sl, &s->gr, info);
  free(xs);
  if (st < 0)
    return st;
  if ((st = tl_grid_transpose_plan(&s->gc, &s->gy, s->gc.line[1], 2, &s->xy, info)) < 0)
    return st;
  size_t nx_box = tl_grid_local_count(&s->gx), ny_box = tl_grid_local_count(&s->gr);
  size_t cx_box = 2 * tl_grid_local_count(&s->gc);
  s->spec_x = fftw_malloc((cx_box + 1) * sizeof(double));
  s->spec_y = fftw_malloc((ny_box + 1) * sizeof(double));
  s->a = malloc((4 * ny_box + 1) * sizeof(double));
  double *scratch = fftw_malloc((nx_box + 1) * sizeof(double));
  st = TL_OK;
  if (!s->spec_x || !s->spec_y || !s->a || !scratch)
    st = TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "poisson: out of memory");
  else {
    s->b = s->a + ny_box;
    s->c = s->b + ny_box;
    s->rhs = s->c + ny_box;
    fill_systems(s, &s->gr, s->a, s->b, s->c);
    if (make_plans(s, scratch))
      st = TL_FAIL(info, TL_ERR_UNSUPPORTED, -1, -1, "", "poisson: FFTW made no plan");
  }
  fftw_free(scratch);
  if ((st = tl_grid_agree(s->gx.cart, st, info)) < 0 || !transpose_route)
    return st;
  return make_z_pencils(s, info);
}

void ps_free(ps_solver *s)
{
  fftw_plan plans[4] = {s->fx, s->bx, s->fy, s->by};
  for (int k = 0; k < 4; k++)
    if (plans[k])
      fftw_destroy_plan(plans[k]);
  fftw_free(s->spec_x);
  fftw_free(s->spec_y);
  free(s->a);
  free(s->az);
  tl_grid_transpose_free(&s->xy);
  tl_grid_transpose_free(&s->yz);
  tl_grid *grids[5] = {&s->gz, &s->gr, &s->gy, &s->gc, &s->gx};
  for (int k = 0; k < 5; k++)
    tl_grid_free(grids[k]);
  tl_ledger_free(&s->ledger);
  memset(s, 0, sizeof *s);
}

/* ---- one solve --------------------------------------------------------- */

static void run_fft(fftw_plan p, double *secs)
{
  double t0 = now();
  if (p)
    fftw_execute(p);
  *secs += now() - t0;
}

/* A transpose of the spectrum between x- and y-pencils. */
static int transpose(ps_solver *s, int back, const char *phase, tl_info *info)
{
  const double *src[1] = {back ? s->spec_y : s->spec_x};
  double *dst[1] = {back ? s->spec_x : s->spec_y};
  double t0 = now();
  int st = tl_grid_transpose_run(&s->xy, back, 1, src, dst, &s->ledger, phase, NULL, info);
  s->t.transpose += now() - t0;
  return st;
}

/* The z systems, one per (p, q) and per real/imaginary part. */
static int solve_z(ps_solver *s, tl_info *info)
{
  tl_options opt;
  tl_options_init(&opt);
  opt.ledger = &s->ledger;
  size_t cnt = tl_grid_local_count(&s->gr);
  /* FFTW's transforms are unnormalised: 1 / (nx ny) here, once. */
  double scale = 1.0 / ((double)s->pb.n[0] * (double)s->pb.n[1]), t0 = now();
  for (size_t k = 0; k < cnt; k++)
    s->rhs[k] = s->spec_y[k] * scale;
  s->t.other += now() - t0;
  t0 = now();
  int st;
  if (s->transpose_route) {
    /* y-pencils -> z-pencils, every z line whole: the OpenMP kernel
     * (in place), and back. */
    const double *rhs[1] = {s->rhs}, *back[1] = {s->rz};
    double *to[1] = {s->rz}, *xs[1] = {s->spec_y}, tr = 0;
    st = tl_grid_transpose_run(&s->yz, 0, 1, rhs, to, &s->ledger, "y-to-z", &tr, info);
    st = tl_grid_agree(s->gx.cart, st, info);
    if (st >= 0)
      st = tl_grid_solve_d(&s->gz, TL_DIR_Z, NULL, s->az, s->bz, s->cz, s->rz, s->rz, &opt, info);
    if (tl_status_has_solution(st)) {
      int st2 = tl_grid_transpose_run(&s->yz, 1, 1, back, xs, &s->ledger, "z-to-y", &tr, info);
      st = st2 < 0 ? st2 : st;
    }
    s->t.transpose += tr;
    s->t.tridiag += now() - t0 - tr;
  } else {
    st =
        tl_grid_solve_d(&s->gr, TL_DIR_Z, s->algo, s->a, s->b, s->c, s->rhs, s->spec_y, &opt, info);
    s->t.tridiag += now() - t0;
  }
  return st;
}

int ps_solve(ps_solver *s, const double *f, double *u, tl_info *info)
{
  memset(&s->t, 0, sizeof s->t);
  tl_ledger_reset(&s->ledger);
  double t0 = now(), tc = now();
  size_t cnt = tl_grid_local_count(&s->gx);
  if (u != f)
    memcpy(u, f, cnt * sizeof *u); /* FFTW's plans run on u */
  s->t.other += now() - tc;
  /* Plans were made on a scratch array: run them on u (same layout). */
  double fs = 0;
  if (s->fx) {
    tc = now();
    fftw_execute_dft_r2c(s->fx, u, (fftw_complex *)s->spec_x);
    fs += now() - tc;
  }
  s->t.fft += fs;
  int st = transpose(s, 0, "x-to-y", info);
  if (st >= 0) {
    run_fft(s->fy, &s->t.fft);
    st = solve_z(s, info);
  }
  if (tl_status_has_solution(st)) {
    run_fft(s->by, &s->t.fft);
    int st2 = transpose(s, 1, "y-to-x", info);
    if (st2 < 0)
      st = st2;
    else if (s->bx) {
      tc = now();
      fftw_execute_dft_c2r(s->bx, (fftw_complex *)s->spec_x, u);
      s->t.fft += now() - tc;
    }
  }
  s->t.total = now() - t0;
  s->t.other = s->t.total - s->t.fft - s->t.transpose - s->t.tridiag;
  s->status = st;
  return st;
}
