// The pruner's engine interface: what Pruner (pruner.cpp) asks of the sampling engine of its precision
// (pruner_engine.cpp). Private to the RBM family.
#pragma once

#include <cstdint>
#include <vector>

#include "zeta/rbm/estimators.hpp"
#include "zeta/rbm/removal.hpp"

#include "witness_weights.hpp"

namespace zeta {

class Pruner::Engine {
 public:
  virtual ~Engine() = default;
  virtual int step(const MatrixD& batch) = 0;
  virtual MatrixD chains() const = 0;
  virtual void set_chains(const MatrixD& chains) = 0;
  virtual std::vector<double> betas() const = 0;
  virtual AisResult witness_ais(int runs, int n_betas) = 0;
  virtual void set_witnesses(const AisResult& ais) = 0;
  virtual void drop_witnesses() = 0;
  virtual const removal_detail::WitnessWeights* witness_weights() const = 0;
  virtual std::int64_t witness_updates() const = 0;
};

}  // namespace zeta
