/* core/ledger.c -- the communication ledger (tridlab/ledger.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tridlab/ledger.h"

void tl_ledger_init(tl_ledger *ledger)
{
  memset(ledger, 0, sizeof *ledger);
}

void tl_ledger_free(tl_ledger *ledger)
{
  if (!ledger)
    return;
  free(ledger->entries);
  tl_ledger_init(ledger);
}

void tl_ledger_reset(tl_ledger *ledger)
{
  if (!ledger)
    return;
  ledger->count = 0;
  ledger->failed = 0;
}

static int same_key(const tl_ledger_entry *e, const char *phase, int round, tl_ledger_kind kind,
                    int rank, int peer)
{
  return e->round == round && e->kind == kind && e->rank == rank && e->peer == peer &&
         strncmp(e->phase, phase, TL_LEDGER_PHASE - 1) == 0;
}

/* Add words to the entry with this key, or append a new one. Searches
 * from the end: a batch records the same few keys over and over. */
static void record(tl_ledger *L, const char *phase, int round, tl_ledger_kind kind, int rank,
                   int peer, long sent, long recv)
{
  if (!L)
    return;
  for (size_t k = L->count; k-- > 0;) {
    tl_ledger_entry *e = &L->entries[k];
    if (same_key(e, phase, round, kind, rank, peer)) {
      e->words_sent += sent;
      e->words_recv += recv;
      return;
    }
  }
  if (L->count == L->cap) {
    size_t cap = L->cap ? 2 * L->cap : 64;
    tl_ledger_entry *grown = realloc(L->entries, cap * sizeof *grown);
    if (!grown) {
      L->failed = 1;
      return;
    }
    L->entries = grown;
    L->cap = cap;
  }
  tl_ledger_entry *e = &L->entries[L->count++];
  memset(e, 0, sizeof *e);
  snprintf(e->phase, sizeof e->phase, "%s", phase ? phase : "");
  e->round = round;
  e->kind = kind;
  e->rank = rank;
  e->peer = peer;
  e->words_sent = sent;
  e->words_recv = recv;
}

void tl_ledger_message(tl_ledger *ledger, const char *phase, int round, int src, int dst,
                       size_t words)
{
  record(ledger, phase, round, TL_LEDGER_SEND, src, dst, (long)words, 0);
  record(ledger, phase, round, TL_LEDGER_RECV, dst, src, 0, (long)words);
}

void tl_ledger_p2p(tl_ledger *ledger, const char *phase, int round, tl_ledger_kind kind,
                   int rank, int peer, size_t words)
{
  if (kind == TL_LEDGER_SEND)
    record(ledger, phase, round, kind, rank, peer, (long)words, 0);
  else
    record(ledger, phase, round, TL_LEDGER_RECV, rank, peer, 0, (long)words);
}

void tl_ledger_collective(tl_ledger *ledger, const char *phase, int round, tl_ledger_kind kind,
                          int rank, int root, size_t words_sent, size_t words_recv)
{
  record(ledger, phase, round, kind, rank, root, (long)words_sent, (long)words_recv);
}

void tl_ledger_collective_all(tl_ledger *ledger, const char *phase, int round,
                              tl_ledger_kind kind, int parts, int root, size_t words_sent,
                              size_t words_recv)
{
  for (int p = 0; p < parts; p++)
    record(ledger, phase, round, kind, p, root, (long)words_sent, (long)words_recv);
}

void tl_ledger_root_trip(tl_ledger *ledger, const char *phase, int P, int p, size_t words,
                         int back)
{
  size_t others = (size_t)P - 1;
  if (!back) /* rank p's words to rank 0 */
    tl_ledger_collective(ledger, phase, 0, TL_LEDGER_GATHER, p, 0, p ? words : 0,
                         p ? 0 : words * others);
  else /* and rank 0's answer back to it */
    tl_ledger_collective(ledger, phase, 0, TL_LEDGER_SCATTER, p, 0, p ? 0 : words * others,
                         p ? words : 0);
}

void tl_ledger_root_solve_model(tl_ledger *out, int P, size_t nsys, size_t w,
                                const char *up_phase, size_t up, const char *down_phase,
                                size_t down)
{
  tl_ledger_reset(out);
  for (int p = 0; p < P; p++) {
    tl_ledger_root_trip(out, up_phase, P, p, up * w * nsys, 0);
    tl_ledger_root_trip(out, down_phase, P, p, down * w * nsys, 1);
  }
  tl_ledger_residual_verdict(out, P, 0, nsys, w);
}

void tl_ledger_merge(tl_ledger *dst, const tl_ledger *src)
{
  tl_ledger_merge_in_round(dst, src, 0);
}

void tl_ledger_merge_in_round(tl_ledger *dst, const tl_ledger *src, int round0)
{
  if (src->failed)
    dst->failed = 1;
  for (size_t k = 0; k < src->count; k++) {
    const tl_ledger_entry *e = &src->entries[k];
    int round = e->round + (tl_ledger_is_verdict(e->phase) ? 0 : round0);
    record(dst, e->phase, round, e->kind, e->rank, e->peer, e->words_sent, e->words_recv);
  }
}

tl_ledger_totals tl_ledger_rank_totals(const tl_ledger *ledger, int rank, const char *phase)
{
  tl_ledger_totals t = {0, 0, 0, 0};
  for (size_t k = 0; ledger && k < ledger->count; k++) {
    const tl_ledger_entry *e = &ledger->entries[k];
    if (rank >= 0 && e->rank != rank)
      continue;
    if (phase && strcmp(e->phase, phase) != 0)
      continue;
    if (e->kind == TL_LEDGER_SEND)
      t.messages++;
    else if (e->kind != TL_LEDGER_RECV)
      t.collectives++;
    t.words_sent += e->words_sent;
    t.words_recv += e->words_recv;
  }
  return t;
}

int tl_ledger_ranks(const tl_ledger *ledger)
{
  int ranks = 0;
  for (size_t k = 0; ledger && k < ledger->count; k++)
    if (ledger->entries[k].rank + 1 > ranks)
      ranks = ledger->entries[k].rank + 1;
  return ranks;
}

static int compare_entries(const void *p, const void *q)
{
  const tl_ledger_entry *x = p, *y = q;
  if (x->rank != y->rank)
    return x->rank < y->rank ? -1 : 1;
  int c = strcmp(x->phase, y->phase);
  if (c)
    return c;
  if (x->round != y->round)
    return x->round < y->round ? -1 : 1;
  if (x->kind != y->kind)
    return x->kind < y->kind ? -1 : 1;
  if (x->peer != y->peer)
    return x->peer < y->peer ? -1 : 1;
  return 0;
}

void tl_ledger_sort(tl_ledger *ledger)
{
  if (ledger && ledger->count > 1)
    qsort(ledger->entries, ledger->count, sizeof *ledger->entries, compare_entries);
}

static void describe(char *buf, size_t size, const char *which, const tl_ledger_entry *e)
{
  snprintf(buf, size, "%s: rank %d, phase %s round %d, %s peer %d: sent %ld, received %ld", which,
           e->rank, e->phase, e->round, tl_ledger_kind_name(e->kind), e->peer, e->words_sent,
           e->words_recv);
}

/* Sorted copies of both, compared entry by entry. */
int tl_ledger_equal(const tl_ledger *x, const tl_ledger *y, char *why, size_t why_size)
{
  char scratch[8];
  if (!why) {
    why = scratch;
    why_size = sizeof scratch;
  }
  why[0] = '\0';
  if (x->failed || y->failed) {
    snprintf(why, why_size, "a ledger is incomplete (no memory while recording)");
    return 0;
  }
  tl_ledger sx = {0}, sy = {0};
  tl_ledger_merge(&sx, x);
  tl_ledger_merge(&sy, y);
  int equal = !sx.failed && !sy.failed;
  if (!equal)
    snprintf(why, why_size, "no memory to compare the ledgers");
  tl_ledger_sort(&sx);
  tl_ledger_sort(&sy);
  size_t n = sx.count < sy.count ? sx.count : sy.count;
  for (size_t k = 0; equal && k < n; k++) {
    const tl_ledger_entry *a = &sx.entries[k], *b = &sy.entries[k];
    if (compare_entries(a, b) || a->words_sent != b->words_sent || a->words_recv != b->words_recv) {
      char da[160], db[160];
      describe(da, sizeof da, "first", a);
      describe(db, sizeof db, "second", b);
      snprintf(why, why_size, "%s; %s", da, db);
      equal = 0;
    }
  }
  if (equal && sx.count != sy.count) {
    const tl_ledger_entry *extra = sx.count > sy.count ? &sx.entries[n] : &sy.entries[n];
    describe(why, why_size, sx.count > sy.count ? "only in the first" : "only in the second",
             extra);
    equal = 0;
  }
  tl_ledger_free(&sx);
  tl_ledger_free(&sy);
  return equal;
}

const char *tl_ledger_kind_name(tl_ledger_kind kind)
{
  static const char *const names[TL_LEDGER_KINDS] = {
      "send", "recv", "allgather", "gather", "scatter", "bcast", "allreduce", "alltoall"};
  return (unsigned)kind < TL_LEDGER_KINDS ? names[kind] : "?";
}

int tl_ledger_is_verdict(const char *phase)
{
  return phase && (!strcmp(phase, "verdict") || !strcmp(phase, "halo"));
}

void tl_ledger_split_totals(const tl_ledger *ledger, int rank, tl_ledger_totals *algorithm,
                            tl_ledger_totals *verdict)
{
  tl_ledger_totals all = tl_ledger_rank_totals(ledger, rank, NULL);
  tl_ledger_totals v = tl_ledger_rank_totals(ledger, rank, "verdict");
  tl_ledger_totals h = tl_ledger_rank_totals(ledger, rank, "halo");
  verdict->messages = v.messages + h.messages;
  verdict->words_sent = v.words_sent + h.words_sent;
  verdict->words_recv = v.words_recv + h.words_recv;
  verdict->collectives = v.collectives + h.collectives;
  algorithm->messages = all.messages - verdict->messages;
  algorithm->words_sent = all.words_sent - verdict->words_sent;
  algorithm->words_recv = all.words_recv - verdict->words_recv;
  algorithm->collectives = all.collectives - verdict->collectives;
}

void tl_ledger_print_rank(FILE *f, const tl_ledger *ledger, int rank, const char *indent)
{
  tl_ledger_totals t, v;
  tl_ledger_split_totals(ledger, rank, &t, &v);
  fprintf(f, "%srank %d: algorithm %ld messages, %ld words sent, %ld received, %ld collectives",
          indent ? indent : "", rank, t.messages, t.words_sent, t.words_recv, t.collectives);
  if (v.messages || v.collectives)
    fprintf(f, "; verdict %ld messages, %ld words sent, %ld received, %ld collectives",
            v.messages, v.words_sent, v.words_recv, v.collectives);
  fputc('\n', f);
}

void tl_ledger_print(FILE *f, const tl_ledger *ledger, const char *indent)
{
  if (!indent)
    indent = "";
  fprintf(f, "%s%-5s %-20s %5s %-9s %5s %10s %10s\n", indent, "rank", "phase", "round", "kind",
          "peer", "sent", "received");
  for (size_t k = 0; k < ledger->count; k++) {
    const tl_ledger_entry *e = &ledger->entries[k];
    char peer[16];
    if (e->peer < 0)
      snprintf(peer, sizeof peer, "-");
    else
      snprintf(peer, sizeof peer, "%d", e->peer);
    fprintf(f, "%s%-5d %-20s %5d %-9s %5s %10ld %10ld\n", indent, e->rank, e->phase, e->round,
            tl_ledger_kind_name(e->kind), peer, e->words_sent, e->words_recv);
  }
  int ranks = tl_ledger_ranks(ledger);
  fprintf(f, "%stotals per rank: messages sent, words sent, words received, collective calls;\n"
             "%s  the algorithm's apart from the verdict's (phases verdict and halo: checking the "
             "answer)\n",
          indent, indent);
  char sub[64];
  snprintf(sub, sizeof sub, "%s  ", indent);
  for (int r = 0; r < ranks; r++)
    tl_ledger_print_rank(f, ledger, r, sub);
  if (ledger->failed)
    fprintf(f, "%s(incomplete: an entry could not be recorded for lack of memory)\n", indent);
}

void tl_ledger_halo(tl_ledger *ledger, int P, int periodic, size_t words)
{
  for (int p = 0; p < P && P > 1; p++) {
    if (p + 1 == P && !periodic)
      break;
    int next = (p + 1) % P;
    tl_ledger_message(ledger, "halo", 0, p, next, words);
    tl_ledger_message(ledger, "halo", 0, next, p, words);
  }
}

void tl_ledger_residual_verdict(tl_ledger *ledger, int P, int periodic, size_t nsys, size_t w)
{
  tl_ledger_halo(ledger, P, periodic, 2 * w * nsys);
  tl_ledger_collective_all(ledger, "verdict", 0, TL_LEDGER_ALLREDUCE, P, -1, 8 * nsys, 8 * nsys);
  tl_ledger_collective_all(ledger, "verdict", 1, TL_LEDGER_ALLREDUCE, P, -1, 2 * nsys, 2 * nsys);
  tl_ledger_collective_all(ledger, "verdict", 2, TL_LEDGER_ALLREDUCE, P, -1, nsys, nsys);
}
