// How the DARN trainer cuts its parameters into the segments its per-parameter passes share among threads: the
// optimiser's step (trainer.cpp) and the weight noise's (weight_noise.cpp). Private to the DARN family.
#pragma once

#include <cstdint>

namespace zeta::darn_detail {

constexpr std::int64_t kSegment = 512;  // entries of a plain block per segment (5 double arrays x 4 KiB)

}  // namespace zeta::darn_detail
