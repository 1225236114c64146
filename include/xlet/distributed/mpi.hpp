// The collectives family on MPI processes: xlet::mpi_pool runs the replica pool's SPMD programs with
// one or several devices per rank (distributed/mpi/). Needs <mpi.h>: link the CMake target
// xlet::mpi. Include <xlet/distributed/mpi.hpp>.
#pragma once
#include "../distributed.hpp"
#include "mpi/pool.hpp"
