/* convergence/sweep_converge.c -- an order-of-accuracy study with a fixed
 * number of rows per partition.
 *
 * tl_converge_run keeps P fixed, so the partitions grow with n and an
 * approximate partition algorithm drops less and less. On a parallel
 * machine one usually keeps the rows per rank m fixed and adds ranks
 * (weak scaling): then PDD, RPDD or DistD2 drop a coupling of the same
 * size, about sigma^-m, on every grid, and once the scheme's truncation
 * error falls below it the convergence curve flattens. This study runs
 * tl_converge_run one grid at a time with P = max(1, n / m).
 */
#include <math.h>
#include <string.h>

#include "tridlab/backend.h"
#include "tridlab/sweep.h"

int tl_sweep_converge_fixed_m(const tl_converge_config *cfg, size_t m, tl_converge_row *rows,
                              size_t cap, size_t *count, tl_info *info)
{
  tl_info_clear(info);
  if (!cfg || !rows || !count)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "rows", "sweep: NULL configuration or rows");
  *count = 0;
  if (m < 1)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "m", "sweep: rows per partition must be >= 1");
  size_t total = tl_converge_count(cfg->nmin, cfg->nmax);
  if (!total)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "nmin", "sweep: need 1 <= nmin <= nmax");
  if (cap < total)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "rows", "sweep: %zu rows needed, %zu given", total,
                   cap);
  tl_options opt;
  if (cfg->opt)
    opt = *cfg->opt;
  else
    tl_options_init(&opt);
  opt.part_sizes = NULL;
  size_t r = 0;
  for (size_t n = cfg->nmin; r < total; n *= 2) {
    tl_converge_config one = *cfg;
    size_t P = n / m;
    opt.parts = P < 1 ? 1 : P > TL_MAX_PARTS ? TL_MAX_PARTS : (int)P;
    one.opt = &opt;
    one.nmin = one.nmax = n;
    one.on_row = NULL;
    size_t got = 0;
    int st = tl_converge_run(&one, &rows[r], 1, &got, info);
    if (st < 0)
      return st;
    if (r > 0) {
      rows[r].order_max =
          tl_converge_order(rows[r - 1].err_max, rows[r].err_max, rows[r - 1].h, rows[r].h);
      rows[r].order_l2 =
          tl_converge_order(rows[r - 1].err_l2, rows[r].err_l2, rows[r - 1].h, rows[r].h);
    }
    if (cfg->on_row)
      cfg->on_row(&rows[r], r, total, cfg->ctx);
    r++;
  }
  *count = r;
  return TL_OK;
}
