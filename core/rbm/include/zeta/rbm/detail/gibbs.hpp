// Block Gibbs sampling of a stack of tempered RBMs, and the tempered log-probabilities of their chains.
//
// The chains of M rungs are stacked in one matrix: rung i owns rows [i·N, (i+1)·N) (N chains per rung) and runs
// at β_i = betas[i], so every half-step is one matrix product for all rungs. The kernels act on the first `rungs`
// rungs (the coldest), which are the leading rows. S is the sampling precision (float or double).
#pragma once

#include <vector>

#include "zeta/rbm/model.hpp"

namespace zeta {

// The RBM parameters in the sampler's precision, plus the exact visible bias for log-probabilities.
template <class S>
struct ParamMirror {
  Mat<S> W;
  Vec<S> b;
  Vec<S> c;
  VectorD b_exact;
  void sync(const Rbm& rbm);
};

// Temperature of the visible bias at β: 1 under interaction tempering (the bias is not tempered), else β.
inline double visible_bias_beta(Tempering mode, double beta) { return mode == Tempering::kInteraction ? 1.0 : beta; }

// a = v W + c for the first `rows` chains.
template <class S>
void hidden_preactivations(const Mat<S>& v, const ParamMirror<S>& p, Eigen::Index rows, Mat<S>& a);

// h ~ p(h | v) at each of the first `rungs` rungs: h = Bernoulli(σ(β_i a)), from the pre-activations a.
template <class S>
void sample_hidden(const Mat<S>& a, const std::vector<double>& betas, int rungs, Eigen::Index chains, Mat<S>& h,
                   Rng& rng);

// The visible units' inputs β_i W h + β_v b at each of the first `rungs` rungs (β_v: visible_bias_beta), and
// for `extra_rungs` more blocks of `chains` rows after them, which take the temperatures of rungs 0, 1, ... (the
// data moves' proposals for the coldest rungs, formed in the same product).
template <class S>
void visible_inputs(const Mat<S>& h, const ParamMirror<S>& p, const std::vector<double>& betas, Tempering mode,
                    int rungs, Eigen::Index chains, Mat<S>& inputs, int extra_rungs = 0);

// v ~ p(v | h) = Bernoulli(σ(inputs)) for the first `rows` chains.
template <class S>
void sample_visible(const Mat<S>& inputs, Eigen::Index rows, Mat<S>& v, Rng& rng);

// out[n] = vis_beta·bv[n] + Σ_j softplus(β a_nj) = log q̃_β of chain n, for `rows` rows of pre-activations a
// (row-major, n_h wide) and their visible terms bv = bᵀv. Accumulated in double; with S = float the bounded part
// log(1 + e^−|βa|) of each softplus is evaluated in float (softplus_tail, about 1e-7 per entry).
template <class S>
void tempered_log_q(const S* a, const double* bv, Eigen::Index rows, Eigen::Index n_h, double beta, double vis_beta,
                    double* out);

// One tempered_log_q evaluation: rows [first, first + rows) at β (visible terms weighted by vis_beta) into out.
struct LogQSegment {
  Eigen::Index first = 0, rows = 0;
  double beta = 1.0, vis_beta = 1.0;
  double* out = nullptr;
};

// tempered_log_q of every segment, their row blocks shared among the threads at once (a swap round's segments are
// a rung each, too few rows apiece to share evenly); each row's value is the one tempered_log_q gives it.
template <class S>
void tempered_log_q_segments(const S* a, const double* bv, Eigen::Index n_h, const std::vector<LogQSegment>& segments);

// bv[r] = bᵀv_r for every chain, accumulated in double in a fixed order.
template <class S>
void visible_terms(const Mat<S>& v, const VectorD& b, VectorD& bv);

}  // namespace zeta
