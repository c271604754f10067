// The arithmetic of one StochasticLayer on a batch, in the precision S of the caller (float for training and
// sampling speed, double for exact enumeration and gradient checks). Private to the DARN family.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "zeta/base/detail/gemm.hpp"
#include "zeta/base/error.hpp"
#include "zeta/base/numerics.hpp"
#include "zeta/base/random.hpp"
#include "zeta/darn/model.hpp"

namespace zeta::darn_detail {

// A StochasticLayer's parameters in precision S, with the transposes the column-wise paths read.
template <class S>
struct LayerMirror {
  Mat<S> hidden_weight;  // U (n_det × n_in)
  Vec<S> hidden_bias;
  Mat<S> weight;    // W (n_out × n_det or n_in)
  Mat<S> weight_t;  // Wᵀ, for sparse inputs: row i is the contribution of input i (when synced with transposes)
  Vec<S> bias;
  Mat<S> autoregressive;    // A (n_out × n_out), strictly lower
  Mat<S> autoregressive_t;  // Aᵀ: row i holds A[j][i] for the units j > i that unit i feeds (idem)
  bool hidden = false;
  bool ar = false;

  // transposes: also Wᵀ and Aᵀ, which the sparse-input path and unit-by-unit sampling read; without them both
  // are empty and those paths must not run (layer_base and sample_layer check).
  void sync(const StochasticLayer& l, bool transposes = true) {
    hidden = l.has_hidden();
    ar = l.has_autoregressive();
    hidden_weight = l.hidden_weight.cast<S>();
    hidden_bias = l.hidden_bias.cast<S>();
    weight = l.weight.cast<S>();
    bias = l.bias.cast<S>();
    autoregressive = l.autoregressive.cast<S>();
    if (transposes) {
      weight_t = weight.transpose();
      autoregressive_t = autoregressive.transpose();
    } else {
      weight_t.resize(0, 0);
      autoregressive_t.resize(0, 0);
    }
  }
  int n_out() const { return static_cast<int>(bias.size()); }
};

// Forward state of one layer on one batch.
template <class S>
struct LayerPass {
  Mat<S> d;  // tanh activations of the deterministic units (B × n_det), when the layer has them
  Mat<S> a;  // pre-activations of the stochastic units, autoregressive term included once the values are known
};

// pass.a = W·(tanh(U·input + u) or input) + w, without the autoregressive term. When the input is binary and
// sparse (few ones per row) and feeds W directly, the ones' columns are summed instead of a full product.
template <class S>
void layer_base(const LayerMirror<S>& l, const Mat<S>& input, LayerPass<S>& pass, bool input_may_be_sparse = false) {
  const Eigen::Index rows = input.rows();
  if (l.weight.cols() == 0) {  // the prior: bias only
    pass.a = l.bias.transpose().replicate(rows, 1);
    return;
  }
  if (l.hidden) {
    pass.d.resize(rows, l.hidden_weight.rows());
    multiply<S>(input, l.hidden_weight, Transpose::kYes, pass.d);
    pass.d.rowwise() += l.hidden_bias.transpose();
    pass.d = pass.d.array().tanh().matrix();
    pass.a.resize(rows, l.weight.rows());
    multiply<S>(pass.d, l.weight, Transpose::kYes, pass.a);
  } else if (input_may_be_sparse && l.weight_t.size() == l.weight.size() &&
             (input.array() != S(0)).count() * 10 < input.size()) {
    pass.a = l.bias.transpose().replicate(rows, 1);
    for (Eigen::Index r = 0; r < rows; ++r) {
      for (Eigen::Index i = 0; i < input.cols(); ++i) {
        if (input(r, i) != S(0)) pass.a.row(r) += l.weight_t.row(i);
      }
    }
    return;
  } else {
    pass.a.resize(rows, l.weight.rows());
    multiply<S>(input, l.weight, Transpose::kYes, pass.a);
  }
  pass.a.rowwise() += l.bias.transpose();
}

// a += h·Aᵀ: unit j gains Σ_{i<j} A[j][i] h_i (the scoring path; A is strictly lower, so the full product is
// that sum).
template <class S>
void add_autoregressive(const LayerMirror<S>& l, const Mat<S>& h, Mat<S>& a) {
  if (l.ar) multiply_add<S>(h, l.autoregressive, Transpose::kYes, a);
}

// Σ_j [h_j a_j − softplus(a_j)] per row, accumulated in double: log Π_j σ(±a_j) for binary h.
template <class S>
VectorD bernoulli_log_prob(const Mat<S>& a, const Mat<S>& h) {
  // softplus evaluated at the layer's precision first (inside the cast to double it runs entry by entry), 16 rows
  // at a time: a whole block of importance draws would be megabytes page-faulted in per call. 16 rows
  // span a multiple of 64 bytes, so every row keeps the alignment it had in a whole-array buffer and its sums
  // round as they did there.
  constexpr Eigen::Index kRows = 16;
  Eigen::Array<S, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> softplus(std::min(kRows, a.rows()), a.cols());
  VectorD out(a.rows());
  for (Eigen::Index first = 0; first < a.rows(); first += kRows) {
    const Eigen::Index rows = std::min(kRows, a.rows() - first);
    softplus.topRows(rows) = softplus_array(a.middleRows(first, rows).array());
    for (Eigen::Index i = 0; i < rows; ++i) {
      const Eigen::Index r = first + i;
      out[r] = (h.row(r).array() * a.row(r).array()).template cast<double>().sum() -
               softplus.row(i).template cast<double>().sum();
    }
  }
  return out;
}

template <class S>
S logistic(S x) {
  return x >= S(0) ? S(1) / (S(1) + std::exp(-x)) : std::exp(x) / (S(1) + std::exp(x));
}

template <class S>
S uniform_draw(Rng& rng) {
  if constexpr (std::is_same_v<S, float>) {
    return rng.uniform_float();
  } else {
    return rng.uniform();
  }
}

// Draws the layer's values given its base pre-activations (pass.a from layer_base): unit by unit when it is
// autoregressive, adding each drawn one's column A[·][i] to the units after it (the same entries scoring
// multiplies by; only units that came out 1 cost anything); all at once otherwise. Leaves the full
// pre-activations in a. Draw order: unit by unit, rows in order within a unit.
template <class S>
void sample_layer(const LayerMirror<S>& l, Mat<S>& a, Mat<S>& h, Rng& rng) {
  const Eigen::Index rows = a.rows();
  const Eigen::Index n = a.cols();
  h.resize(rows, n);
  if (!l.ar) {
    for (Eigen::Index j = 0; j < n; ++j) {
      for (Eigen::Index r = 0; r < rows; ++r) h(r, j) = uniform_draw<S>(rng) < logistic(a(r, j)) ? S(1) : S(0);
    }
    return;
  }
  require(l.autoregressive_t.size() == l.autoregressive.size(), "DARN: layer synced without its transposes");
  for (Eigen::Index j = 0; j < n; ++j) {
    const Eigen::Index later = n - j - 1;
    for (Eigen::Index r = 0; r < rows; ++r) {
      const bool on = uniform_draw<S>(rng) < logistic(a(r, j));
      h(r, j) = on ? S(1) : S(0);
      if (on && later > 0) a.row(r).tail(later) += l.autoregressive_t.row(j).tail(later);
    }
  }
}

// Parameter gradients of one layer, in precision S (same shapes as the mirror).
template <class S>
struct LayerGradient {
  Mat<S> hidden_weight;
  Vec<S> hidden_bias;
  Mat<S> weight;
  Vec<S> bias;
  Mat<S> autoregressive;
};

// Keeps S from being deduced from an argument (so nullptr can be passed for an output not wanted).
template <class T>
struct NonDeduced {
  using type = T;
};

// Back-propagates da = ∂cost/∂a (B × n_out) through the layer: parameter gradients into g (overwritten), and,
// when asked, ∂cost/∂h of the layer's own values through the autoregressive inputs (d_self, B × n_out) and
// ∂cost/∂input (d_input, B × n_in).
template <class S>
void layer_backward(const LayerMirror<S>& l, const Mat<S>& input, const Mat<S>& h, const LayerPass<S>& pass,
                    const Mat<S>& da, LayerGradient<S>& g, typename NonDeduced<Mat<S>>::type* d_self,
                    typename NonDeduced<Mat<S>>::type* d_input) {
  g.bias = da.colwise().sum().transpose();
  if (l.ar) {
    g.autoregressive.resize(da.cols(), h.cols());
    gemm<S>(da, Transpose::kYes, h, Transpose::kNo, g.autoregressive);
    g.autoregressive = g.autoregressive.template triangularView<Eigen::StrictlyLower>();
    if (d_self) {
      d_self->resize(da.rows(), l.autoregressive.cols());
      multiply<S>(da, l.autoregressive, Transpose::kNo, *d_self);
    }
  } else if (d_self) {
    d_self->setZero(da.rows(), da.cols());
  }
  if (l.weight.cols() == 0) return;
  if (l.hidden) {
    g.weight.resize(da.cols(), pass.d.cols());
    gemm<S>(da, Transpose::kYes, pass.d, Transpose::kNo, g.weight);
    Mat<S> d_pre(da.rows(), l.weight.cols());
    multiply<S>(da, l.weight, Transpose::kNo, d_pre);
    d_pre.array() *= S(1) - pass.d.array().square();
    g.hidden_weight.resize(d_pre.cols(), input.cols());
    gemm<S>(d_pre, Transpose::kYes, input, Transpose::kNo, g.hidden_weight);
    g.hidden_bias = d_pre.colwise().sum().transpose();
    if (d_input) {
      d_input->resize(d_pre.rows(), l.hidden_weight.cols());
      multiply<S>(d_pre, l.hidden_weight, Transpose::kNo, *d_input);
    }
  } else {
    g.weight.resize(da.cols(), input.cols());
    gemm<S>(da, Transpose::kYes, input, Transpose::kNo, g.weight);
    if (d_input) {
      d_input->resize(da.rows(), l.weight.cols());
      multiply<S>(da, l.weight, Transpose::kNo, *d_input);
    }
  }
}

}  // namespace zeta::darn_detail
