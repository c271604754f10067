// Block Gibbs half-steps of a stack of tempered RBMs (detail/gibbs.hpp): the parameters' float mirror, the
// pre-activations, hidden and visible draws per rung, and the chains' tempered log-probabilities.
#include "zeta/rbm/detail/gibbs.hpp"

#include <algorithm>
#include <type_traits>
#include <vector>

#include "zeta/base/detail/gemm.hpp"
#include "zeta/base/detail/kernels.hpp"

namespace zeta {

template <class S>
void ParamMirror<S>::sync(const Rbm& rbm) {
  W = rbm.W().cast<S>();
  b = rbm.b().cast<S>();
  c = rbm.c().cast<S>();
  b_exact = rbm.b();
}

template <class S>
void hidden_preactivations(const Mat<S>& v, const ParamMirror<S>& p, Eigen::Index rows, Mat<S>& a) {
  RowAffine<S> bias;
  bias.offsets = p.c.data();
  multiply_binary_affine<S>(v.topRows(rows), Transpose::kNo, p.W, Transpose::kNo, a.topRows(rows), bias);
}

namespace {

// Splits rows [first, first + count) at the rung boundaries (every `chains` rows) and calls
// fn(start, length, rung) on each run, so that a run is one block expression (rows of a small layer are too short
// to vectorise one by one).
template <class F>
void for_rung_runs(Eigen::Index first, Eigen::Index count, Eigen::Index chains, F&& fn) {
  for (Eigen::Index r = first, end = first + count; r < end;) {
    const Eigen::Index rung = r / chains;
    const Eigen::Index stop = std::min(end, (rung + 1) * chains);
    fn(r, stop - r, static_cast<int>(rung));
    r = stop;
  }
}

}  // namespace

template <class S>
void sample_hidden(const Mat<S>& a, const std::vector<double>& betas, int rungs, Eigen::Index chains, Mat<S>& h,
                   Rng& rng) {
  const Eigen::Index n = chains;
  const Eigen::Index rows = static_cast<Eigen::Index>(rungs) * n;
  for_row_blocks(rows, a.cols(), [&](Eigen::Index first, Eigen::Index count) {
    for_rung_runs(first, count, n, [&](Eigen::Index start, Eigen::Index length, int rung) {
      h.middleRows(start, length) = (static_cast<S>(betas[static_cast<std::size_t>(rung)]) *
                                     a.middleRows(start, length).array())
                                        .logistic()
                                        .matrix();
    });
  });
  sample_bernoulli_block(h.data(), rows * h.cols(), rng);
}

template <class S>
void visible_inputs(const Mat<S>& h, const ParamMirror<S>& p, const std::vector<double>& betas, Tempering mode,
                    int rungs, Eigen::Index chains, Mat<S>& inputs, int extra_rungs) {
  const Eigen::Index n = chains;
  const Eigen::Index rows = static_cast<Eigen::Index>(rungs + extra_rungs) * n;
  // β·(H Wᵀ) + β_b·b for each rung's rows, applied as the product stores them.
  thread_local Mat<S> biases;
  thread_local std::vector<S> scales;
  thread_local std::vector<int> rung_of_row;
  biases.resize(rungs, p.b.size());
  scales.resize(static_cast<std::size_t>(rows));
  rung_of_row.resize(static_cast<std::size_t>(rows));
  for (int block = 0; block < rungs + extra_rungs; ++block) {
    const int rung = block < rungs ? block : block - rungs;
    const double beta = betas[static_cast<std::size_t>(rung)];
    if (block < rungs) biases.row(rung) = (static_cast<S>(visible_bias_beta(mode, beta)) * p.b).transpose();
    for (Eigen::Index r = block * n; r < (block + 1) * n; ++r) {
      scales[static_cast<std::size_t>(r)] = static_cast<S>(beta);
      rung_of_row[static_cast<std::size_t>(r)] = rung;
    }
  }
  RowAffine<S> tempered;
  tempered.scale = scales.data();
  tempered.offsets = biases.data();
  tempered.offset_row = rung_of_row.data();
  multiply_binary_affine<S>(h.topRows(rows), Transpose::kNo, p.W, Transpose::kYes, inputs.topRows(rows), tempered);
}

template <class S>
void sample_visible(const Mat<S>& inputs, Eigen::Index rows, Mat<S>& v, Rng& rng) {
  for_row_blocks(rows, v.cols(), [&](Eigen::Index first, Eigen::Index count) {
    v.middleRows(first, count) = inputs.middleRows(first, count).array().logistic().matrix();
  });
  sample_bernoulli_block(v.data(), rows * v.cols(), rng);
}

namespace {

template <class S>
void tempered_log_q_rows(const S* a, const double* bv, Eigen::Index rows, Eigen::Index n_h, double beta,
                         double vis_beta, double* out) {
  if constexpr (std::is_same_v<S, float>) {
    // softplus(βa) = β max(a, 0) + log(1 + e^−β|a|) for β ≥ 0: the second part (in (0, log 2]) vectorised in
    // float over the whole block (softplus_tail), several times faster than in double, with an absolute error of
    // about 1e-7 per entry; both parts are summed in double.
    thread_local std::vector<float> tail;  // grown, never shrunk (see softplus_row_sums)
    if (tail.size() < static_cast<std::size_t>(rows * n_h)) tail.resize(static_cast<std::size_t>(rows * n_h));
    softplus_tail(a, rows * n_h, static_cast<float>(beta), tail.data());
    for (Eigen::Index n = 0; n < rows; ++n)
      out[n] = vis_beta * bv[n] + beta * positive_sum_to_double(a + n * n_h, n_h) +
               sum_to_double(tail.data() + n * n_h, n_h);
  } else {
    // Per-thread scratch: the same arithmetic (and so the same rounding) as a fresh ArrayXd, without a heap
    // allocation for every row of every refresh and swap.
    thread_local Eigen::ArrayXd scaled;
    for (Eigen::Index n = 0; n < rows; ++n) {
      scaled = beta * Eigen::Map<const Eigen::Array<S, Eigen::Dynamic, 1>>(a + n * n_h, n_h).template cast<double>();
      out[n] = vis_beta * bv[n] + softplus_array(scaled).sum();
    }
  }
}

}  // namespace

template <class S>
void tempered_log_q(const S* a, const double* bv, Eigen::Index rows, Eigen::Index n_h, double beta, double vis_beta,
                    double* out) {
  tempered_log_q_segments(a, bv, n_h, {{0, rows, beta, vis_beta, out}});
}

template <class S>
void tempered_log_q_segments(const S* a, const double* bv, Eigen::Index n_h, const std::vector<LogQSegment>& segments) {
  // Blocks of row_block_size rows from each segment's first row: a row's float chunks of softplus_tail, and so its
  // bits, depend neither on the other segments nor on the thread count.
  struct Block {
    std::size_t segment;
    Eigen::Index offset, rows;
  };
  thread_local std::vector<Block> blocks;
  blocks.clear();
  const Eigen::Index block = row_block_size(n_h);
  Eigen::Index total = 0;
  for (std::size_t s = 0; s < segments.size(); ++s) {
    for (Eigen::Index r = 0; r < segments[s].rows; r += block)
      blocks.push_back({s, r, std::min(block, segments[s].rows - r)});
    total += segments[s].rows;
  }
  const Block* all = blocks.data();  // thread_local: the other threads get its address
  const auto count = static_cast<Eigen::Index>(blocks.size());
  for_shared_chunks(count, max_threads(), count > 1 && total * n_h >= kMinParallelEntries, [&](Eigen::Index i) {
    const LogQSegment& seg = segments[all[i].segment];
    const Eigen::Index row = seg.first + all[i].offset;
    tempered_log_q_rows(a + row * n_h, bv + row, all[i].rows, n_h, seg.beta, seg.vis_beta, seg.out + all[i].offset);
  });
}

template <class S>
void visible_terms(const Mat<S>& v, const VectorD& b, VectorD& bv) {
  if constexpr (std::is_same_v<S, float>) {
    // Row by row: a product with v.cast<double>() would first copy the chains into a double matrix.
    for_row_blocks(v.rows(), v.cols(), [&](Eigen::Index first, Eigen::Index count) {
      for (Eigen::Index r = first; r < first + count; ++r) bv[r] = dot_to_double(v.row(r).data(), b.data(), v.cols());
    });
  } else {
    bv.noalias() = v * b;
  }
}

#define ZETA_INSTANTIATE_GIBBS(S)                                                                                \
  template struct ParamMirror<S>;                                                                                \
  template void hidden_preactivations(const Mat<S>&, const ParamMirror<S>&, Eigen::Index, Mat<S>&);              \
  template void sample_hidden(const Mat<S>&, const std::vector<double>&, int, Eigen::Index, Mat<S>&, Rng&);      \
  template void visible_inputs(const Mat<S>&, const ParamMirror<S>&, const std::vector<double>&, Tempering, int, \
                               Eigen::Index, Mat<S>&, int);                                                      \
  template void sample_visible(const Mat<S>&, Eigen::Index, Mat<S>&, Rng&);                                      \
  template void tempered_log_q(const S*, const double*, Eigen::Index, Eigen::Index, double, double, double*);    \
  template void tempered_log_q_segments(const S*, const double*, Eigen::Index, const std::vector<LogQSegment>&); \
  template void visible_terms(const Mat<S>&, const VectorD&, VectorD&);
ZETA_INSTANTIATE_GIBBS(float)
ZETA_INSTANTIATE_GIBBS(double)
#undef ZETA_INSTANTIATE_GIBBS

}  // namespace zeta
