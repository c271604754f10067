// Pins Eigen's product blocking when a program starts (zeta::pin_product_blocking, numerics.hpp). Not part of the
// core libraries: a program that links the core keeps Eigen as it finds it. zeta's own programs and libzeta.so link
// this (core/CMakeLists.txt, zeta_pinned_blocking), so their numbers agree across machines with one instruction
// set; libzeta.so keeps its copy of Eigen to itself (its version script exports zeta_* alone), so loading it leaves
// the host's Eigen products as they were.
#include "zeta/base/numerics.hpp"

namespace {

const bool kPinned = (zeta::pin_product_blocking(), true);

}  // namespace
