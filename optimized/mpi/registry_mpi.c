/* optimized/mpi/registry_mpi.c -- the MPI room's table: the partition
 * algorithms that run across ranks, in the order of the registry. */
#include <string.h>

#include "mpi_internal.h"

static const tl_mpi_algorithm *const algorithms[] = {
    &tl_mpi_algo_pdd,
    &tl_mpi_algo_rpdd,
    &tl_mpi_algo_distd2, /* distd2_mpi.c */
    &tl_mpi_algo_ptdma,  /* ptdma_mpi.c */
    &tl_mpi_algo_its,    /* its_mpi.c */
    &tl_mpi_algo_tridsolver, /* tridsolver_mpi.c */
    &tl_mpi_algo_hybrid_pcr, /* hybrid_pcr_mpi.c */
    &tl_mpi_algo_nshaped,    /* nshaped_mpi.c */
#ifdef TL_HAVE_SCALAPACK
    &tl_mpi_algo_pddtsv, /* the distributed LAPACK baseline */
#endif
};

const tl_mpi_algorithm *const *tl_mpi_registry(size_t *count)
{
  if (count)
    *count = sizeof algorithms / sizeof algorithms[0];
  return algorithms;
}

const tl_mpi_algorithm *tl_mpi_find(const char *name)
{
  for (size_t k = 0; name && k < sizeof algorithms / sizeof algorithms[0]; k++)
    if (strcmp(algorithms[k]->name, name) == 0)
      return algorithms[k];
  return NULL;
}
