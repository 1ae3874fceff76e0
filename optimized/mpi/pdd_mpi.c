/* optimized/mpi/pdd_mpi.c -- PDD and RPDD across MPI ranks.
 *
 * The rank programs of reference/pdd_ref.c and reference/rpdd_ref.c:
 * rank p is partition p and runs the same phase functions on its own rows
 * of every system of the batch; what the simulated partitions pass in
 * their edge and interface buffers travels here as one message per
 * neighbour for the whole batch (docs/algorithms/pdd.md, "MPI"):
 *
 *   PDD, per system          rank p-1        rank p          rank p+1
 *   1 local solve + spikes      |               |               |
 *   2 "first-row"               | <- y0 v0 a0 --|               |   3 words
 *   3 "interface" (2x2 solve)   |               |-- x_last c -> |   2 words
 *   5 correction                |               |               |
 *   6 "verdict": two allreduces (status, dropped, margin, |x|; then the
 *     two tail terms of the bound): 8 and 4 words
 *
 *   RPDD: one "edges" exchange with both neighbours at once (3 words each
 *   way), then each rank solves both of its interfaces itself.
 *
 * Cost per rank: the reference's flops on m rows per system; messages: 2
 * (PDD, in two dependent steps) or 2 at once (RPDD), plus the verdict.
 */
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"
#include "tridlab/part_pdd.h"
#include "tridlab/part_rpdd.h"

_Static_assert(sizeof(tl_pdd_edge_d) == TL_PDD_EDGE_WORDS * sizeof(double),
               "an edge travels as 3 doubles");
_Static_assert(sizeof(tl_pdd_iface_d) == TL_PDD_IFACE_WORDS * sizeof(double),
               "an interface message travels as 2 doubles");

/* Phases as the references number them (the order failures are met). */
enum { PH_CHECK = 0, PH_LOCAL = 1, PH_INTERFACE = 3, PH_CORRECT_PDD = 5, PH_CORRECT_RPDD = 4 };

typedef struct pdd_run {
  tl_mpi_exchange *ex;
  const tl_mpi_batch *sl;
  double *x;
  const char *name;
  tl_pdd_part_d *pt;        /* one per system                           */
  tl_pdd_edge_d *to_prev, *to_next, *from_prev, *from_next;
  unsigned char *bad;       /* 1: the system failed on this rank        */
  tl_mpi_status st;
} pdd_run;

#define ROWS(arr, s) ((const double *)(arr) + (s) * r->sl->m)

static void run_free(pdd_run *r)
{
  if (r->pt)
    for (size_t s = 0; s < r->sl->nsys; s++)
      tl_pdd_part_free_d(&r->pt[s]);
  free(r->pt);
  free(r->to_prev);
  free(r->bad);
  tl_mpi_status_free(&r->st);
}

static int run_init(pdd_run *r, tl_mpi_exchange *ex, const tl_mpi_batch *sl, const size_t *slices,
                    void *x, const char *name, tl_info *info)
{
  memset(r, 0, sizeof *r);
  r->ex = ex;
  r->sl = sl;
  r->x = x;
  r->name = name;
  size_t nsys = sl->nsys;
  r->pt = tl_alloc(nsys, sizeof *r->pt);
  r->to_prev = tl_alloc(4 * nsys, sizeof *r->to_prev);
  r->bad = tl_alloc(nsys, 1);
  int status = tl_mpi_status_init(&r->st, ex, nsys, info);
  if (status == TL_OK && (!r->pt || !r->to_prev || !r->bad))
    status = TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "%s: no memory for %zu systems", name, nsys);
  if (status < 0) {
    run_free(r);
    return status;
  }
  r->to_next = r->to_prev + nsys;
  r->from_prev = r->to_prev + 2 * nsys;
  r->from_next = r->to_prev + 3 * nsys;
  for (size_t s = 0; s < nsys; s++) {
    tl_info one;
    tl_info_clear(&one);
    int st = tl_pdd_part_init_d(&r->pt[s], sl->n, ex->size, slices, ex->rank, &one);
    if (st < 0) { /* no spikes for this system: note it, skip its phases */
      r->bad[s] = 1;
      tl_mpi_status_note(&r->st, s, PH_LOCAL, st, &one);
    }
  }
  return TL_OK;
}

/* Note a phase's status for system s; a failed system skips the phases
 * after it (its rank still sends, so nobody waits). */
static void note(pdd_run *r, size_t s, int phase, int status, const tl_info *one)
{
  if (status < 0)
    r->bad[s] = 1;
  tl_mpi_status_note(&r->st, s, phase, status, one);
}

/* The verdict (both rounds) and the batch's status. */
static int verdict(pdd_run *r, double tol, tl_info *info)
{
  size_t nsys = r->sl->nsys;
  int status = TL_OK;
  double *pairs = tl_alloc(6 * nsys, 2 * sizeof(double));
  tl_pdd_verdict_d *v = tl_alloc(nsys, sizeof *v);
  if (!pairs || !v) {
    free(pairs);
    free(v);
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "%s: no memory for the verdict", r->name);
  }
  double *round1 = pairs + 2 * 4 * nsys;
  /* Round 0: the status pair, then the dropped entry, margin and |x|. */
  tl_mpi_status_pairs(&r->st, pairs, 4);
  for (size_t s = 0; s < nsys; s++) {
    tl_pdd_verdict_init_d(&v[s]);
    if (!r->bad[s])
      tl_pdd_ref_verdict_part0_d(&r->pt[s], &v[s]);
    double *q = pairs + 8 * s;
    q[2] = v[s].dropped, q[3] = (double)v[s].drop_row;
    q[4] = v[s].neg_mu, q[5] = (double)v[s].mu_row;
    q[6] = v[s].xmax, q[7] = -1.0;
  }
  TL_CHECK(tl_mpi_allreduce_pairs(r->ex, "verdict", 0, pairs, 4 * nsys));
  status = tl_mpi_status_first_error(&r->st, pairs, 4, info);
  if (status != 0)
    goto cleanup; /* every rank saw the same failure: no round 1 */
  /* Round 1: the tail terms, with the global margin and |x|. */
  for (size_t s = 0; s < nsys; s++) {
    const double *q = pairs + 8 * s;
    v[s].dropped = q[2], v[s].drop_row = (long)q[3];
    v[s].neg_mu = q[4], v[s].mu_row = (long)q[5];
    v[s].xmax = q[6];
    v[s].rv = v[s].rw = 0.0;
    tl_pdd_ref_verdict_part1_d(&r->pt[s], &v[s]);
    round1[4 * s] = v[s].rv, round1[4 * s + 1] = -1.0;
    round1[4 * s + 2] = v[s].rw, round1[4 * s + 3] = -1.0;
  }
  TL_CHECK(tl_mpi_allreduce_pairs(r->ex, "verdict", 1, round1, 2 * nsys));
  tl_outcome out;
  tl_outcome_init(&out, nsys);
  for (size_t s = 0; s < nsys; s++) {
    v[s].rv = round1[4 * s];
    v[s].rw = round1[4 * s + 2];
    tl_info one;
    tl_info_clear(&one);
    int st = tl_pdd_ref_verdict_d(&v[s], tol, r->name, &one);
    tl_outcome_add(&out, s, st, &one);
  }
  status = tl_outcome_finish(&out, info);
cleanup:
  free(pairs);
  free(v);
  return status;
}

static int pdd_mpi_solve(const tl_mpi_algorithm *self, tl_mpi_exchange *ex,
                         const tl_mpi_batch *sl, const size_t *slices, void *x,
                         const tl_options *opt, tl_info *info)
{
  int p = ex->rank, P = ex->size;
  double tol = tl_param_value(self->reference, opt, "tol");
  pdd_run run, *r = &run;
  TL_CALL(run_init(r, ex, sl, slices, x, "pdd", info));
  size_t nsys = sl->nsys;
  tl_pdd_iface_d *down = tl_alloc(2 * nsys, sizeof *down);
  if (!down) {
    run_free(r);
    return TL_FAIL(info, TL_ERR_NOMEM, -1, -1, "", "pdd: no memory for %zu systems", nsys);
  }
  tl_pdd_iface_d *down_in = down + nsys;
  int status = TL_OK;
  for (size_t s = 0; s < nsys; s++) { /* phase 1: local solve and spikes */
    if (r->bad[s])
      continue;
    tl_info one;
    tl_info_clear(&one);
    note(r, s, PH_LOCAL,
         tl_pdd_ref_local_d(&r->pt[s], ROWS(sl->a, s), ROWS(sl->b, s), ROWS(sl->c, s),
                            ROWS(sl->d, s), r->x + s * sl->m, &one),
         &one);
  }
  for (size_t s = 0; s < nsys && p > 0; s++) /* phase 2: first rows go up */
    if (!r->bad[s])
      tl_pdd_ref_send_first_d(&r->pt[s], ROWS(sl->a, s), r->x + s * sl->m, &r->to_prev[s]);
  TL_CHECK(tl_mpi_shift(ex, "first-row", 0, TL_F64, r->to_prev, TL_PDD_EDGE_WORDS * nsys,
                        p > 0 ? p - 1 : -1, r->from_next, TL_PDD_EDGE_WORDS * nsys,
                        p + 1 < P ? p + 1 : -1));
  for (size_t s = 0; s < nsys && p + 1 < P; s++) { /* phase 3: interface p|p+1 */
    if (r->bad[s])
      continue;
    tl_info one;
    tl_info_clear(&one);
    note(r, s, PH_INTERFACE,
         tl_pdd_ref_interface_d(&r->pt[s], ROWS(sl->c, s), r->x + s * sl->m, &r->from_next[s],
                                &down[s], &one),
         &one);
  }
  TL_CHECK(tl_mpi_shift(ex, "interface", 0, TL_F64, down, TL_PDD_IFACE_WORDS * nsys,
                        p + 1 < P ? p + 1 : -1, down_in, TL_PDD_IFACE_WORDS * nsys,
                        p > 0 ? p - 1 : -1));
  for (size_t s = 0; s < nsys; s++) { /* phases 4 and 5: receive, correct */
    if (r->bad[s])
      continue;
    if (p > 0)
      tl_pdd_ref_receive_d(&r->pt[s], &down_in[s]);
    tl_info one;
    tl_info_clear(&one);
    note(r, s, PH_CORRECT_PDD, tl_pdd_ref_correct_d(&r->pt[s], r->x + s * sl->m, &one), &one);
  }
  status = verdict(r, tol, info); /* phase 6 */
cleanup:
  free(down);
  run_free(r);
  return status;
}

static int rpdd_mpi_solve(const tl_mpi_algorithm *self, tl_mpi_exchange *ex,
                          const tl_mpi_batch *sl, const size_t *slices, void *x,
                          const tl_options *opt, tl_info *info)
{
  int p = ex->rank, P = ex->size;
  double tol = tl_param_value(self->reference, opt, "tol");
  size_t J = (size_t)tl_param_value(self->reference, opt, "J");
  pdd_run run, *r = &run;
  TL_CALL(run_init(r, ex, sl, slices, x, "rpdd", info));
  size_t nsys = sl->nsys;
  int status = TL_OK;
  for (size_t s = 0; s < nsys; s++) { /* phase 1 (J checked first) */
    if (r->bad[s])
      continue;
    tl_info one;
    tl_info_clear(&one);
    int st = tl_rpdd_ref_local_d(&r->pt[s], ROWS(sl->a, s), ROWS(sl->b, s), ROWS(sl->c, s),
                                 ROWS(sl->d, s), r->x + s * sl->m, J, tol, &one);
    note(r, s, st == TL_ERR_ARG ? PH_CHECK : PH_LOCAL, st, &one);
  }
  for (size_t s = 0; s < nsys; s++) /* phase 2: edges to both neighbours */
    if (!r->bad[s])
      tl_rpdd_ref_send_d(&r->pt[s], ROWS(sl->a, s), ROWS(sl->c, s), r->x + s * sl->m,
                         &r->to_prev[s], &r->to_next[s]);
  TL_CHECK(tl_mpi_neighbours(ex, "edges", 0, TL_F64, p > 0 ? p - 1 : -1, p + 1 < P ? p + 1 : -1,
                             r->to_prev, TL_PDD_EDGE_WORDS * nsys, r->to_next,
                             TL_PDD_EDGE_WORDS * nsys, r->from_prev, TL_PDD_EDGE_WORDS * nsys,
                             r->from_next, TL_PDD_EDGE_WORDS * nsys));
  for (size_t s = 0; s < nsys; s++) { /* phases 3 and 4: interfaces, correct */
    if (r->bad[s])
      continue;
    tl_info one;
    tl_info_clear(&one);
    note(r, s, PH_INTERFACE,
         tl_rpdd_ref_interfaces_d(&r->pt[s], ROWS(sl->a, s), ROWS(sl->c, s), r->x + s * sl->m,
                                  p > 0 ? &r->from_prev[s] : NULL,
                                  p + 1 < P ? &r->from_next[s] : NULL, &one),
         &one);
    if (r->bad[s])
      continue;
    tl_info_clear(&one);
    note(r, s, PH_CORRECT_RPDD, tl_pdd_ref_correct_d(&r->pt[s], r->x + s * sl->m, &one), &one);
  }
  status = verdict(r, tol, info); /* phase 5 */
cleanup:
  run_free(r);
  return status;
}

extern const tl_algorithm tl_algo_pdd_ref;
extern const tl_algorithm tl_algo_rpdd_ref;

const tl_mpi_algorithm tl_mpi_algo_pdd = {
    .name = "pdd",
    .reference = &tl_algo_pdd_ref,
    .summary = "first rows up, solved interfaces down (2 dependent messages), verdict",
    .solve = pdd_mpi_solve,
};

const tl_mpi_algorithm tl_mpi_algo_rpdd = {
    .name = "rpdd",
    .reference = &tl_algo_rpdd_ref,
    .summary = "one exchange of edges with both neighbours, verdict",
    .solve = rpdd_mpi_solve,
};
