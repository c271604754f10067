// Plain block Gibbs samples of a trained RBM (gibbs_samples.hpp): from fresh chains or from given rows.
#include "zeta/rbm/gibbs_samples.hpp"

#include <string>

#include "zeta/base/error.hpp"
#include "zeta/rbm/tempering.hpp"

namespace zeta {

MatrixD gibbs_samples(const Rbm& rbm, int n_samples, int n_gibbs_steps, Rng& rng) {
  require(n_samples > 0, "n_samples must be positive");
  require(n_gibbs_steps > 0, "n_gibbs_steps must be positive");
  // One temperature of the tempering sampler is exactly block Gibbs sampling, with its kernels.
  TemperingConfig config;
  config.chains_per_temperature = n_samples;
  TemperedSampler<double> sampler(rbm.n_visible(), rbm.n_hidden(), config);
  ParamMirror<double> params;
  params.sync(rbm);
  const VectorD start = rbm.base_rates().size() == rbm.n_visible() ? rbm.base_rates()
                                                                   : VectorD(rbm.b().array().logistic().matrix());
  sampler.init_chains(start, rng);
  sampler.sweep(params, n_gibbs_steps, rng);
  return sampler.chains();
}

MatrixD gibbs_from(const Rbm& rbm, const MatrixD& start, int n_gibbs_steps, Rng& rng) {
  require(start.rows() > 0, "the start needs at least one row");
  require(start.cols() == rbm.n_visible(), "the start has " + std::to_string(start.cols()) +
                                               " columns, the model has " + std::to_string(rbm.n_visible()));
  require(n_gibbs_steps > 0, "n_gibbs_steps must be positive");
  TemperingConfig config;
  config.chains_per_temperature = static_cast<int>(start.rows());
  TemperedSampler<double> sampler(rbm.n_visible(), rbm.n_hidden(), config);
  ParamMirror<double> params;
  params.sync(rbm);
  sampler.set_chains(start);
  sampler.sweep(params, n_gibbs_steps, rng);
  return sampler.chains();
}

}  // namespace zeta
