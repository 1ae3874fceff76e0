/* reference/registry_ref.c -- the reference room's table for the registry:
 * the serial references, then the partition algorithms simulated over P
 * partitions. Its order is the order `tridlab list` shows them in. */
#include "tridlab/backend.h"

extern const tl_algorithm tl_algo_thomas_ref;
extern const tl_algorithm tl_algo_thomas_periodic_ref;
extern const tl_algorithm tl_algo_cr_ref;
extern const tl_algorithm tl_algo_pcr_ref;
extern const tl_algorithm tl_algo_jacobi_ref;
extern const tl_algorithm tl_algo_gtsv_ref;
extern const tl_algorithm tl_algo_hybrid_pcr_ref;
extern const tl_algorithm tl_algo_tridsolver_ref;
extern const tl_algorithm tl_algo_distd2_ref;
extern const tl_algorithm tl_algo_ptdma_ref;
extern const tl_algorithm tl_algo_its_ref;
extern const tl_algorithm tl_algo_nshaped_ref;
extern const tl_algorithm tl_algo_pdd_ref;
extern const tl_algorithm tl_algo_rpdd_ref;
extern const tl_algorithm tl_algo_spike_ref;
extern const tl_algorithm tl_algo_spike_dp_ref;
extern const tl_algorithm tl_algo_spike_givens_ref;

static const tl_algorithm *const algorithms[] = {
    &tl_algo_thomas_ref, &tl_algo_thomas_periodic_ref, &tl_algo_cr_ref,
    &tl_algo_pcr_ref,    &tl_algo_jacobi_ref,          &tl_algo_gtsv_ref,
    /* partition algorithms, simulated over P partitions */
    &tl_algo_hybrid_pcr_ref, &tl_algo_tridsolver_ref, &tl_algo_distd2_ref, &tl_algo_ptdma_ref,
    &tl_algo_pdd_ref,        &tl_algo_rpdd_ref,       &tl_algo_its_ref,    &tl_algo_nshaped_ref,
    /* partition algorithms that pivot */
    &tl_algo_spike_ref, &tl_algo_spike_dp_ref, &tl_algo_spike_givens_ref,
};

const tl_room tl_room_reference = {
    .name = "reference",
    .algorithms = algorithms,
    .count = sizeof algorithms / sizeof algorithms[0],
};
