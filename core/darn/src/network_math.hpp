// A whole DARN's passes on a batch in precision S: scoring log p(x, h) and log q(h | x), drawing from the
// encoder and ancestral sampling. Private to the DARN family; the model and the trainer both use it, so every
// path reads the same layers the same way.
#pragma once

#include <vector>

#include "layer_math.hpp"
#include "zeta/darn/model.hpp"

namespace zeta::darn_detail {

template <class S>
struct NetworkMirror {
  std::vector<LayerMirror<S>> decoders;  // l = 0 … L−1
  LayerMirror<S> prior;
  std::vector<LayerMirror<S>> encoders;  // k − 1 for k = 1 … L

  // ancestral_sampling = false: only what scoring and drawing from the encoder read (the trainer syncs every
  // batch, and the transposed copies for ancestral sampling would be a large part of its parameter handling).
  void sync(const Darn& m, bool ancestral_sampling = true) {
    const int L = m.n_stochastic();
    decoders.resize(static_cast<std::size_t>(L));
    encoders.resize(static_cast<std::size_t>(L));
    for (int l = 0; l < L; ++l) decoders[static_cast<std::size_t>(l)].sync(m.decoder(l), ancestral_sampling);
    prior.sync(m.prior(), ancestral_sampling);
    for (int k = 1; k <= L; ++k) {
      const StochasticLayer& e = m.encoder(k);
      encoders[static_cast<std::size_t>(k - 1)].sync(e, ancestral_sampling || e.has_autoregressive());
    }
  }
  int n_stochastic() const { return static_cast<int>(decoders.size()); }
};

// Forward state of a whole network on one batch (kept by the trainer for its backward pass).
template <class S>
struct NetworkPass {
  std::vector<LayerPass<S>> decoders;
  LayerPass<S> prior;
  std::vector<LayerPass<S>> encoders;
};

// The values of layer k (0 = x) given x and h[k−1] = h⁽ᵏ⁾.
template <class S>
const Mat<S>& layer_values(const Mat<S>& x, const std::vector<Mat<S>>& h, int k) {
  return k == 0 ? x : h[static_cast<std::size_t>(k - 1)];
}

// log p(x, h) per row (double), filling pass->decoders and pass->prior when pass is given.
template <class S>
VectorD log_joint(const NetworkMirror<S>& net, const Mat<S>& x, const std::vector<Mat<S>>& h,
                  NetworkPass<S>* pass = nullptr) {
  const int L = net.n_stochastic();
  NetworkPass<S> local;
  NetworkPass<S>& p = pass ? *pass : local;
  p.decoders.resize(static_cast<std::size_t>(L));
  VectorD total = VectorD::Zero(x.rows());
  for (int l = 0; l < L; ++l) {
    const auto& layer = net.decoders[static_cast<std::size_t>(l)];
    auto& lp = p.decoders[static_cast<std::size_t>(l)];
    const Mat<S>& values = layer_values(x, h, l);
    layer_base(layer, layer_values(x, h, l + 1), lp);
    add_autoregressive(layer, values, lp.a);
    total += bernoulli_log_prob(lp.a, values);
  }
  const Mat<S>& top = h[static_cast<std::size_t>(L - 1)];
  layer_base(net.prior, Mat<S>(top.rows(), 0), p.prior);
  add_autoregressive(net.prior, top, p.prior.a);
  total += bernoulli_log_prob(p.prior.a, top);
  return total;
}

// log q(h | x) per row (double), filling pass->encoders when pass is given.
template <class S>
VectorD log_encoder(const NetworkMirror<S>& net, const Mat<S>& x, const std::vector<Mat<S>>& h,
                    NetworkPass<S>* pass = nullptr) {
  const int L = net.n_stochastic();
  NetworkPass<S> local;
  NetworkPass<S>& p = pass ? *pass : local;
  p.encoders.resize(static_cast<std::size_t>(L));
  VectorD total = VectorD::Zero(x.rows());
  for (int k = 1; k <= L; ++k) {
    const auto& layer = net.encoders[static_cast<std::size_t>(k - 1)];
    auto& ep = p.encoders[static_cast<std::size_t>(k - 1)];
    layer_base(layer, layer_values(x, h, k - 1), ep);
    add_autoregressive(layer, h[static_cast<std::size_t>(k - 1)], ep.a);
    total += bernoulli_log_prob(ep.a, h[static_cast<std::size_t>(k - 1)]);
  }
  return total;
}

// h ~ q(h | x), layer by layer from the bottom, into h (its matrices reused when their shapes fit);
// pass->encoders gets the pre-activations the draws used.
template <class S>
void sample_encoder(const NetworkMirror<S>& net, const Mat<S>& x, Rng& rng, std::vector<Mat<S>>& h,
                    NetworkPass<S>* pass = nullptr) {
  const int L = net.n_stochastic();
  NetworkPass<S> local;
  NetworkPass<S>& p = pass ? *pass : local;
  p.encoders.resize(static_cast<std::size_t>(L));
  h.resize(static_cast<std::size_t>(L));
  for (int k = 1; k <= L; ++k) {
    const auto& layer = net.encoders[static_cast<std::size_t>(k - 1)];
    auto& ep = p.encoders[static_cast<std::size_t>(k - 1)];
    layer_base(layer, layer_values(x, h, k - 1), ep);
    sample_layer(layer, ep.a, h[static_cast<std::size_t>(k - 1)], rng);
  }
}

template <class S>
std::vector<Mat<S>> sample_encoder(const NetworkMirror<S>& net, const Mat<S>& x, Rng& rng,
                                   NetworkPass<S>* pass = nullptr) {
  std::vector<Mat<S>> h;
  sample_encoder(net, x, rng, h, pass);
  return h;
}

// n ancestral samples: the top layer unit by unit from the prior, then each layer below given the one above.
template <class S>
Mat<S> sample_network(const NetworkMirror<S>& net, Eigen::Index n, Rng& rng) {
  const int L = net.n_stochastic();
  LayerPass<S> pass;
  Mat<S> above;
  layer_base(net.prior, Mat<S>(n, 0), pass);
  sample_layer(net.prior, pass.a, above, rng);
  for (int l = L - 1; l >= 0; --l) {
    const auto& layer = net.decoders[static_cast<std::size_t>(l)];
    Mat<S> values;
    layer_base(layer, above, pass, /*input_may_be_sparse=*/true);
    sample_layer(layer, pass.a, values, rng);
    above = std::move(values);
  }
  return above;
}

}  // namespace zeta::darn_detail
