/* tests/test_ledger_plot.c -- tl_ledger_plot (convergence/ledger_plot.c):
 * a known ledger gives the .dat rows and the .gp lines it should (an
 * arrow per message with its words, a fan per gather, a bar per
 * allreduce, the verdict apart), and the png when gnuplot is installed;
 * a ledger it cannot draw is refused with a message that says why, and
 * nothing is written. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_helpers.h"
#include "tridlab/tridlab.h"

/* The whole of dir/name, or NULL when it does not exist. */
static char *read_all(const char *dir, const char *name)
{
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "r");
  if (!f)
    return NULL;
  char *text = calloc(1 << 16, 1);
  cr_assert_not_null(text);
  size_t got = fread(text, 1, (1 << 16) - 1, f);
  text[got] = '\0';
  fclose(f);
  return text;
}

/* PDD's pattern on 3 ranks, hybrid PCR's gather, and the verdict. */
static void known_ledger(tl_ledger *L)
{
  tl_ledger_init(L);
  tl_ledger_message(L, "first-row", 0, 1, 0, 3);
  tl_ledger_message(L, "first-row", 0, 2, 1, 3);
  tl_ledger_p2p(L, "interface", 0, TL_LEDGER_RECV, 1, 0, 2); /* its SEND not recorded */
  for (int p = 0; p < 3; p++)
    tl_ledger_root_trip(L, "reduced", 3, p, 6, 0);
  tl_ledger_collective_all(L, "verdict", 0, TL_LEDGER_ALLREDUCE, 3, -1, 8, 8);
}

Test(ledger_plot, a_known_ledger_gives_its_arrows_fans_and_bars)
{
  char dir[256], prefix[300];
  cli_tmpdir(dir, sizeof dir, "ledger-plot");
  snprintf(prefix, sizeof prefix, "%s/L", dir);
  tl_ledger L;
  known_ledger(&L);
  tl_info info;
  int st = tl_ledger_plot(&L, "a known ledger", prefix, &info);
  cr_expect_eq(st, tl_gnuplot_found() ? TL_OK : TL_ERR_UNSUPPORTED, "%s", info.msg);
  char *dat = read_all(dir, "L.dat"), *gp = read_all(dir, "L.gp");
  cr_assert(dat && gp && dat[0] && gp[0]);
  /* step 0: rank 1 -> 0 and 2 -> 1, 3 words each, the algorithm's (0) */
  cr_expect(strstr(dat, "\n-0.28 1 0.56 -1 3 ") && strstr(dat, "\n-0.28 2 0.56 -1 3 "), "%s", dat);
  /* step 1: the message drawn from its RECV end alone, 0 -> 1 */
  cr_expect(strstr(dat, "\n0.72 0 0.56 1 2 "), "%s", dat);
  /* step 2: the gather's fan, ranks 1 and 2 into rank 0, 6 words each,
   * and the root's mark where it meets */
  cr_expect(strstr(dat, "\n1.72 1 0.56 -1 6 ") && strstr(dat, "\n1.72 2 0.56 -2 6 "), "%s", dat);
  cr_expect(strstr(dat, "\n2.28 0 0\n"), "%s", dat);
  /* step 3: the verdict's allreduce, a mark on every lane, flagged 1 */
  cr_expect(strstr(dat, "\n3 0 1\n3 1 1\n3 2 1\n"), "%s", dat);
  cr_expect(strstr(dat, "\"gather to 0\" 0") && strstr(dat, "\"allreduce\\n8 w\" 1"), "%s", dat);
  cr_expect(strstr(gp, "set xtics ('first-row' 0, 'interface' 1, 'reduced' 2, 'verdict' 3)"), "%s",
            gp);
  cr_expect(strstr(gp, "set object rect from 2.5, graph 0 to 3.5, graph 1"), "%s", gp);
  cr_expect(strstr(gp, "set output 'L.png'") && strstr(gp, "'a known ledger'"), "%s", gp);
  cr_expect(strstr(gp, "the verdict''s"), "%s", gp);
  if (st == TL_OK) {
    char *png = read_all(dir, "L.png");
    cr_expect(png && !memcmp(png, "\x89PNG", 4));
    free(png);
  }
  free(dat);
  free(gp);
  tl_ledger_free(&L);
  cli_rmdir(dir);
}

/* Refused with TL_ERR_ARG, `why` in the message, and no file written. */
static void expect_refused(const tl_ledger *L, const char *prefix, const char *dir, const char *why)
{
  tl_info info;
  tl_info_clear(&info);
  cr_expect_eq(tl_ledger_plot(L, NULL, prefix, &info), TL_ERR_ARG);
  cr_expect(strstr(info.msg, why), "'%s' should say '%s'", info.msg, why);
  char *dat = read_all(dir, "L.dat");
  cr_expect_null(dat, "a refused ledger wrote L.dat");
  free(dat);
}

Test(ledger_plot, a_ledger_it_cannot_draw_is_refused)
{
  char dir[256], prefix[300];
  cli_tmpdir(dir, sizeof dir, "ledger-plot");
  snprintf(prefix, sizeof prefix, "%s/L", dir);
  tl_ledger L;
  tl_ledger_init(&L);
  expect_refused(NULL, prefix, dir, "no ledger (NULL)");
  expect_refused(&L, prefix, dir, "the ledger is empty");
  tl_ledger_message(&L, "edge", 0, 1, 0, 3);
  expect_refused(&L, NULL, dir, "no file prefix");
  expect_refused(&L, "", dir, "no file prefix");
  L.failed = 1;
  expect_refused(&L, prefix, dir, "incomplete");
  L.failed = 0;
  L.entries[0].kind = TL_LEDGER_KINDS; /* not a kind */
  expect_refused(&L, prefix, dir, "not a valid entry");
  L.entries[0].kind = TL_LEDGER_SEND;
  L.entries[0].peer = -1; /* a message to nobody */
  expect_refused(&L, prefix, dir, "not a valid entry");
  tl_ledger_reset(&L);
  for (int r = 0; r < 65; r++) /* 65 rounds: more steps than can be read */
    tl_ledger_message(&L, "jacobi", r, 1, 0, 1);
  expect_refused(&L, prefix, dir, "more than 64 steps");
  cr_expect_eq(tl_ledger_plot(&L, NULL, prefix, NULL), TL_ERR_ARG); /* info may be NULL */
  tl_ledger_free(&L);
  cli_rmdir(dir);
}
