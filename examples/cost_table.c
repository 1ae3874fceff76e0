/* examples/cost_table.c -- what the partition algorithms send, against
 * the number of partitions P, from their ledger models
 * (tl_algorithm.ledger_model: the formulas the tests hold every simulated
 * and MPI ledger to; docs/ledger.md). For one system of 64 rows per
 * partition: the busiest partition's messages, words sent and received,
 * and collective calls -- the algorithm's own, then the verdict's (the
 * checks of the answer) apart (tutorials/09-mpi.md, "What it costs").
 *
 *   build/examples/cost_table
 */
#include <stdio.h>

#include "tridlab/tridlab.h"

/* The busiest partition of a ledger: the largest of each count over the
 * partitions (of the algorithm's part, or the verdict's). */
static tl_ledger_totals busiest(const tl_ledger *L, int P, int verdict)
{
  tl_ledger_totals most = {0, 0, 0, 0};
  for (int r = 0; r < P; r++) {
    tl_ledger_totals t, v;
    tl_ledger_split_totals(L, r, &t, &v);
    const tl_ledger_totals *x = verdict ? &v : &t;
    most.messages = x->messages > most.messages ? x->messages : most.messages;
    most.words_sent = x->words_sent > most.words_sent ? x->words_sent : most.words_sent;
    most.words_recv = x->words_recv > most.words_recv ? x->words_recv : most.words_recv;
    most.collectives = x->collectives > most.collectives ? x->collectives : most.collectives;
  }
  return most;
}

int main(void)
{
  static const char *const algos[] = {"pdd", "rpdd", "distd2", "ptdma", "tridsolver",
                                      "hybrid_pcr", "spike"};
  static const int parts[] = {2, 4, 16, 64, 256};
  printf("busiest partition, one system of 64 rows per partition (words of 8 bytes)\n");
  printf("%-11s %4s | %8s %8s %8s %6s | %8s %8s\n", "", "", "algorithm", "", "", "", "verdict",
         "");
  printf("%-11s %4s | %8s %8s %8s %6s | %8s %8s\n", "algorithm", "P", "messages", "sent",
         "received", "coll.", "words", "coll.");
  for (size_t k = 0; k < sizeof algos / sizeof algos[0]; k++) {
    const tl_algorithm *al = tl_find(algos[k]);
    if (!al || !al->ledger_model)
      continue;
    for (size_t q = 0; q < sizeof parts / sizeof parts[0]; q++) {
      int P = parts[q];
      tl_batch shape = {.dtype = TL_F64, .n = 64 * (size_t)P, .nsys = 1};
      tl_options opt;
      tl_options_init(&opt);
      opt.parts = P;
      tl_ledger L;
      tl_ledger_init(&L);
      if (al->ledger_model(al, &shape, &opt, NULL, &L) != TL_OK) {
        printf("%-11s %4d | (the model needs the matrix)\n", al->name, P);
        tl_ledger_free(&L);
        continue;
      }
      tl_ledger_totals t = busiest(&L, P, 0), v = busiest(&L, P, 1);
      printf("%-11s %4d | %8ld %8ld %8ld %6ld | %8ld %8ld\n", al->name, P, t.messages,
             t.words_sent, t.words_recv, t.collectives, v.words_sent, v.collectives);
      tl_ledger_free(&L);
    }
  }
  return 0;
}
