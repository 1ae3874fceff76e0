/* optimized/mpi/registry_mpi.c -- the MPI room: the partition algorithms
 * that run across ranks, as registry algorithms (tridlab/mpi.h). The
 * room joins the registry the first time a program asks for it, so
 * tl_registry(), `list` and the verification runner hold them beside
 * the serial ones; tl_solve reaches them through tl_mpi_solve_batch. */
#include <pthread.h>
#include <string.h>

#include "mpi_internal.h"

static const tl_algorithm *const algorithms[] = {
    &tl_mpi_algo_pdd,
    &tl_mpi_algo_pdd_gpu, /* pdd_mpi.c: phase 1 on the GPU kernel */
    &tl_mpi_algo_rpdd,
    &tl_mpi_algo_distd2, /* distd2_mpi.c */
    &tl_mpi_algo_distd2_gpu, /* distd2_mpi.c: Algorithms 6 and 7 on the GPU kernels */
    &tl_mpi_algo_ptdma,  /* ptdma_mpi.c */
    &tl_mpi_algo_its,    /* its_mpi.c */
    &tl_mpi_algo_tridsolver, /* tridsolver_mpi.c */
    &tl_mpi_algo_hybrid_pcr, /* hybrid_pcr_mpi.c */
    &tl_mpi_algo_nshaped,    /* nshaped_mpi.c */
    &tl_mpi_algo_spike,      /* spike_mpi.c */
    &tl_mpi_algo_spike_dp,   /* spike_mpi.c: the diagonal-pivoting variant */
    &tl_mpi_algo_spike_givens, /* spike_mpi.c: the Givens variant */
#ifdef TL_HAVE_SCALAPACK
    &tl_mpi_algo_pddtsv, /* the distributed LAPACK baseline */
#endif
};
enum { COUNT = sizeof algorithms / sizeof algorithms[0] };

static const tl_room room = {.name = "mpi", .algorithms = algorithms, .count = COUNT};

/* The registry's copies (what each inherits from its reference filled
 * in), in the room's order. */
static const tl_algorithm *joined[COUNT];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void join(void)
{
  tl_info info;
  tl_register_room(&room, &info); /* our own names: cannot clash */
  for (size_t k = 0; k < COUNT; k++)
    joined[k] = tl_find(algorithms[k]->name);
}

const tl_algorithm *const *tl_mpi_registry(size_t *count)
{
  pthread_once(&once, join);
  if (count)
    *count = COUNT;
  return joined;
}

const tl_algorithm *tl_mpi_find(const char *name)
{
  const tl_algorithm *const *reg = tl_mpi_registry(NULL);
  for (size_t k = 0; name && k < COUNT; k++)
    if (!strcmp(reg[k]->name, name) || (reg[k]->reference && !strcmp(reg[k]->reference->name, name)))
      return reg[k];
  return NULL;
}

/* The ledger model of an MPI algorithm is its reference's: the ranks
 * record the messages the simulated partitions record. */
int tl_mpi_ledger_model(const tl_algorithm *self, const tl_batch *shape, const tl_options *opt,
                        const tl_info *solved, tl_ledger *out)
{
  const tl_algorithm *ref = self->reference;
  if (!ref || !ref->ledger_model)
    return TL_ERR_UNSUPPORTED;
  return ref->ledger_model(ref, shape, opt, solved, out);
}
