/* tridlab/phases.h -- the teaching and backend header: the phase
 * functions of every partition algorithm, one header per paper.
 *
 * A user solves through tridlab/tridlab.h (tl_solve and the registry).
 * Whoever runs an algorithm's phases one at a time includes this: a
 * tracer printing each stage, an MPI rank program or a GPU kernel that
 * runs the reference's phases on its own rows, a lab exercise that steps
 * through PDD by hand. Each part_*.h says which paper, section and
 * algorithm its functions transcribe.
 */
#ifndef TRIDLAB_PHASES_H
#define TRIDLAB_PHASES_H

#include "tridlab/part_distd2.h"
#include "tridlab/part_hybrid_pcr.h"
#include "tridlab/part_its.h"
#include "tridlab/part_nshaped.h"
#include "tridlab/part_pdd.h"
#include "tridlab/part_ptdma.h"
#include "tridlab/part_rpdd.h"
#include "tridlab/part_spike.h"
#include "tridlab/part_spike_dp.h"
#include "tridlab/part_spike_givens.h"
#include "tridlab/part_tridsolver.h"

#endif
