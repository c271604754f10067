// Samples of an RBM's visible units by plain block Gibbs sampling, for drawing from a trained model.
#pragma once

#include "zeta/base/numerics.hpp"
#include "zeta/base/random.hpp"
#include "zeta/rbm/model.hpp"

namespace zeta {

// n_samples independent chains (rows, 0/1) started from the base rates (sigmoid(b) when the model has none),
// each after n_gibbs_steps ≥ 1 block-Gibbs sweeps at β = 1, drawn from rng. The model is not changed.
MatrixD gibbs_samples(const Rbm& rbm, int n_samples, int n_gibbs_steps, Rng& rng);

// n_gibbs_steps ≥ 1 block-Gibbs sweeps at β = 1 from the given rows (values in [0, 1]: the first hidden states
// are drawn from p(h | v) of the rows as they are, as mean-field inputs), one chain per row; returns the last
// visible states (0/1), drawn from rng. The model is not changed.
MatrixD gibbs_from(const Rbm& rbm, const MatrixD& start, int n_gibbs_steps, Rng& rng);

}  // namespace zeta
