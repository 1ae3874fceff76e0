/* verify/trace_spike.c -- SPIKE watched stage by stage
 * (verify/trace_internal.h): each block factored (spike: with its row
 * swaps; spike_dp: with its 1x1 and 2x2 pivots; spike_givens: by Givens
 * rotations, a singular block modified), S = D^-1 A with its spikes (and
 * spike_givens's kernel columns K), the tips gathered and the reduced
 * system of the boundary unknowns, the boundary unknowns sent back, the
 * retrieval and the verdict (the one-call solve's, as are the messages
 * the stages print). The phase functions are reference/spike_ref.c's,
 * reference/spike_dp_ref.c's and reference/spike_givens_ref.c's, in
 * their order, so the x drawn is the solve's bit for bit. The variants
 * share every stage but the first.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tridlab/backend.h"
#include "tridlab/part_spike_dp.h"
#include "tridlab/part_spike_givens.h"
#include "trace_internal.h"

/* The scratch of the simulated partitions: the factors of every block
 * (spike: l, u0, u1, u2 and the swaps; spike_dp: beta in u0 and the
 * pivot sizes in swap; spike_givens: f, its 6 m words a partition, K
 * last, and its flags in swap), g and the spikes, the tips, the boundary
 * unknowns. */
typedef struct spike_trace {
  double *l, *u0, *u1, *u2, *f, *g, *v, *w, *tips, *y;
  unsigned char *swap;
  size_t *rows;   /* 2(P-1) interface rows */
  double *rd, *rr; /* the reduced system's picture */
} spike_trace;

/* What a variant does in phase 1, and how its stages say it: the
 * factorization and local solves of partition p, and the note on the
 * factors (which rows it swapped, or where its 2x2 pivots are). */
typedef struct spike_kind {
  const char *intro, *phase1;
  int (*local)(const tracer *tr, spike_trace *sp, int p, tl_info *info);
  void (*note)(const tracer *tr, const spike_trace *sp, char *note, size_t size);
  const tl_spike_variant *var;    /* the variant (its phase 4 is the driver's) */
  const tl_spike_variant *kernel; /* a variant with kernel columns K, else NULL */
} spike_kind;

/* Partition p's kernel column K (m entries), in its factors. */
static const double *kernel_of(const tracer *tr, const spike_trace *sp, int p)
{
  size_t lo = tr->begin[p], m = tr->begin[p + 1] - lo;
  return sp->f + 6 * lo + 5 * m;
}

/* The unknown partition p's K stands in: its last row, or the last
 * partition's first row. */
static size_t pinned_row(const tracer *tr, int p)
{
  return p + 1 < tr->parts ? tr->begin[p + 1] - 1 : tr->begin[p];
}

/* After phase 1: S = D^-1 A, the identity with the spikes V (the column
 * of the next block's first unknown) and W (the previous block's last
 * unknown), less K in the pinned unknown's column for a kernel variant;
 * g on the right. */
static void draw_s(tracer *tr, const spike_trace *sp, const spike_kind *kind)
{
  memset(tr->dense, 0, tr->n * tr->n * sizeof(double));
  for (int p = 0; p < tr->parts; p++)
    for (size_t i = tr->begin[p]; i < tr->begin[p + 1]; i++) {
      AT(tr, i, i) = 1;
      if (p + 1 < tr->parts)
        AT(tr, i, tr->begin[p + 1]) = sp->v[i];
      if (p > 0)
        AT(tr, i, tr->begin[p] - 1) = sp->w[i];
      if (kind->kernel && tr->parts > 1)
        AT(tr, i, pinned_row(tr, p)) -= kernel_of(tr, sp, p)[i - tr->begin[p]];
      tr->rhs[i] = sp->g[i];
    }
}

/* Which rows of each block were swapped, as a note. */
static void swaps_note(const tracer *tr, const spike_trace *sp, char *note, size_t size)
{
  size_t len = (size_t)snprintf(note, size,
                                "each block factored with partial pivoting; rows i, i+1 "
                                "swapped at i =");
  for (int p = 0; p < tr->parts && len < size; p++) {
    int any = 0;
    len += (size_t)snprintf(note + len, size - len, " partition %d:", p);
    for (size_t i = tr->begin[p]; i + 1 < tr->begin[p + 1] && len < size; i++)
      if (sp->swap[i]) {
        len += (size_t)snprintf(note + len, size - len, " %zu", i);
        any = 1;
      }
    if (!any && len < size)
      len += (size_t)snprintf(note + len, size - len, " none");
  }
}

/* Truncated SPIKE's dropped entries: each inner partition's W at its
 * bottom row (the column of the previous partition's last unknown) and
 * V at its top row (the next partition's first unknown). */
static void truncated_drops(const tracer *tr, const spike_trace *sp, double tol,
                            tl_trace_stage *st)
{
  st->tol = tol;
  for (int p = 1; p + 1 < tr->parts && st->ndrop + 2 <= TL_TRACE_DROPS; p++) {
    size_t top = tr->begin[p], bot = tr->begin[p + 1] - 1;
    st->drop_row[st->ndrop] = (long)bot, st->drop_col[st->ndrop] = (long)top - 1;
    st->drop_val[st->ndrop++] = sp->w[bot];
    st->drop_row[st->ndrop] = (long)top, st->drop_col[st->ndrop] = (long)bot + 1;
    st->drop_val[st->ndrop++] = sp->v[top];
  }
}

/* The reduced system on the interface rows (the last row of each block,
 * the first of the next), drawn from S. */
static void reduced_picture(tracer *tr, const spike_trace *sp, const tl_spike_mode *mode,
                            tl_trace_stage *st)
{
  if (mode->truncate)
    truncated_drops(tr, sp, mode->tol, st);
  size_t nr = 0;
  for (int p = 0; p + 1 < tr->parts; p++) {
    sp->rows[nr++] = tr->begin[p + 1] - 1;
    sp->rows[nr++] = tr->begin[p + 1];
  }
  for (size_t i = 0; i < nr; i++) {
    for (size_t j = 0; j < nr; j++)
      sp->rd[i * nr + j] = AT(tr, sp->rows[i], sp->rows[j]);
    sp->rr[i] = tr->rhs[sp->rows[i]];
  }
  st->nr = nr;
  st->rows = sp->rows;
  st->rdense = sp->rd;
  st->rrhs = sp->rr;
}

/* spike's phase 1 on partition p: DGTTRF's factors, then g, V, W. */
static int partial_local(const tracer *tr, spike_trace *sp, int p, tl_info *info)
{
  size_t lo = tr->begin[p], m = tr->begin[p + 1] - lo;
  const double *a = tr->a + lo, *b = tr->b + lo, *c = tr->c + lo, *d = tr->d + lo;
  TL_CALL(tl_spike_factor_d(lo, m, p, a, b, c, sp->l + lo, sp->u0 + lo, sp->u1 + lo, sp->u2 + lo,
                            sp->swap + lo, info));
  return tl_spike_local_d(lo, m, p > 0, p + 1 < tr->parts, a, c, d, sp->l + lo, sp->u0 + lo,
                          sp->u1 + lo, sp->u2 + lo, sp->swap + lo, sp->g + lo, sp->v + lo,
                          sp->w + lo, info);
}

/* spike_dp's phase 1 on partition p: beta and the pivot sizes, then g, V, W. */
static int diagonal_local(const tracer *tr, spike_trace *sp, int p, tl_info *info)
{
  size_t lo = tr->begin[p], m = tr->begin[p + 1] - lo;
  const double *a = tr->a + lo, *b = tr->b + lo, *c = tr->c + lo, *d = tr->d + lo;
  TL_CALL(tl_spike_dp_factor_d(lo, m, p, a, b, c, sp->u0 + lo, sp->swap + lo, info));
  return tl_spike_dp_local_d(lo, m, p > 0, p + 1 < tr->parts, a, c, d, sp->u0 + lo,
                             sp->swap + lo, sp->g + lo, sp->v + lo, sp->w + lo, info);
}

/* Where each block's 2x2 pivots are, as a note. */
static void pivots_note(const tracer *tr, const spike_trace *sp, char *note, size_t size)
{
  size_t len = (size_t)snprintf(note, size,
                                "each block factored by diagonal pivoting, no row swaps; 2x2 "
                                "pivots on rows");
  for (int p = 0; p < tr->parts && len < size; p++) {
    int any = 0;
    len += (size_t)snprintf(note + len, size - len, " partition %d:", p);
    for (size_t i = tr->begin[p]; i < tr->begin[p + 1] && len < size; i++)
      if (sp->swap[i] == TL_SPIKE_DP_2X2) {
        len += (size_t)snprintf(note + len, size - len, " %zu-%zu", i, i + 1);
        any = 1;
      }
    if (!any && len < size)
      len += (size_t)snprintf(note + len, size - len, " none");
  }
}

/* spike_givens's phases 1-2 on partition p: the variant's own (the
 * rotations, the modification, K, then g, V, W). */
static int givens_local(const tracer *tr, spike_trace *sp, int p, tl_info *info)
{
  size_t lo = tr->begin[p], m = tr->begin[p + 1] - lo;
  return tl_spike_givens.local_d(lo, m, p, p > 0, p + 1 < tr->parts, tr->a + lo, tr->b + lo,
                                 tr->c + lo, tr->d + lo, sp->f + 6 * lo, sp->swap + lo, sp->g + lo,
                                 sp->v + lo, sp->w + lo, info);
}

/* Which blocks were modified (R's last diagonal entry replaced), as a
 * note. */
static void modified_note(const tracer *tr, const spike_trace *sp, char *note, size_t size)
{
  size_t len = (size_t)snprintf(note, size,
                                "each block factored by Givens rotations, R with two "
                                "superdiagonals (the last partition's bottom up); R's last "
                                "entry replaced (K in S) in partitions:");
  int any = 0;
  for (int p = 0; p < tr->parts && len < size; p++)
    if (sp->swap[tr->begin[p]] & TL_SPIKE_GIVENS_SHIFTED) {
      len += (size_t)snprintf(note + len, size - len, " %d", p);
      any = 1;
    }
  if (!any && len < size)
    snprintf(note + len, size - len, " none");
}

static const spike_kind partial = {
    .intro = "SPIKE: each partition factors its block with partial pivoting and solves for g = "
             "A_p^-1 d_p and its two spikes; one small system of the boundary unknowns couples "
             "the partitions",
    .phase1 = "phase 1: factor A_p = L U with row swaps; g, V, W",
    .local = partial_local,
    .note = swaps_note,
    .var = &tl_spike_partial,
};

static const spike_kind diagonal = {
    .intro = "SPIKE with diagonal pivoting: each partition factors its block with 1x1 and 2x2 "
             "pivots (no row swaps) and solves for g = A_p^-1 d_p and its two spikes; one small "
             "system of the boundary unknowns couples the partitions",
    .phase1 = "phase 1: factor A_p = L B U with 1x1/2x2 pivots; g, V, W",
    .local = diagonal_local,
    .note = pivots_note,
    .var = &tl_spike_diagonal,
};

static const spike_kind givens = {
    .intro = "SPIKE with Givens rotations: each partition factors A_p = Q R; a (nearly) "
             "singular block gets a new last entry of R and leaves a column K in S; one small "
             "system of the boundary unknowns couples the partitions",
    .phase1 =
        "phase 1: A_p = Q R by Givens rotations, R's last entry replaced where ~0; g, V, W, K",
    .local = givens_local,
    .note = modified_note,
    .var = &tl_spike_givens,
    .kernel = &tl_spike_givens,
};

/* Phases 1-2 on every partition, and its tips. */
static int spike_local_phases(tracer *tr, spike_trace *sp, const spike_kind *kind, tl_info *info)
{
  int P = tr->parts;
  size_t send = kind->kernel ? TL_SPIKE_SEND_KERNEL : TL_SPIKE_SEND;
  for (int p = 0; p < P; p++) {
    size_t lo = tr->begin[p], m = tr->begin[p + 1] - lo;
    TL_CALL(kind->local(tr, sp, p, info));
    if (kind->kernel)
      tl_spike_tips_kernel_d(m, p > 0, p + 1 < P, sp->g + lo, sp->v + lo, sp->w + lo,
                             kernel_of(tr, sp, p), sp->tips + send * p);
    else
      tl_spike_tips_d(m, p > 0, p + 1 < P, sp->g + lo, sp->v + lo, sp->w + lo, sp->tips + send * p);
  }
  return TL_OK;
}

/* Phase 5 on partition p: x = g - V x_next - W x_prev (+ K x_pin). */
static int spike_retrieve(const tracer *tr, const spike_trace *sp, const spike_kind *kind, int p,
                          double *x, tl_info *info)
{
  size_t lo = tr->begin[p], m = tr->begin[p + 1] - lo;
  int left = p > 0, right = p + 1 < tr->parts;
  double prev = left ? sp->y[2 * p - 2] : 0, next = right ? sp->y[2 * p + 1] : 0;
  if (!kind->kernel)
    return tl_spike_retrieve_d(lo, m, left, right, sp->g + lo, sp->v + lo, sp->w + lo, prev, next,
                               x + lo, info);
  double pin = right ? sp->y[2 * p] : left ? sp->y[2 * p - 1] : 0;
  return tl_spike_retrieve_kernel_d(lo, m, left, right, sp->g + lo, sp->v + lo, sp->w + lo,
                                    kernel_of(tr, sp, p), prev, next, pin, x + lo, info);
}

/* Phase 4, the driver's: the partitions' sizes from their first rows. */
static int spike_reduced(const tracer *tr, spike_trace *sp, const spike_kind *kind,
                         const tl_spike_mode *mode, tl_info *info)
{
  size_t *sizes = tl_alloc((size_t)tr->parts, sizeof *sizes);
  if (!sizes)
    return tl_tr_nomem(info);
  for (int p = 0; p < tr->parts; p++)
    sizes[p] = tr->begin[p + 1] - tr->begin[p];
  int status = tl_spike_phase4_d(kind->var, mode, tr->n, tr->parts, sizes, sp->tips, sp->y, info);
  free(sizes);
  return status;
}

/* What phase 4 did, in words, for the stage's note. */
static const char *reduced_words(const tl_spike_mode *mode)
{
  if (mode->truncate)
    return "solves each interface's 2x2 system alone (truncated SPIKE: the far spike entries "
           "are dropped)";
  if (mode->recursive)
    return "merges the partitions pairwise, level after level, each merge a 2x2 system "
           "(recursive SPIKE; nothing is dropped)";
  return "solves them with a pivoted band solve (nothing is dropped)";
}

static int spike_phases(tracer *tr, spike_trace *sp, const spike_kind *kind,
                        const tl_spike_mode *mode, double *x, tl_info *info)
{
  int P = tr->parts;
  tl_tr_stage_input(tr, kind->intro);
  TL_CALL(spike_local_phases(tr, sp, kind, info));
  tl_trace_stage st = tl_tr_stage_new(tr, kind->phase1);
  kind->note(tr, sp, st.note, sizeof st.note);
  draw_s(tr, sp, kind);
  for (int p = 0; p < P && st.nvec + 2 <= TL_TRACE_VECS; p++) {
    size_t lo = tr->begin[p], m = tr->begin[p + 1] - lo;
    if (p + 1 < P)
      tl_tr_add_vec(&st, "V", p, lo, m, sp->v + lo);
    if (p > 0)
      tl_tr_add_vec(&st, "W", p, lo, m, sp->w + lo);
  }
  tl_tr_emit(tr, &st, 1);
  TL_CALL(spike_reduced(tr, sp, kind, mode, info));
  st = tl_tr_stage_new(tr, "phase 2: the tips go to partition 0; the reduced system");
  snprintf(st.note, sizeof st.note,
           "every partition sends the top and bottom entries of g, V and W%s; partition 0 "
           "takes the %d boundary unknowns and %s",
           kind->kernel ? " and K" : "", 2 * (P - 1), reduced_words(mode));
  reduced_picture(tr, sp, mode, &st);
  st.ledger_phase[0] = "tips";
  tl_tr_emit(tr, &st, 0);
  for (int p = 0; p < P; p++)
    TL_CALL(spike_retrieve(tr, sp, kind, p, x, info));
  st = tl_tr_stage_new(tr, kind->kernel ? "phases 3-4: the boundary unknowns go back; x = g - V "
                                          "x_next - W x_prev + K x_pin"
                                        : "phases 3-4: the boundary unknowns go back; x = g - V "
                                          "x_next - W x_prev");
  snprintf(st.note, sizeof st.note,
           "partition 0 sends each partition its two boundary unknowns; every partition "
           "retrieves its rows");
  st.ledger_phase[0] = "boundary";
  tl_tr_draw_solved(tr, &st, x);
  tl_tr_emit(tr, &st, 1);
  tl_tr_verdict(tr, "phase 5: the verdict", "verdict", "", NULL);
  return TL_OK;
}

static int spike_trace_run(tracer *tr, const spike_kind *kind, const tl_algorithm *algo,
                           const tl_options *opt, double *x, tl_info *info)
{
  tl_spike_mode mode;
  TL_CALL(tl_spike_mode_of(algo, opt, &mode, info));
  size_t n = tr->n, P = (size_t)tr->parts, R = P > 1 ? 2 * (P - 1) : 1;
  spike_trace sp = {.l = tl_alloc(13 * n + 10 * P + R * R + R, sizeof(double)),
                    .swap = tl_alloc(n, 1),
                    .rows = tl_alloc(R, sizeof(size_t))};
  int status;
  if (!sp.l || !sp.swap || !sp.rows) {
    status = tl_tr_nomem(info);
  } else {
    sp.u0 = sp.l + n, sp.u1 = sp.u0 + n, sp.u2 = sp.u1 + n, sp.f = sp.u2 + n, sp.g = sp.f + 6 * n;
    sp.v = sp.g + n, sp.w = sp.v + n, sp.tips = sp.w + n;
    sp.y = sp.tips + TL_SPIKE_SEND_KERNEL * P;
    sp.rd = sp.y + 2 * P, sp.rr = sp.rd + R * R;
    status = spike_phases(tr, &sp, kind, &mode, x, info);
  }
  free(sp.l);
  free(sp.swap);
  free(sp.rows);
  return status;
}

int tl_tr_spike(tracer *tr, const tl_algorithm *algo, const tl_options *opt, double *x,
                tl_info *info)
{
  return spike_trace_run(tr, &partial, algo, opt, x, info);
}

int tl_tr_spike_dp(tracer *tr, const tl_algorithm *algo, const tl_options *opt, double *x,
                   tl_info *info)
{
  return spike_trace_run(tr, &diagonal, algo, opt, x, info);
}

int tl_tr_spike_givens(tracer *tr, const tl_algorithm *algo, const tl_options *opt, double *x,
                       tl_info *info)
{
  return spike_trace_run(tr, &givens, algo, opt, x, info);
}
