/* convergence/ledger_plot.c -- a communication ledger (tridlab/ledger.h)
 * drawn with gnuplot (tl_ledger_plot, tridlab/study.h): the ranks as
 * horizontal lanes, the steps of the solve going right, each message an
 * arrow from one lane to another with its words on it. Collectives look
 * different from messages: an allreduce, allgather or alltoall is a bar
 * across the lanes it joins, a gather, scatter or bcast a fan of dashed
 * arrows into or out of its root, each named above the lanes. The
 * verdict's traffic (tl_ledger_is_verdict: it checks the answer, the
 * algorithm does not need it) is drawn in another colour on a shaded
 * band. The gnuplot room is here, above verify/ and the core. */
#include <libgen.h>
#include <stdio.h>
#include <string.h>

#include "tridlab/backend.h"
#include "tridlab/ledger.h"
#include "tridlab/study.h"

/* Most steps a picture holds: beyond it the labels could not be read. */
#define MAX_STEPS 64
/* Half the width of a step: an arrow starts at x - HALF and ends at
 * x + HALF, so that time visibly goes right while a message travels. */
#define HALF 0.28

/* A step of the picture: one (phase, round) and one kind of traffic
 * (point-to-point, or one collective kind), in the order the ledger
 * first records it. */
typedef struct step {
  const char *phase;
  int round;
  int kind;   /* TL_LEDGER_SEND for messages (either end), else the collective */
  int root;   /* the root of a gather, scatter or bcast (-1: none)          */
  long words; /* the largest words of one rank's part in a collective     */
} step;

typedef struct picture {
  step steps[MAX_STEPS];
  int nsteps, ranks;
} picture;

/* Messages of either end share a step; each collective kind has its own. */
static int step_kind(tl_ledger_kind kind)
{
  return kind == TL_LEDGER_RECV ? TL_LEDGER_SEND : (int)kind;
}

static int is_rooted(int kind)
{
  return kind == TL_LEDGER_GATHER || kind == TL_LEDGER_SCATTER || kind == TL_LEDGER_BCAST;
}

/* The step an entry belongs to, or -1. */
static int find_step(const picture *pic, const tl_ledger_entry *e)
{
  for (int s = 0; s < pic->nsteps; s++) {
    const step *st = &pic->steps[s];
    if (st->round == e->round && st->kind == step_kind(e->kind) && !strcmp(st->phase, e->phase))
      return s;
  }
  return -1;
}

/* 1 when an entry can be drawn: a kind, a rank, a round, and the peer a
 * message or a rooted collective needs (-1, none, for the others). */
static int drawable(const tl_ledger_entry *e)
{
  if ((unsigned)e->kind >= TL_LEDGER_KINDS || e->rank < 0 || e->round < 0 || e->peer < -1)
    return 0;
  int needs_peer = e->kind == TL_LEDGER_SEND || e->kind == TL_LEDGER_RECV || is_rooted(e->kind);
  return !needs_peer || e->peer >= 0;
}

/* The steps, the lanes (every rank and peer named: one rank's own
 * ledger names the ranks it talks to), and every entry checked: a
 * picture of a bad ledger would be a wrong picture. */
static int collect(const tl_ledger *L, picture *pic, tl_info *info)
{
  memset(pic, 0, sizeof *pic);
  for (size_t k = 0; k < L->count; k++) {
    const tl_ledger_entry *e = &L->entries[k];
    pic->ranks = e->rank >= pic->ranks ? e->rank + 1 : pic->ranks;
    pic->ranks = e->peer >= pic->ranks ? e->peer + 1 : pic->ranks;
    if (!drawable(e))
      return TL_FAIL(info, TL_ERR_ARG, -1, -1, "ledger",
                     "ledger entry %zu (rank %d, phase '%s', %s, peer %d) cannot be drawn: "
                     "not a valid entry",
                     k, e->rank, e->phase, tl_ledger_kind_name(e->kind), e->peer);
    int s = find_step(pic, e);
    if (s < 0) {
      if (pic->nsteps == MAX_STEPS)
        return TL_FAIL(info, TL_ERR_ARG, -1, -1, "ledger",
                       "the ledger has more than %d steps (phase, round and kind): too many to "
                       "draw (phase '%s', round %d is the first left over)",
                       MAX_STEPS, e->phase, e->round);
      s = pic->nsteps++;
      pic->steps[s] = (step){e->phase, e->round, step_kind(e->kind), -1, 0};
    }
    step *st = &pic->steps[s];
    if (is_rooted(e->kind))
      st->root = e->peer;
    long w = e->words_sent > e->words_recv ? e->words_sent : e->words_recv;
    if (e->kind != TL_LEDGER_SEND && e->kind != TL_LEDGER_RECV && e->rank != e->peer)
      st->words = w > st->words ? w : st->words;
  }
  return TL_OK;
}

/* 1 when the ledger holds the SEND end of the message a RECV entry
 * received (then the SEND draws it; a rank's own ledger may hold only
 * the RECV). */
static int has_send(const tl_ledger *L, const tl_ledger_entry *r)
{
  for (size_t k = 0; k < L->count; k++) {
    const tl_ledger_entry *e = &L->entries[k];
    if (e->kind == TL_LEDGER_SEND && e->rank == r->peer && e->peer == r->rank &&
        e->round == r->round && !strcmp(e->phase, r->phase))
      return 1;
  }
  return 0;
}

/* The data blocks, in this order; gnuplot's `index` numbers them. */
enum { B_MSG, B_FAN, B_ROOT, B_BAR, B_NAME, BLOCKS };

/* Where an arrow's words go: a third of the way along, a little above
 * the line (two messages that cross in an exchange keep their labels
 * apart); for a fan, at the end away from the root (the root's end is
 * crowded): before a gather's tail, after a scatter's head. */
enum { AT_THIRD, AT_TAIL, AT_HEAD };

/* One arrow: from lane `from` to lane `to` across step x, its words at
 * `at`. */
static void arrow(FILE *f, int x, int from, int to, long words, int at, int verdict)
{
  double x0 = x - HALF, dx = 2 * HALF, dy = to - from;
  double lx = at == AT_THIRD ? x0 + dx / 3 - 0.04 : at == AT_TAIL ? x0 - 0.08 : x0 + dx + 0.09;
  double ly = at == AT_THIRD ? from + dy / 3 - 0.15 : at == AT_TAIL ? from : to;
  fprintf(f, "%g %d %g %g %ld %g %g %d\n", x0, from, dx, dy, words, lx, ly, verdict);
}

/* The first row of every block draws nothing (its verdict column, -1,
 * matches neither filter): gnuplot merges an empty block into the next
 * separator, which would shift every later `index`. */
static void block_begin(FILE *f, const char *columns, const char *dummy)
{
  fprintf(f, "# %s\n%s\n", columns, dummy);
}
#define NO_ARROW "0 0 0 0 0 0 0 -1"

/* Block B_MSG: x0 y0 dx dy words label_x label_y verdict, a message each. */
static void write_messages(FILE *f, const tl_ledger *L, const picture *pic)
{
  block_begin(f, "messages: x0 lane0 dx dlane words label_x label_y verdict", NO_ARROW);
  for (size_t k = 0; k < L->count; k++) {
    const tl_ledger_entry *e = &L->entries[k];
    int s = find_step(pic, e);
    int v = tl_ledger_is_verdict(e->phase);
    if (e->kind == TL_LEDGER_SEND)
      arrow(f, s, e->rank, e->peer, e->words_sent, AT_THIRD, v);
    else if (e->kind == TL_LEDGER_RECV && !has_send(L, e))
      arrow(f, s, e->peer, e->rank, e->words_recv, AT_THIRD, v);
  }
}

/* Block B_FAN: the arrows of gathers (into the root), scatters and
 * bcasts (out of it), one per rank other than the root. */
static void write_fans(FILE *f, const tl_ledger *L, const picture *pic)
{
  block_begin(f, "gather, scatter, bcast: x0 lane0 dx dlane words label_x label_y verdict",
              NO_ARROW);
  for (size_t k = 0; k < L->count; k++) {
    const tl_ledger_entry *e = &L->entries[k];
    if (!is_rooted(e->kind) || e->rank == e->peer)
      continue;
    int s = find_step(pic, e), v = tl_ledger_is_verdict(e->phase);
    if (e->kind == TL_LEDGER_GATHER && e->words_sent > 0)
      arrow(f, s, e->rank, e->peer, e->words_sent, AT_TAIL, v);
    else if (e->kind != TL_LEDGER_GATHER && e->words_recv > 0)
      arrow(f, s, e->peer, e->rank, e->words_recv, AT_HEAD, v);
  }
}

/* 1 when e is a rank's part in an allreduce, allgather or alltoall
 * (rooted = 0), or a root's own part in its gather, scatter or bcast
 * (rooted = 1). */
static int is_mark(const tl_ledger_entry *e, int rooted)
{
  if (e->kind == TL_LEDGER_SEND || e->kind == TL_LEDGER_RECV)
    return 0;
  return rooted ? is_rooted(e->kind) && e->rank == e->peer : !is_rooted(e->kind);
}

/* Blocks B_ROOT (rooted = 1) and B_BAR (0): x lane verdict. A root's
 * mark stands where its fan meets: at the end of a gather, the start of
 * a scatter or bcast. A bar is the marks of the ranks that take part in
 * one allreduce, allgather or alltoall, a step's marks apart from the
 * next step's by a blank line (gnuplot joins the rows of a run). */
static void write_marks(FILE *f, const tl_ledger *L, const picture *pic, int rooted)
{
  block_begin(f,
              rooted ? "roots of gathers, scatters, bcasts: x lane verdict"
                     : "allreduce, allgather, alltoall parts: x lane verdict",
              "0 0 -1");
  for (int s = 0; s < pic->nsteps; s++) {
    int rows = 0;
    for (int r = 0; r < pic->ranks; r++)
      for (size_t k = 0; k < L->count; k++) {
        const tl_ledger_entry *e = &L->entries[k];
        if (e->rank != r || !is_mark(e, rooted) || find_step(pic, e) != s)
          continue;
        double x = s + (!rooted ? 0 : e->kind == TL_LEDGER_GATHER ? HALF : -HALF);
        fprintf(f, "%g %d %d\n", x, r, tl_ledger_is_verdict(e->phase));
        rows++;
        break;
      }
    if (rows) /* one blank line ends a run; two would end the block */
      fputs("\n", f);
  }
}

/* Block B_NAME: x "name" verdict, one per collective step, above lane 0. */
static void write_names(FILE *f, const picture *pic)
{
  block_begin(f, "collective names: x name verdict", "0 \"\" -1");
  for (int s = 0; s < pic->nsteps; s++) {
    const step *st = &pic->steps[s];
    if (st->kind == TL_LEDGER_SEND)
      continue;
    char name[64];
    if (is_rooted(st->kind))
      snprintf(name, sizeof name, "%s %s %d", tl_ledger_kind_name(st->kind),
               st->kind == TL_LEDGER_GATHER ? "to" : "from", st->root);
    else
      snprintf(name, sizeof name, "%s\\n%ld w", tl_ledger_kind_name(st->kind), st->words);
    fprintf(f, "%d \"%s\" %d\n", s, name, tl_ledger_is_verdict(st->phase));
  }
}

/* The .dat: the blocks, in their order. */
static void write_dat(FILE *f, const tl_ledger *L, const picture *pic)
{
  fputs("# tridlab ledger picture: lanes are ranks, x is the step (tl_ledger_plot)\n", f);
  write_messages(f, L, pic);
  fputs("\n\n", f);
  write_fans(f, L, pic);
  fputs("\n\n", f);
  write_marks(f, L, pic, 1);
  fputs("\n\n", f);
  write_marks(f, L, pic, 0);
  fputs("\n\n", f);
  write_names(f, pic);
}

/* Rows of each block, the algorithm's [0] and the verdict's [1] apart,
 * counted as write_dat writes them: a picture names in its key only what
 * it draws. */
static void count_blocks(const tl_ledger *L, const picture *pic, int counts[BLOCKS][2])
{
  memset(counts, 0, BLOCKS * sizeof *counts);
  for (size_t k = 0; k < L->count; k++) {
    const tl_ledger_entry *e = &L->entries[k];
    int v = tl_ledger_is_verdict(e->phase);
    if (e->kind == TL_LEDGER_SEND || (e->kind == TL_LEDGER_RECV && !has_send(L, e)))
      counts[B_MSG][v]++;
    else if (is_rooted(e->kind) && e->rank != e->peer)
      counts[B_FAN][v]++;
    else if (is_mark(e, 1))
      counts[B_ROOT][v]++;
    else if (is_mark(e, 0))
      counts[B_BAR][v]++;
  }
  for (int s = 0; s < pic->nsteps; s++)
    counts[B_NAME][tl_ledger_is_verdict(pic->steps[s].phase)] +=
        pic->steps[s].kind != TL_LEDGER_SEND;
}

#define ALGO_COLOUR "#1f4e9a"
#define VERDICT_COLOUR "#c8501a"

/* 1 when the phase repeats (a round > 0): its tics name the round. */
static int has_rounds(const picture *pic, const char *phase)
{
  for (int s = 0; s < pic->nsteps; s++)
    if (pic->steps[s].round > 0 && !strcmp(pic->steps[s].phase, phase))
      return 1;
  return 0;
}

/* The axes: a lane per rank (rank 0 on top), a tic per step named by its
 * phase (and round), the verdict's steps on a shaded band. */
static void write_axes(FILE *f, const picture *pic, const char *title)
{
  fputs("unset grid\nset title ", f);
  tl_gp_str(f, title);
  fprintf(f, " noenhanced\nset xrange [-0.6:%d.6]\nset yrange [%d.6:-1.1]\nset ytics 0, 1, %d\n",
          pic->nsteps - 1, pic->ranks - 1, pic->ranks - 1);
  fputs("set xlabel 'steps of the solve, in the order the ledger records them (numbers: words "
        "of 8 bytes)'\nset ylabel 'rank'\nset grid ytics lc rgb '#cccccc'\n"
        "set xtics rotate by 30 right nomirror\nset ytics nomirror\nset key outside bottom "
        "center horizontal height 1\n",
        f);
  fputs("set xtics (", f);
  for (int s = 0; s < pic->nsteps; s++) {
    char tic[64];
    const step *st = &pic->steps[s];
    if (has_rounds(pic, st->phase))
      snprintf(tic, sizeof tic, "%s %d", st->phase, st->round);
    else
      snprintf(tic, sizeof tic, "%s", st->phase);
    fprintf(f, "%s", s ? ", " : "");
    tl_gp_str(f, tic);
    fprintf(f, " %d", s);
  }
  fputs(") noenhanced\n", f);
  for (int s = 0; s < pic->nsteps; s++)
    if (tl_ledger_is_verdict(pic->steps[s].phase))
      fprintf(f,
              "set object rect from %g, graph 0 to %g, graph 1 behind fc rgb '#fbe3d3' "
              "fs solid noborder\n",
              s - 0.5, s + 0.5);
}

/* One plot clause: `what` drawn from block b's rows whose column `col`
 * is v, then `rest` (style and title); ", \" before all but the first. */
static void clause(FILE *f, int *first, const char *dat, int b, int col, int v, const char *what,
                   const char *rest)
{
  fputs(*first ? "plot " : ", \\\n  ", f);
  *first = 0;
  tl_gp_str(f, dat);
  fprintf(f, " index %d using ", b);
  for (const char *p = what; *p; p++) /* `?` stands for the row filter */
    if (*p == '?')
      fprintf(f, "($%d == %d ? ", col, v);
    else
      fputc(*p, f);
  fprintf(f, " %s", rest);
}

/* Block b's arrows (solid for messages, dashed for a root's fans) with
 * their title, then the words on them, in colour `colour`. */
static void arrows(FILE *f, int *first, const char *dat, int b, int v, const char *title,
                   const char *dash, const char *colour)
{
  char rest[256];
  snprintf(rest, sizeof rest, "with vectors head filled size 0.08,20 lw 2%s lc rgb '%s' title ",
           dash, colour);
  clause(f, first, dat, b, 8, v, "1:2:?$3 : 1/0):4", rest);
  tl_gp_str(f, title);
  snprintf(rest, sizeof rest, "with labels tc rgb '%s' notitle", colour);
  clause(f, first, dat, b, 8, v, "6:7:?sprintf('%d', $5) : '')", rest);
}

/* The plot: every non-empty block, the algorithm's and the verdict's
 * apart (the last column of every block says which), each in its colour
 * with a title that says what it is. */
static void write_plot(FILE *f, const char *dat, const int counts[BLOCKS][2])
{
  static const char *const who[2] = {"the algorithm's", "the verdict's (it checks the answer)"};
  static const char *const colour[2] = {ALGO_COLOUR, VERDICT_COLOUR};
  int first = 1;
  char rest[256], title[128];
  for (int v = 0; v < 2; v++) {
    if (counts[B_MSG][v]) {
      snprintf(title, sizeof title, "message, %s", who[v]);
      arrows(f, &first, dat, B_MSG, v, title, "", colour[v]);
    }
    if (counts[B_FAN][v]) {
      snprintf(title, sizeof title, "gather, scatter, bcast: %s", who[v]);
      arrows(f, &first, dat, B_FAN, v, title, " dt 2", colour[v]);
    }
    if (counts[B_ROOT][v]) {
      snprintf(rest, sizeof rest, "with points pt 7 ps 1.6 lc rgb '%s' notitle", colour[v]);
      clause(f, &first, dat, B_ROOT, 3, v, "1:?$2 : 1/0)", rest);
    }
    if (counts[B_BAR][v]) {
      snprintf(title, sizeof title, "allreduce, allgather, alltoall: %s", who[v]);
      snprintf(rest, sizeof rest, "with linespoints pt 7 ps 1.6 lw 6 lc rgb '%s' title ",
               colour[v]);
      clause(f, &first, dat, B_BAR, 3, v, "1:?$2 : 1/0)", rest);
      tl_gp_str(f, title);
    }
    if (counts[B_NAME][v]) {
      snprintf(rest, sizeof rest, "with labels tc rgb '%s' notitle", colour[v]);
      clause(f, &first, dat, B_NAME, 3, v, "1:(-0.75):?stringcolumn(2) : '')", rest);
    }
  }
  fputs("\n", f);
}

static int clamp(int v, int lo, int hi)
{
  return v < lo ? lo : v > hi ? hi : v;
}

/* The script: the picture grows with the steps and the lanes, within
 * what a page can show. */
static void write_gp(FILE *f, const picture *pic, const char *title, const char *dat,
                     const char *png, const int counts[BLOCKS][2])
{
  int width = 220 + 130 * pic->nsteps, height = 260 + 70 * pic->ranks;
  tl_gp_begin(f, png, clamp(width, 860, 4000), clamp(height, 480, 2000));
  write_axes(f, pic, title);
  write_plot(f, dat, counts);
}

int tl_ledger_plot(const tl_ledger *ledger, const char *title, const char *prefix, tl_info *info)
{
  tl_info local;
  if (!info)
    info = &local;
  if (!ledger || !prefix || !prefix[0])
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, ledger ? "prefix" : "ledger", "tl_ledger_plot: %s",
                   ledger ? "no file prefix" : "no ledger (NULL)");
  if (!ledger->count)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "ledger",
                   "tl_ledger_plot: the ledger is empty: no messages to draw (a solve on one "
                   "partition, or one that was refused before it ran?)");
  if (ledger->failed)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "ledger",
                   "tl_ledger_plot: the ledger is incomplete (an entry could not be recorded "
                   "for lack of memory): a picture of it would be short");
  picture pic;
  TL_CALL(collect(ledger, &pic, info));
  char copy[1024], base[1024], dat[1100], gp[1100], png[1100];
  if (snprintf(copy, sizeof copy, "%s", prefix) >= (int)sizeof copy)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "prefix", "tl_ledger_plot: prefix too long");
  snprintf(base, sizeof base, "%s", prefix);
  const char *dir = dirname(copy), *stem = basename(base);
  snprintf(dat, sizeof dat, "%s.dat", stem);
  snprintf(gp, sizeof gp, "%s.gp", stem);
  snprintf(png, sizeof png, "%s.png", stem);
  int counts[BLOCKS][2];
  count_blocks(ledger, &pic, counts);
  FILE *f = tl_out_open(dir, dat, info);
  if (!f)
    return info->status;
  write_dat(f, ledger, &pic);
  TL_CALL(tl_out_close(f, dir, dat, info));
  if (!(f = tl_out_open(dir, gp, info)))
    return info->status;
  write_gp(f, &pic, title ? title : "the ledger", dat, png, counts);
  TL_CALL(tl_out_close(f, dir, gp, info));
  return tl_gnuplot_make(dir, gp, png, info);
}
