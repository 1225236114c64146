// The collectives family: a replica pool that runs one SPMD program on R replicas x P partitions
// inside this process, and XLA's collectives over it. Include <xlet/distributed.hpp>.
#pragma once
#include "distributed/transport.hpp"
#include "distributed/pool.hpp"
#include "distributed/collectives.hpp"
#include "distributed/async.hpp"
