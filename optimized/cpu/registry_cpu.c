/* optimized/cpu/registry_cpu.c -- the optimized CPU room's table for the
 * registry: backends checked against their reference on the whole gallery. */
#include "tridlab/backend.h"

extern const tl_algorithm tl_algo_thomas_cpu;
extern const tl_algorithm tl_algo_thomas_periodic_cpu;
extern const tl_algorithm tl_algo_spike_cpu;
extern const tl_algorithm tl_algo_spike_givens_cpu;

static const tl_algorithm *const algorithms[] = {
    &tl_algo_thomas_cpu,
    &tl_algo_thomas_periodic_cpu,
    &tl_algo_spike_cpu,
    &tl_algo_spike_givens_cpu,
};

const tl_room tl_room_cpu = {
    .name = "cpu",
    .algorithms = algorithms,
    .count = sizeof algorithms / sizeof algorithms[0],
};
