/* tridlab/ledger.h -- the communication ledger of a distributed solve.
 *
 * A partition algorithm moves data between its partitions ("ranks") in a
 * few phases. The ledger writes down, per rank and per phase, what each
 * rank sends and receives: point-to-point messages and collective calls,
 * with their size in words of 8 bytes (a double is one word, a double
 * complex two). The simulated references in reference/ record
 * it from their explicit exchange buffers; the MPI versions record it in
 * their exchange layer; `tridlab trace` prints it. The same problem gives
 * the same ledger in both, and each algorithm's page states it as a
 * formula (docs/ledger.md).
 *
 * ONE SOLVE, ONE MESSAGE PER KEY. An entry is identified by (phase,
 * round, kind, rank, peer). Recording the same key again in the same
 * ledger adds words to that entry but does not count another message or
 * call: the systems of a batch travel together, so a reference that
 * solves a batch system after system records exactly the messages an MPI
 * rank sends once for the whole batch. Phases that repeat (the levels of
 * PCR, the sweeps of Jacobi) use `round` = 0, 1, 2, ... so each
 * repetition is its own message; so do the mini-batches of a rank program
 * that sends a batch's messages a few systems at a time (Tridsolver's
 * and PDD's `minibatch`, tl_for_each_system_in_minibatches).
 *
 * Conventions for collectives, as seen by one rank:
 *   allgather   sent = its contribution, recv = the others' contributions
 *   gather      at the root: sent = 0 (its own part stays), recv = the
 *               others'; elsewhere sent = its part, recv = 0
 *   scatter     the mirror image of gather
 *   bcast       root: sent = the buffer, recv = 0; others: recv = it
 *   allreduce   sent = recv = the vector length (what it contributes and
 *               gets back; MPI's algorithm moves more, the model of the
 *               cost model says how much)
 *   alltoall    sent = words to the others, recv = words from the others
 * Words a rank keeps for itself are never counted.
 *
 * Library functions do not print unless given a FILE. A ledger that ran
 * out of memory while recording says so (failed = 1): it is incomplete,
 * never silently short.
 */
#ifndef TRIDLAB_LEDGER_H
#define TRIDLAB_LEDGER_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tl_ledger_kind {
  TL_LEDGER_SEND = 0,  /* a point-to-point message to `peer`             */
  TL_LEDGER_RECV,      /* a point-to-point message from `peer`           */
  TL_LEDGER_ALLGATHER, /* collectives: one call each                     */
  TL_LEDGER_GATHER,    /* peer = the root                                */
  TL_LEDGER_SCATTER,   /* peer = the root                                */
  TL_LEDGER_BCAST,     /* peer = the root                                */
  TL_LEDGER_ALLREDUCE,
  TL_LEDGER_ALLTOALL,
  TL_LEDGER_KINDS
} tl_ledger_kind;

#define TL_LEDGER_PHASE 32

typedef struct tl_ledger_entry {
  char phase[TL_LEDGER_PHASE]; /* the algorithm's name for the step     */
  int round;                   /* repetition of the phase, from 0       */
  tl_ledger_kind kind;
  int rank;                    /* the rank this entry belongs to        */
  int peer;                    /* the other rank, or the root; -1: none */
  long words_sent;             /* 8-byte words this rank sends          */
  long words_recv;             /* 8-byte words it receives              */
} tl_ledger_entry;

typedef struct tl_ledger {
  tl_ledger_entry *entries;
  size_t count, cap;
  int failed; /* 1: an entry could not be recorded (no memory)        */
} tl_ledger;

/* What one rank did in one solve: messages sent (point-to-point), words
 * sent and received (messages and collectives together), and collective
 * calls. The formulas of docs/ledger.md are in these units. */
typedef struct tl_ledger_totals {
  long messages;
  long words_sent;
  long words_recv;
  long collectives;
} tl_ledger_totals;

void tl_ledger_init(tl_ledger *ledger);
void tl_ledger_free(tl_ledger *ledger);
/* Forget every entry (the memory is kept for the next solve). */
void tl_ledger_reset(tl_ledger *ledger);

/* A message of `words` 8-byte words from rank src to rank dst: a SEND entry of
 * src and a RECV entry of dst (both ends, as a simulated exchange knows
 * them). ledger may be NULL (nothing recorded). */
void tl_ledger_message(tl_ledger *ledger, const char *phase, int round, int src, int dst,
                       size_t words);
/* One end of a message, as one MPI rank knows it: kind SEND or RECV. */
void tl_ledger_p2p(tl_ledger *ledger, const char *phase, int round, tl_ledger_kind kind,
                   int rank, int peer, size_t words);
/* One rank's part in a collective call (conventions above). */
void tl_ledger_collective(tl_ledger *ledger, const char *phase, int round, tl_ledger_kind kind,
                          int rank, int root, size_t words_sent, size_t words_recv);
/* The same collective for every rank 0..parts-1 of a simulated exchange,
 * with the same words for each. */
void tl_ledger_collective_all(tl_ledger *ledger, const char *phase, int round,
                              tl_ledger_kind kind, int parts, int root, size_t words_sent,
                              size_t words_recv);

/* Rank p's part in a reduced system solved on rank 0 (hybrid_pcr, spike):
 * back = 0, a gather of `words` from every rank to rank 0; back = 1, a
 * scatter of `words` from rank 0 to every rank. Phase named `phase`. */
void tl_ledger_root_trip(tl_ledger *ledger, const char *phase, int P, int p, size_t words,
                         int back);

/* The whole ledger model of a solver whose reduced system is solved on
 * rank 0 and that ends with the residual verdict (hybrid_pcr, spike):
 * per system, `up` scalars from every rank gathered in phase up_phase,
 * `down` scattered back in down_phase, then tl_ledger_residual_verdict;
 * nsys systems of w words per scalar, plain. Resets out first. */
void tl_ledger_root_solve_model(tl_ledger *out, int P, size_t nsys, size_t w,
                                const char *up_phase, size_t up, const char *down_phase,
                                size_t down);

/* The verdict of an exact partition solver that ends with "strictly
 * dominant by rows, and LAPACK's residual ratio < 30" (tridsolver,
 * hybrid_pcr), across P ranks, for nsys systems of w words per scalar:
 * each rank sends its neighbours x and the coupling entry at its slice's
 * end ("halo", 2 w per system each way; around the ring when periodic),
 * then three allreduces ("verdict"): 4 (value, row) pairs per system
 * (status, weakest row, largest |x| and |A| entry: 8 words), the sums
 * ||x||_1 and ||r||_1 (2 words), the largest column sum (1 word). */
void tl_ledger_residual_verdict(tl_ledger *ledger, int P, int periodic, size_t nsys, size_t w);
/* Its "halo" alone: `words` from each rank to each neighbour and back
 * (around the ring when periodic; nothing on one rank). */
void tl_ledger_halo(tl_ledger *ledger, int P, int periodic, size_t words);

/* Append every entry of src to dst (an MPI rank's entries gathered on
 * one rank, say); entries with the same key merge as above. */
void tl_ledger_merge(tl_ledger *dst, const tl_ledger *src);
/* The same with round0 added to the round of every phase but the
 * verification's (tl_ledger_is_verdict, which a batch runs once): one
 * system's messages into the rounds of its mini-batch
 * (tl_for_each_system_in_minibatches, tridlab/backend.h). */
void tl_ledger_merge_in_round(tl_ledger *dst, const tl_ledger *src, int round0);

/* Totals of one rank (rank < 0: the sum over all ranks). phase NULL: all
 * phases; else only that phase. */
tl_ledger_totals tl_ledger_rank_totals(const tl_ledger *ledger, int rank, const char *phase);
/* The verification's own traffic, apart from the algorithm's: phases
 * "verdict" (the reductions of a distributed verdict) and "halo" (the
 * neighbours' x its residual needs). They check the answer; an
 * algorithm run without the checks would not send them. */
int tl_ledger_is_verdict(const char *phase);
/* A rank's totals (rank < 0: all ranks), the algorithm's and the
 * verdict's apart. */
void tl_ledger_split_totals(const tl_ledger *ledger, int rank, tl_ledger_totals *algorithm,
                            tl_ledger_totals *verdict);
/* One line: "rank R: algorithm ... ; verdict ..." (the verdict part only
 * when it sent anything), after `indent`. */
void tl_ledger_print_rank(FILE *f, const tl_ledger *ledger, int rank, const char *indent);
/* The largest rank that appears, plus one (0 for an empty ledger). */
int tl_ledger_ranks(const tl_ledger *ledger);

/* Sort the entries (by rank, phase order of first appearance is lost:
 * rank, phase, round, kind, peer) so two ledgers can be compared. */
void tl_ledger_sort(tl_ledger *ledger);
/* 1 when both hold the same entries (order does not matter); else 0 and
 * `why` (may be NULL) says which entry differs. */
int tl_ledger_equal(const tl_ledger *x, const tl_ledger *y, char *why, size_t why_size);

/* The kind as a word ("send", "allgather", ...). */
const char *tl_ledger_kind_name(tl_ledger_kind kind);

/* Print the ledger on f: one line per entry in recording order, then the
 * totals per rank. `indent` is put before every line. */
void tl_ledger_print(FILE *f, const tl_ledger *ledger, const char *indent);

#ifdef __cplusplus
}
#endif
#endif
