/* tests/test_ledger.c -- the communication ledger: its recording rules,
 * and for every partitioned algorithm of the registry, the ledger its
 * simulated solve records equals its ledger model (the formula of its
 * page) exactly, for P = 1..7, even and uneven partitions, batches; and
 * so does every choice of exchange (Tridsolver's strategies), complex
 * batches included. */
#include <complex.h>
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "tridlab/tridlab.h"

Test(ledger, a_batch_adds_words_to_the_same_message)
{
  tl_ledger L;
  tl_ledger_init(&L);
  for (int s = 0; s < 5; s++) { /* five systems, one message each way */
    tl_ledger_message(&L, "edge", 0, 1, 0, 3);
    tl_ledger_collective_all(&L, "verdict", 0, TL_LEDGER_ALLREDUCE, 2, -1, 2, 2);
  }
  tl_ledger_message(&L, "edge", 1, 1, 0, 3); /* another round: another message */
  tl_ledger_totals r1 = tl_ledger_rank_totals(&L, 1, NULL);
  cr_expect_eq(r1.messages, 2);
  cr_expect_eq(r1.words_sent, 5 * 3 + 3 + 5 * 2);
  cr_expect_eq(r1.words_recv, 5 * 2);
  cr_expect_eq(r1.collectives, 1);
  tl_ledger_totals r0 = tl_ledger_rank_totals(&L, 0, "edge");
  cr_expect_eq(r0.messages, 0);
  cr_expect_eq(r0.words_recv, 18);
  cr_expect_eq(tl_ledger_ranks(&L), 2);

  /* the same entries recorded in another order, one end at a time */
  tl_ledger M;
  tl_ledger_init(&M);
  tl_ledger_p2p(&M, "edge", 1, TL_LEDGER_SEND, 1, 0, 3);
  tl_ledger_collective(&M, "verdict", 0, TL_LEDGER_ALLREDUCE, 1, -1, 10, 10);
  tl_ledger_p2p(&M, "edge", 0, TL_LEDGER_RECV, 0, 1, 15);
  tl_ledger_p2p(&M, "edge", 0, TL_LEDGER_SEND, 1, 0, 15);
  tl_ledger_collective(&M, "verdict", 0, TL_LEDGER_ALLREDUCE, 0, -1, 10, 10);
  char why[512];
  cr_expect(!tl_ledger_equal(&L, &M, why, sizeof why), "equal without round 1's receive");
  cr_expect(why[0] != '\0');
  tl_ledger_p2p(&M, "edge", 1, TL_LEDGER_RECV, 0, 1, 3);
  cr_expect(tl_ledger_equal(&L, &M, why, sizeof why), "%s", why);
  tl_ledger_p2p(&M, "edge", 1, TL_LEDGER_RECV, 0, 1, 1);
  cr_expect(!tl_ledger_equal(&L, &M, why, sizeof why));
  cr_expect(strstr(why, "received 4") != NULL, "%s", why);
  tl_ledger_free(&L);
  tl_ledger_free(&M);
}

/* A strictly dominant batch: every partition algorithm solves it. */
static void make_batch(size_t n, size_t nsys, double *a, double *b, double *c, double *d)
{
  tl_rng rng;
  tl_rng_seed(&rng, 20261124);
  for (size_t k = 0; k < n * nsys; k++) {
    a[k] = tl_rng_uniform(&rng, -1, 1);
    c[k] = tl_rng_uniform(&rng, -1, 1);
    b[k] = 8 + tl_rng_uniform(&rng, 0, 1);
    d[k] = tl_rng_uniform(&rng, -1, 1);
  }
  for (size_t s = 0; s < nsys; s++)
    a[s * n] = c[s * n + n - 1] = 0.0;
}

/* Solve sys with algo on P partitions (sizes: NULL even) and the
 * parameters params ("key=value,..."; NULL: the defaults), and expect the
 * ledger it records to equal its model. */
static void expect_model(const tl_algorithm *algo, const tl_batch *sys, void *x, int P,
                         const size_t *sizes, const char *params)
{
  tl_ledger measured, model;
  tl_ledger_init(&measured);
  tl_ledger_init(&model);
  tl_options opt;
  th_options_parts(&opt, algo, P, sizes, params);
  opt.ledger = &measured;
  tl_info info;
  int st = tl_solve(algo, sys, x, &opt, &info);
  cr_assert_eq(st, TL_OK, "%s %s P=%d n=%zu: %s", algo->name, params ? params : "", P, sys->n,
               info.msg);
  cr_assert_eq(algo->ledger_model(algo, sys, &opt, &info, &model), TL_OK);
  char why[512];
  cr_expect(tl_ledger_equal(&measured, &model, why, sizeof why), "%s %s %s P=%d nsys=%zu%s: %s",
            algo->name, params ? params : "", tl_dtype_name(sys->dtype), P, sys->nsys,
            sizes ? " (uneven)" : "", why);
  tl_ledger_free(&measured);
  tl_ledger_free(&model);
}

static void check_algorithm(const tl_algorithm *algo, size_t n, size_t nsys, int P,
                            const size_t *sizes)
{
  double *a = malloc(4 * n * nsys * sizeof(double)), *x = malloc(n * nsys * sizeof(double));
  double *b = a + n * nsys, *c = b + n * nsys, *d = c + n * nsys;
  make_batch(n, nsys, a, b, c, d);
  tl_batch sys = {.dtype = TL_F64, .n = n, .nsys = nsys, .a = a, .b = b, .c = c, .d = d};
  expect_model(algo, &sys, x, P, sizes, NULL);
  free(a);
  free(x);
}

Test(ledger, every_simulated_solve_records_its_model)
{
  static const size_t uneven[7] = {39, 41, 37, 43, 40, 38, 42}; /* 280 rows */
  size_t count;
  const tl_algorithm *const *reg = tl_registry(&count);
  int checked = 0;
  for (size_t k = 0; k < count; k++) {
    const tl_algorithm *algo = reg[k];
    if (!algo->partitioned || !algo->ledger_model)
      continue;
    for (int P = 1; P <= 7; P++)
      for (size_t nsys = 1; nsys <= 3; nsys += 2)
        check_algorithm(algo, 280, nsys, P, NULL);
    check_algorithm(algo, 280, 2, 7, uneven);
    checked++;
  }
  cr_expect_geq(checked, 2);
}

/* distd2, ptdma and its by name, with the parameters that change what
 * they send (P-TDMA's flavour, ITS's J), plain and periodic: the
 * simulated ledger equals the model for P = 1..7, even and uneven. */
static void check_with_param(const char *name, const char *param, int periodic, int P,
                             const size_t *sizes)
{
  const tl_algorithm *algo = tl_find(name);
  cr_assert(algo && algo->ledger_model, "%s has a ledger model", name);
  size_t n = 280, nsys = 3;
  double *a = malloc(5 * n * nsys * sizeof *a), *b = a + n * nsys, *c = b + n * nsys,
         *d = c + n * nsys, *x = d + n * nsys;
  make_batch(n, nsys, a, b, c, d);
  for (size_t s = 0; periodic && s < nsys; s++)
    a[s * n] = c[s * n + n - 1] = 0.5;
  tl_batch sys = {
      .dtype = TL_F64, .n = n, .nsys = nsys, .periodic = periodic, .a = a, .b = b, .c = c, .d = d};
  tl_ledger measured, model;
  tl_ledger_init(&measured), tl_ledger_init(&model);
  tl_options opt;
  tl_options_init(&opt);
  tl_info info;
  cr_assert_eq(tl_options_set_param_kv(&opt, algo, param, &info), TL_OK, "%s", info.msg);
  opt.parts = P, opt.part_sizes = sizes, opt.ledger = &measured;
  cr_assert_eq(tl_solve(algo, &sys, x, &opt, &info), TL_OK, "%s %s P=%d: %s", name, param, P,
               info.msg);
  cr_assert_eq(algo->ledger_model(algo, &sys, &opt, &info, &model), TL_OK);
  char why[512];
  cr_expect(tl_ledger_equal(&measured, &model, why, sizeof why), "%s %s P=%d%s%s: %s", name, param,
            P, periodic ? " periodic" : "", sizes ? " uneven" : "", why);
  tl_ledger_free(&measured), tl_ledger_free(&model);
  free(a);
}

/* PDD's messages in mini-batches (tl_minibatch_systems): 3 systems one or
 * two at a time, 3 and 2 rounds. */
Test(ledger, pdd_in_minibatches)
{
  static const size_t uneven[7] = {39, 41, 37, 43, 40, 38, 42}; /* 280 rows */
  static const char *const params[] = {"minibatch=1", "minibatch=2", "minibatch=3"};
  for (size_t k = 0; k < sizeof params / sizeof *params; k++) {
    for (int P = 1; P <= 7; P++)
      check_with_param("pdd", params[k], 0, P, NULL);
    check_with_param("pdd", params[k], 0, 7, uneven);
  }
}

Test(ledger, distd2_ptdma_its_with_their_parameters)
{
  static const size_t uneven[7] = {39, 41, 37, 43, 40, 38, 42}; /* 280 rows */
  static const char *const cases[][2] = {{"distd2", "tol=2.2e-16"},
                                         {"distd2", "minibatch=1"},
                                         {"distd2", "minibatch=2"},
                                         {"ptdma", "flavour=split"},
                                         {"ptdma", "flavour=combined"},
                                         {"its", "J=0"},
                                         {"its", "J=30"}};
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
    for (int periodic = 0; periodic < 2; periodic++) {
      for (int P = 1; P <= 7; P++)
        check_with_param(cases[k][0], cases[k][1], periodic, P, NULL);
      check_with_param(cases[k][0], cases[k][1], periodic, 7, uneven);
    }
}

/* Algorithms with a choice of exchange: every choice records its model
 * (the test above runs the defaults). Complex batches count 2 words a
 * scalar. */
static void check_choice(const char *name, const char *param, tl_dtype dt, size_t n, size_t nsys,
                         int P, const size_t *sizes)
{
  const tl_algorithm *algo = tl_find(name);
  cr_assert(algo != NULL, "%s", name);
  size_t es = tl_dtype_size(dt);
  char *mem = calloc(5 * n * nsys, es);
  double *re = malloc(4 * n * nsys * sizeof(double));
  make_batch(n, nsys, re, re + n * nsys, re + 2 * n * nsys, re + 3 * n * nsys);
  for (size_t k = 0; k < 4 * n * nsys; k++) {
    if (dt == TL_F64)
      ((double *)mem)[k] = re[k];
    else
      ((double complex *)mem)[k] = re[k] + 0.25 * I * re[k];
  }
  size_t cnt = n * nsys * es;
  tl_batch sys = {.dtype = dt,
                  .n = n,
                  .nsys = nsys,
                  .a = mem,
                  .b = mem + cnt,
                  .c = mem + 2 * cnt,
                  .d = mem + 3 * cnt};
  expect_model(algo, &sys, mem + 4 * cnt, P, sizes, param);
  free(mem);
  free(re);
}

Test(ledger, every_choice_of_exchange_records_its_model)
{
  static const size_t uneven[7] = {39, 41, 37, 43, 40, 38, 42}; /* 280 rows */
  static const char *const tridsolver[] = {
      "reduced=allgather", "reduced=gather_scatter",        "reduced=pcr",
      "reduced=jacobi",    "reduced=allgather,minibatch=2", "reduced=pcr,minibatch=2"};
  for (size_t k = 0; k < sizeof tridsolver / sizeof tridsolver[0]; k++) {
    for (int P = 1; P <= 7; P++)
      check_choice("tridsolver", tridsolver[k], TL_F64, 280, 3, P, NULL);
    check_choice("tridsolver", tridsolver[k], TL_C128, 280, 2, 5, NULL);
    check_choice("tridsolver", tridsolver[k], TL_F64, 280, 1, 7, uneven);
  }
}
