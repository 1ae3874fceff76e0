/* apps/poisson/poisson.h -- the Poisson/Helmholtz mini-app: CaNS's method
 * (paper 001) on tridlab's process grid (docs/poisson.md).
 *
 * The box [0, Lx) x [0, Ly) x [0, Lz], periodic in x and y, u = 0 on the
 * walls z = 0 and z = Lz. Second-order finite differences on the grid
 *   x_i = i hx (hx = Lx / nx),  y_j = j hy,  z_k = (k + 1) hz (hz = Lz / (nz + 1)),
 * nz unknowns between the walls. Two modes:
 *   Poisson     lap u = f
 *   Helmholtz   u - alpha lap u = f   (an implicit diffusion step)
 *
 * THE METHOD. The x and y differences are diagonalised by Fourier modes:
 * a real FFT along x and a complex FFT along y turn lap into
 *   lambda_x(p) + lambda_y(q) + D_zz,  lambda_x(p) = (2 cos(2 pi p / nx) - 2) / hx^2,
 * so every wavenumber pair (p, q) leaves one tridiagonal system along z.
 * On a Py x Pz process grid (x whole, y split over Py, z over Pz):
 *
 *   f (x-pencils) --FFT x--> --transpose x<->y--> (y-pencils) --FFT y-->
 *   one system along z per (p, q): solved across the Pz ranks of each
 *   z grid line by an MPI algorithm (or: transposed so z is whole, solved
 *   locally, transposed back) --> inverse FFT y --> transpose back -->
 *   inverse FFT x --> u (x-pencils)
 *
 * The real and imaginary parts of a mode's right-hand side share the
 * (real) matrix: they are two lines of a real batch (the complex array
 * read as doubles, x doubled).
 */
#ifndef TL_APP_POISSON_H
#define TL_APP_POISSON_H

#include <fftw3.h>
#include <mpi.h>

#include "tridlab/backend.h"
#include "tridlab/mpi_grid.h"

typedef enum { PS_POISSON = 0, PS_HELMHOLTZ = 1 } ps_mode;

typedef struct ps_problem {
  size_t n[3]; /* nx, ny: points per period; nz: unknowns between walls */
  double L[3]; /* Lx, Ly, Lz                                            */
  ps_mode mode;
  double alpha; /* Helmholtz: u - alpha lap u = f                        */
} ps_problem;

/* Seconds of one solve on this rank, by step. */
typedef struct ps_times {
  double fft, transpose, tridiag, other, total;
} ps_times;

typedef struct ps_solver {
  ps_problem pb;
  const tl_algorithm *algo; /* across the z grid line (route 0)     */
  int transpose_route;          /* 1: z made whole by a transpose (the
                                   systems are made there once; only the
                                   right-hand side and x travel)        */
  tl_grid gx;                   /* real x-pencils: 1 x Py x Pz, n = (nx, ny, nz)          */
  tl_grid gc;                   /* the same boxes of the x-spectrum: (nx/2 + 1) complex  */
  tl_grid gy;                   /* complex y-pencils: Py x 1 x Pz                         */
  tl_grid gr;                   /* gy read as doubles: x doubled                          */
  tl_grid_transpose xy;         /* gc <-> gy inside gc.line[y]                   */
  tl_grid gz;                   /* transpose route: gr with z whole, y split */
  tl_grid_transpose yz;         /* gr <-> gz inside gr.line[z]               */
  double *az, *bz, *cz, *rz;    /* the z systems in gz's box               */
  fftw_plan fx, bx, fy, by;
  double *spec_x, *spec_y; /* complex boxes of gc and gy (interleaved)  */
  double *a, *b, *c, *rhs; /* the z systems, gr's box                   */
  tl_ledger ledger;        /* this rank's entries of the last solve     */
  ps_times t;              /* the last solve                            */
  int status;              /* the tridiagonal solve's status            */
} ps_solver;

/* Collective over comm (Py * Pz ranks). algo NULL: the registry's ptdma
 * when it has it, else its first exact algorithm (see poisson.c). */
int ps_create(MPI_Comm comm, int Py, int Pz, const ps_problem *pb, const tl_algorithm *algo,
              int transpose_route, ps_solver *s, tl_info *info);
void ps_free(ps_solver *s);
/* f and u in gx's box (may be the same array). Returns the status of the
 * tridiagonal solve (the same on every rank); fills s->t and s->ledger. */
int ps_solve(ps_solver *s, const double *f, double *u, tl_info *info);

/* The manufactured solution and its right-hand side. */
double ps_exact(const ps_problem *pb, double x, double y, double z);
double ps_forcing(const ps_problem *pb, double x, double y, double z);
/* f at this rank's points of gx; the largest |u - exact| over all ranks. */
void ps_fill_forcing(const ps_solver *s, double *f);
double ps_max_error(const ps_solver *s, const double *u);

/* The default algorithm for the z systems (see ps_create). */
const tl_algorithm *ps_default_algo(void);

#endif
