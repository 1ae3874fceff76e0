/* optimized/mpi/transpose_mpi.c -- moving a 3-D array from one grid's
 * boxes to another's with one MPI_Alltoallv, and the transpose route of a
 * solve (tridlab/mpi_grid.h, docs/grid.md; CaNS, paper 001 §2).
 *
 * A transpose is a set of box intersections. Rank r sends peer q the part
 * of its "from" box that lies in q's "to" box, and receives from q the
 * part of q's "from" box in its own "to" box:
 *
 *     from (y split)          to (y whole, x split)
 *   y ^ +-----+-----+       y ^ +-----+-----+
 *     | | 1a  | 1b  |         | | 0b  | 1b  |    rank 0 keeps 0a, sends 0b
 *     | +-----+-----+   -->   | |     |     |    to rank 1 and receives 1a;
 *     | | 0a  | 0b  |         | | 0a  | 1a  |    rank 1 the mirror image
 *     +-+-----+-----+--> x    +-+-----+-----+--> x
 *
 * The plan computes the intersections once; a run packs each peer's
 * pieces into one contiguous block (fields one after another), calls
 * MPI_Alltoallv and unpacks. The piece a rank keeps is copied directly
 * and not counted in the ledger.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"
#include "tridlab/mpi_grid.h"

/* The intersection of two boxes; 0 elements when they do not meet. */
static size_t intersect(const size_t ab[3], const size_t am[3], const size_t bb[3],
                        const size_t bm[3], size_t out[6])
{
  size_t count = 1;
  for (int d = 0; d < 3; d++) {
    size_t lo = ab[d] > bb[d] ? ab[d] : bb[d];
    size_t ea = ab[d] + am[d], eb = bb[d] + bm[d];
    size_t hi = ea < eb ? ea : eb;
    out[d] = lo;
    out[3 + d] = hi > lo ? hi - lo : 0;
    count *= out[3 + d];
  }
  return count;
}

void tl_grid_transpose_free(tl_grid_transpose *plan)
{
  free(plan->send_box);
  free(plan->recv_box);
  free(plan->send_count);
  free(plan->recv_count);
  memset(plan, 0, sizeof *plan);
}

int tl_grid_transpose_plan(const tl_grid *from, const tl_grid *to, MPI_Comm comm, size_t words,
                           tl_grid_transpose *plan, tl_info *info)
{
  memset(plan, 0, sizeof *plan);
  plan->comm = comm;
  plan->words = words;
  MPI_Comm_rank(comm, &plan->rank);
  MPI_Comm_size(comm, &plan->size);
  size_t P = (size_t)plan->size;
  memcpy(plan->from_begin, from->begin, sizeof plan->from_begin);
  memcpy(plan->from_m, from->m, sizeof plan->from_m);
  memcpy(plan->to_begin, to->begin, sizeof plan->to_begin);
  memcpy(plan->to_m, to->m, sizeof plan->to_m);
  /* Every peer's two boxes (12 numbers each). */
  unsigned long long mine[12], *all = malloc(12 * P * sizeof *all);
  plan->send_box = malloc(P * sizeof *plan->send_box);
  plan->recv_box = malloc(P * sizeof *plan->recv_box);
  plan->send_count = malloc(P * sizeof *plan->send_count);
  plan->recv_count = malloc(P * sizeof *plan->recv_count);
  int st = TL_OK;
  if (!all || !plan->send_box || !plan->recv_box || !plan->send_count || !plan->recv_count)
    st = TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "transpose plan: out of memory");
  if ((st = tl_grid_agree(comm, st, info)) < 0) {
    free(all);
    tl_grid_transpose_free(plan);
    return st;
  }
  for (int d = 0; d < 3; d++) {
    mine[d] = from->begin[d];
    mine[3 + d] = from->m[d];
    mine[6 + d] = to->begin[d];
    mine[9 + d] = to->m[d];
  }
  MPI_Allgather(mine, 12, MPI_UNSIGNED_LONG_LONG, all, 12, MPI_UNSIGNED_LONG_LONG, comm);
  for (size_t q = 0; q < P; q++) {
    size_t fb[3], fm[3], tb[3], tm[3];
    for (int d = 0; d < 3; d++) {
      fb[d] = (size_t)all[12 * q + d];
      fm[d] = (size_t)all[12 * q + 3 + d];
      tb[d] = (size_t)all[12 * q + 6 + d];
      tm[d] = (size_t)all[12 * q + 9 + d];
    }
    plan->send_count[q] = intersect(from->begin, from->m, tb, tm, plan->send_box[q]);
    plan->recv_count[q] = intersect(fb, fm, to->begin, to->m, plan->recv_box[q]);
  }
  free(all);
  return TL_OK;
}

/* Counts and displacements in doubles for MPI_Alltoallv; 0 when a count
 * does not fit an int. */
static int mpi_counts(const size_t *count, size_t P, size_t per, int *cnt, int *displ)
{
  size_t at = 0;
  for (size_t q = 0; q < P; q++) {
    size_t c = count[q] * per;
    if (c > (size_t)INT_MAX || at > (size_t)INT_MAX)
      return 0;
    cnt[q] = (int)c;
    displ[q] = (int)at;
    at += c;
  }
  return at <= (size_t)INT_MAX;
}

int tl_grid_transpose_run(const tl_grid_transpose *plan, int backward, int nfields,
                          const double *const *src, double *const *dst, tl_ledger *ledger,
                          const char *phase, double *seconds, tl_info *info)
{
  size_t P = (size_t)plan->size, w = plan->words, per = w * (size_t)nfields;
  /* Backward swaps the roles: send what the peer's "from" box needs out
   * of my "to" box. */
  const size_t *sb = backward ? plan->to_begin : plan->from_begin;
  const size_t *sm = backward ? plan->to_m : plan->from_m;
  const size_t *db = backward ? plan->from_begin : plan->to_begin;
  const size_t *dm = backward ? plan->from_m : plan->to_m;
  size_t(*out_box)[6] = backward ? plan->recv_box : plan->send_box;
  size_t(*in_box)[6] = backward ? plan->send_box : plan->recv_box;
  const size_t *out_n = backward ? plan->recv_count : plan->send_count;
  const size_t *in_n = backward ? plan->send_count : plan->recv_count;

  /* What stays on this rank is copied directly (no MPI, no buffer): it
   * is the biggest piece when the line is short, and a rank's messages
   * to itself go through a slow path in some MPI libraries. */
  size_t me = (size_t)plan->rank;
  double t0 = MPI_Wtime();
  int *meta = malloc(4 * P * sizeof *meta);
  size_t *out_c = malloc(2 * P * sizeof *out_c), *in_c = out_c ? out_c + P : NULL;
  size_t nout = 0, nin = 0;
  for (size_t q = 0; q < P && out_c; q++) {
    out_c[q] = q == me ? 0 : out_n[q];
    in_c[q] = q == me ? 0 : in_n[q];
    nout += out_c[q] * per;
    nin += in_c[q] * per;
  }
  double *sendbuf = malloc((nout + 1) * sizeof *sendbuf);
  double *recvbuf = malloc((nin + 1) * sizeof *recvbuf);
  int st = TL_OK;
  if (!meta || !out_c || !sendbuf || !recvbuf)
    st = TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "transpose: out of memory");
  else if (!mpi_counts(out_c, P, per, meta, meta + P) ||
           !mpi_counts(in_c, P, per, meta + 2 * P, meta + 3 * P))
    st = TL_FAIL(info, TL_ERR_UNSUPPORTED, -1, -1, "", "transpose: counts do not fit an int");
  if ((st = tl_grid_agree(plan->comm, st, info)) < 0)
    goto done;
  /* Pack: peer after peer, each peer's block field after field. */
  for (size_t q = 0; q < P; q++) {
    double *at = sendbuf + meta[P + q];
    for (int f = 0; f < nfields && q != me; f++, at += out_n[q] * w)
      tl_grid_copy_box(src[f], sb, sm, at, out_box[q], out_box[q] + 3, out_box[q], out_box[q] + 3,
                       w);
  }
  for (int f = 0; f < nfields; f++) /* my own piece */
    tl_grid_copy_box(src[f], sb, sm, dst[f], db, dm, out_box[me], out_box[me] + 3, w);
  MPI_Alltoallv(sendbuf, meta, meta + P, MPI_DOUBLE, recvbuf, meta + 2 * P, meta + 3 * P,
                MPI_DOUBLE, plan->comm);
  for (size_t q = 0; q < P; q++) {
    const double *at = recvbuf + meta[3 * P + q];
    for (int f = 0; f < nfields && q != me; f++, at += in_n[q] * w)
      tl_grid_copy_box(at, in_box[q], in_box[q] + 3, dst[f], db, dm, in_box[q], in_box[q] + 3, w);
  }
  /* The ledger: words to and from the others. */
  tl_ledger_collective(ledger, phase, 0, TL_LEDGER_ALLTOALL, plan->rank, -1, nout, nin);
  if (seconds)
    *seconds += MPI_Wtime() - t0;
done:
  free(meta);
  free(out_c);
  free(sendbuf);
  free(recvbuf);
  return st;
}

/* ---- the transpose route of a solve ----------------------------------- */

int tl_grid_solve_transpose_d(const tl_grid *g, tl_dir d, tl_dir e, const double *a,
                              const double *b, const double *c, const double *d_, double *x,
                              const tl_options *opt, tl_info *info, double *comm_seconds)
{
  if ((int)d >= 0 && d <= 2 && g->P[d] == 1) /* already whole: nothing to move */
    return tl_grid_solve_d(g, d, NULL, a, b, c, d_, x, opt, info);
  tl_grid pg;
  tl_grid_transpose plan;
  int st = tl_grid_pencil(g, d, e, &pg, info);
  if (st < 0)
    return tl_grid_agree(g->cart, st, info);
  if ((st = tl_grid_transpose_plan(g, &pg, g->line[d], 1, &plan, info)) < 0) {
    tl_grid_free(&pg);
    return tl_grid_agree(g->cart, st, info);
  }
  size_t cnt = tl_grid_local_count(&pg);
  double *mem = malloc((5 * cnt + 1) * sizeof *mem);
  st = mem ? TL_OK : TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "transpose solve: out of memory");
  if ((st = tl_grid_agree(g->cart, st, info)) < 0)
    goto done;
  tl_ledger *ledger = opt ? opt->ledger : NULL;
  double secs = 0;
  const double *src[4] = {a, b, c, d_};
  double *pen[4] = {mem, mem + cnt, mem + 2 * cnt, mem + 3 * cnt}, *px = mem + 4 * cnt;
  /* 1. the four arrays to pencils along d (one alltoall) */
  st = tl_grid_transpose_run(&plan, 0, 4, src, pen, ledger, "transpose", &secs, info);
  st = tl_grid_agree(g->cart, st, info); /* the solve below is collective over all */
  /* 2. every line whole: the OpenMP kernel */
  if (st >= 0)
    st = tl_grid_solve_d(&pg, d, NULL, pen[0], pen[1], pen[2], pen[3], px, opt, info);
  /* 3. the answer back to g's boxes (a second alltoall, round 1) */
  if (tl_status_has_solution(st)) {
    const double *back[1] = {px};
    double *xs[1] = {x};
    int st2 = tl_grid_transpose_run(&plan, 1, 1, back, xs, ledger, "transpose-back", &secs, info);
    if (st2 < 0)
      st = st2;
  }
  if (comm_seconds)
    *comm_seconds = secs;
done:
  free(mem);
  tl_grid_transpose_free(&plan);
  tl_grid_free(&pg);
  return tl_grid_agree(g->cart, st, info);
}
