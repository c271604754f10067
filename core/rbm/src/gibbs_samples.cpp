#include "zeta/rbm/gibbs_samples.hpp"

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
  const VectorD start = rbm.base_rates.size() == rbm.n_visible() ? rbm.base_rates
                                                                 : VectorD(rbm.b.array().logistic().matrix());
  sampler.init_chains(start, rng);
  sampler.sweep(params, n_gibbs_steps, rng);
  return sampler.chains();
}

}  // namespace zeta
