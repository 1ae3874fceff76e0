/* tridlab/mpi_grid.h -- 3-D arrays on a Cartesian process grid, and
 * batched tridiagonal solves along x, y or z of them (optimized/mpi/
 * grid_mpi.c, transpose_mpi.c; docs/grid.md).
 *
 * THE GRID. P = Px * Py * Pz ranks form an MPI_Cart_create grid. A global
 * array of n[0] x n[1] x n[2] doubles (x fastest) is cut into boxes: the
 * rank at grid coordinates (cx, cy, cz) holds rows [begin[d], begin[d] +
 * m[d]) of every direction d, slice c[d] of that direction's P[d] slices
 * (given, or as even as possible). Its box is stored x fastest too:
 * u(i, j, k) at ((k - begin[2]) m[1] + (j - begin[1])) m[0] + i - begin[0].
 *
 *   Px = 1 (slabs along z:  1 x 1 x Pz)    2-D pencils (1 x Py x Pz)
 *        z ^  +--------+                   z ^  +----+----+
 *          |  | rank 2 |                     |  | 1  | 3  |
 *          |  +--------+                     |  +----+----+
 *          |  | rank 1 |                     |  | 0  | 2  |
 *          |  +--------+                     |  +----+----+
 *          |  | rank 0 |                     +----------------> y
 *          +--+--------+--> x                (x whole in every box:
 *                                              an "x-pencil")
 *
 * A GRID LINE along d is the P[d] ranks that share the two other
 * coordinates; they hold the same lines of the array along d, each a
 * slice of their rows. The grid keeps one sub-communicator per direction
 * (MPI_Cart_sub) holding this rank's line, ranks in coordinate order.
 *
 * SOLVING ALONG d (tl_grid_solve_d). The lines along d of this rank's
 * box are a batch: m[d] rows of each of the m[e] m[f] lines (e, f the
 * other two directions), numbered as tridlab/cpu.h numbers them. When
 * P[d] = 1 the whole lines are here and the OpenMP kernel solves them
 * with no communication (the fast path). When P[d] > 1 the ranks of the
 * grid line hold the same batch cut into slices of rows: the lines are
 * gathered into tl_mpi_batch layout and any MPI algorithm of the registry
 * solves them across the line's sub-communicator (tl_mpi_solve).
 *
 * THE TRANSPOSE ROUTE (tl_grid_solve_transpose_d; CaNS, paper 001).
 * Instead of solving across ranks, move the data so direction d is
 * whole on every rank: the P[d] ranks of a grid line trade pieces
 * (one MPI_Alltoallv in the line's sub-communicator) so that each holds
 * all rows of d for a 1/P[d] share of another direction e. The result is
 * again a grid (tl_grid_pencil): P'[d] = 1, P'[e] = P[e] P[d]. Solve
 * locally, transpose back.
 *
 *   before (along d split)         after (d whole, e split)
 *     d ^ +-----------+              d ^ +-----+-----+
 *       | |  rank 1   |                | |     |     |
 *       | +-----------+      -->       | |  0  |  1  |
 *       | |  rank 0   |                | |     |     |
 *       +-+-----------+--> e           +-+-----+-----+--> e
 *
 * Every function is collective over the grid's ranks and returns the same
 * status on every rank (the worst one; the report of the lowest rank that
 * has it). The ledger (opt->ledger) receives this rank's entries with
 * ranks numbered in its grid line: the algorithm's phases, and a
 * "transpose" alltoall per transpose.
 */
#ifndef TRIDLAB_MPI_GRID_H
#define TRIDLAB_MPI_GRID_H

#include <mpi.h>
#include <stddef.h>

#include "tridlab/cpu.h"
#include "tridlab/ledger.h"
#include "tridlab/mpi.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tl_grid {
  MPI_Comm cart;         /* the P[0] x P[1] x P[2] grid (no reordering)      */
  MPI_Comm line[3];      /* this rank's grid line along x, y, z              */
  int P[3];              /* ranks along each direction                       */
  int coords[3];         /* this rank's coordinates                          */
  int rank, size;        /* in cart                                          */
  size_t n[3];           /* global extents                                   */
  size_t *slices[3];     /* P[d] extents each: every rank's rows along d     */
  size_t begin[3], m[3]; /* this rank's box                                 */
} tl_grid;

/* A grid of P[0] x P[1] x P[2] ranks over comm (its size must be their
 * product) for an array of n[0] x n[1] x n[2]. slices NULL, or
 * slices[d] NULL: as even as possible along d; else P[d] extents adding
 * up to n[d] (an extent may be 0 only where the caller can live with an
 * empty box). Collective; the same status everywhere. */
int tl_grid_create(MPI_Comm comm, const int P[3], const size_t n[3], const size_t *const slices[3],
                   tl_grid *g, tl_info *info);
void tl_grid_free(tl_grid *g);
/* Entries of this rank's box. */
size_t tl_grid_local_count(const tl_grid *g);

/* The grid the transpose route makes: direction d whole, direction e
 * split further, each of g's slices of e cut as evenly as possible into
 * P[d] pieces (piece q to the rank at coordinate q along d). Same ranks
 * as g. Collective. d != e. */
int tl_grid_pencil(const tl_grid *g, tl_dir d, tl_dir e, tl_grid *pencil, tl_info *info);

/* Gather the whole array on `root` of g->cart (whole significant there
 * only), x fastest. Not recorded; for checks and output. */
int tl_grid_gather_d(const tl_grid *g, int root, const double *local, double *whole, tl_info *info);

/* ---- transposes: from one grid's boxes to another's ---------------- */

/* The plan of a redistribution between two grids over the same ranks,
 * inside communicator comm (it must hold every rank whose boxes meet
 * this rank's; for a pencil transpose, g->line[d]). Elements are `words`
 * doubles each (2: complex). The plan is made once (one allgather of the
 * boxes, not recorded) and run many times. */
typedef struct tl_grid_transpose {
  MPI_Comm comm;
  int rank, size;
  size_t words;
  size_t from_begin[3], from_m[3], to_begin[3], to_m[3]; /* my two boxes */
  size_t (*send_box)[6], (*recv_box)[6];                 /* per peer: begin[3], m[3]   */
  size_t *send_count, *recv_count;                       /* per peer, elements          */
} tl_grid_transpose;

int tl_grid_transpose_plan(const tl_grid *from, const tl_grid *to, MPI_Comm comm, size_t words,
                           tl_grid_transpose *plan, tl_info *info);
void tl_grid_transpose_free(tl_grid_transpose *plan);
/* Move nfields arrays at once (one MPI_Alltoallv): src[f] in from's box,
 * dst[f] in to's box; backward != 0 goes the other way (src in to's box,
 * dst in from's). Records one alltoall entry under `phase` in ledger (may
 * be NULL) and adds its time (packing, MPI, unpacking) to *seconds (may
 * be NULL). */
int tl_grid_transpose_run(const tl_grid_transpose *plan, int backward, int nfields,
                          const double *const *src, double *const *dst, tl_ledger *ledger,
                          const char *phase, double *seconds, tl_info *info);

/* ---- solves --------------------------------------------------------- */

/* Solve the lines along d of the box: a, b, c, d_ in g's box layout
 * (rows of each line along d; a at a line's first global row and c at its
 * last are not used), x the answer in the same layout (x may be d_). The
 * fast path (P[d] = 1: OpenMP kernel, algo not used, may be NULL) or algo
 * across g->line[d] (opt as tl_mpi_solve's; opt->ledger gets this rank's
 * entries). Collective over g->cart. */
int tl_grid_solve_d(const tl_grid *g, tl_dir d, const tl_algorithm *algo, const double *a,
                    const double *b, const double *c, const double *d_, double *x,
                    const tl_options *opt, tl_info *info);

/* The transpose route: to tl_grid_pencil(g, d, e), solve there with the
 * OpenMP kernel, and back (a, b, c, d_ go in one transpose, x comes back
 * in another; in opt->ledger as phases "transpose" and "transpose-back").
 * *comm_seconds (may be NULL) gets the time of the two transposes. */
int tl_grid_solve_transpose_d(const tl_grid *g, tl_dir d, tl_dir e, const double *a,
                              const double *b, const double *c, const double *d_, double *x,
                              const tl_options *opt, tl_info *info, double *comm_seconds);

/* Agree on a status over comm: the worst (any error before
 * outside-domain before ok; the lowest error code), with the report of
 * the lowest rank that has it copied into info. Not recorded. */
int tl_grid_agree(MPI_Comm comm, int status, tl_info *info);

#ifdef __cplusplus
}
#endif
#endif
