/* verify/trace_nshaped.c -- the N-shaped partition method watched stage
 * by stage (verify/trace_internal.h), from the stages of
 * tridlab/part_nshaped.h: RD and RU reduce every block to its two joint
 * lines, JU and JD fold the block rows next to each joint line into it
 * (JD with the last row of the block above, received from the partition
 * above), RS solves the joint lines, SS substitutes. The verdict and the
 * messages are the one-call solve's, whose x must be the stages' x.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tridlab/algorithms.h"
#include "tridlab/backend.h"
#include "tridlab/part_nshaped.h"
#include "trace_internal.h"

/* After RD and RU, row i of block w (the rows strictly between joint
 * lines w and w+1) couples x[J_w], x[i], x[J_{w+1}]; the joint lines are
 * still the input rows. */
static void draw_blocks(tracer *tr, const tl_nshaped_state_d *st)
{
  tl_tr_draw_banded(tr, 1, tr->a, tr->b, tr->c, tr->d);
  for (size_t w = 0; w < st->nblocks; w++)
    for (size_t i = st->joint[w] + 1; i < st->joint[w + 1]; i++) {
      memset(&AT(tr, i, 0), 0, tr->n * sizeof(double));
      AT(tr, i, st->joint[w]) = st->left[i];
      AT(tr, i, i) = st->diag[i];
      AT(tr, i, st->joint[w + 1]) = st->right[i];
      tr->rhs[i] = st->rhs[i];
    }
}

/* After JU and JD, joint line w couples x[J_{w-1}], x[J_w], x[J_{w+1}]:
 * the reduced system, in the picture and on its own. */
static void draw_joints(tracer *tr, const tl_nshaped_state_d *st, tl_trace_stage *sg, size_t *rows,
                        double *rd)
{
  size_t nj = st->nj;
  memset(rd, 0, nj * nj * sizeof(double));
  for (size_t w = 0; w < nj; w++) {
    size_t J = st->joint[w];
    memset(&AT(tr, J, 0), 0, tr->n * sizeof(double));
    AT(tr, J, J) = rd[w * nj + w] = st->rb[w];
    if (w > 0)
      AT(tr, J, st->joint[w - 1]) = rd[w * nj + w - 1] = st->ra[w];
    if (w + 1 < nj)
      AT(tr, J, st->joint[w + 1]) = rd[w * nj + w + 1] = st->rc[w];
    tr->rhs[J] = st->rd[w];
    rows[w] = J;
  }
  sg->nr = nj;
  sg->rows = rows;
  sg->rdense = rd;
  sg->rrhs = st->rd;
}

static int nshaped_stages(tracer *tr, tl_nshaped_state_d *st, int levels, size_t *rows, double *rd,
                          double *x, tl_info *info)
{
  int P = tr->parts;
  const double *a = tr->a, *b = tr->b, *c = tr->c, *d = tr->d;
  tl_tr_stage_input(tr, "N-shaped: the first row of every partition (and the last row) is a "
                        "joint line; the blocks between them are reduced to the joint lines, "
                        "which form a small system; then every block row is substituted");
  const size_t *o = st->begin; /* the stages take each partition's first row */
  for (int p = 0; p < P; p++)
    TL_CALL(tl_nshaped_rd_d(st, p, a + o[p], b + o[p], c + o[p], d + o[p], info));
  for (int p = 0; p < P; p++)
    TL_CALL(tl_nshaped_ru_d(st, p, c + o[p]));
  tl_trace_stage sg = tl_tr_stage_new(tr, "RD and RU: every block reduced to its joint lines");
  snprintf(sg.note, sizeof sg.note,
           "no messages; downwards the lower diagonal becomes the column of the joint line "
           "above, upwards the upper one the column of the joint line below");
  draw_blocks(tr, st);
  tl_tr_emit(tr, &sg, 1);
  for (int p = 0; p < P; p++)
    TL_CALL(tl_nshaped_ju_d(st, p, a + o[p], b + o[p], c + o[p], d + o[p], info));
  for (int p = 0; p < P; p++)
    TL_CALL(tl_nshaped_jd_d(st, p, a + o[p], info));
  sg = tl_tr_stage_new(tr, "JU and JD: the joint lines absorb the block rows next to them");
  snprintf(sg.note, sizeof sg.note,
           "JU: a joint line eliminates the first row of the block below (its own rows); JD: "
           "the last row of the block above (4 numbers a rank would send down); %zu joint lines "
           "remain",
           st->nj);
  draw_joints(tr, st, &sg, rows, rd);
  tl_tr_emit(tr, &sg, 1);
  TL_CALL(tl_nshaped_rs_d(st, levels, info));
  sg = tl_tr_stage_new(tr, "RS: the reduced system of the joint lines");
  snprintf(sg.note, sizeof sg.note, "%s",
           levels > 1 ? "solved by the method again (--param levels)" : "solved by Thomas");
  tl_tr_add_vec(&sg, "x on the joint lines", -1, 0, st->nj, st->rx);
  tl_tr_emit(tr, &sg, 0);
  for (int p = 0; p < P; p++)
    TL_CALL(tl_nshaped_ss_d(st, p, x + o[p], info));
  sg = tl_tr_stage_new(tr, "SS: support substitution in every block");
  snprintf(sg.note, sizeof sg.note,
           "no messages beyond the joint values; x[i] = (rhs[i] - left[i] x[J_w] - right[i] "
           "x[J_w+1]) / diag[i]");
  tl_tr_draw_solved(tr, &sg, x);
  tl_tr_emit(tr, &sg, 1);
  return TL_OK;
}

int tl_tr_nshaped(tracer *tr, const tl_algorithm *algo, const tl_options *opt, double *x,
                  tl_info *info)
{
  int levels = (int)tl_param_value(algo, opt, "levels");
  tl_nshaped_state_d st;
  TL_CALL(tl_nshaped_init_d(&st, tr->n, 0, tr->parts, opt->part_sizes, info));
  size_t *rows = tl_alloc(st.nj, sizeof *rows);
  double *rd = tl_alloc(st.nj * st.nj, sizeof(double));
  int status = rows && rd ? nshaped_stages(tr, &st, levels, rows, rd, x, info) : tl_tr_nomem(info);
  if (status == TL_OK)
    tl_tr_verdict(tr, "the verdict", "halo", "verdict", NULL);
  tl_nshaped_free_d(&st);
  free(rows);
  free(rd);
  return status;
}
