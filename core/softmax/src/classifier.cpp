// The softmax classifier (classifier.hpp): its parameters and lazy momentum, the objective and its gradient over
// a batch, the training update, and exact evaluation. The configuration's check is in softmax_config.cpp, the
// negatives' draws in negative_draws.cpp, the sampled objectives in sampled_objectives.cpp, the serialised form in
// classifier_file.cpp.
#include "zeta/softmax/classifier.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <string>

#include "zeta/base/detail/gemm.hpp"
#include "zeta/base/error.hpp"
#include "zeta/base/labels.hpp"

#include "softmax_detail.hpp"

namespace zeta {

using namespace softmax_detail;

namespace {

constexpr Eigen::Index kClassBlock = 4096;
constexpr Eigen::Index kRowChunk = 512;
constexpr double kParameterLimit = 1e300;

}  // namespace

struct SoftmaxClassifier::Work {
  std::vector<int> rows;        // distinct classes touched, in first-seen order (all classes for kExact)
  std::vector<int> entry_slot;  // example n's entries (true class first) start at offsets[n] + n
  MatrixD h;                    // features, N × F
  MatrixD Wg;                   // gathered rows of W (sampled methods)
  VectorD bg;
  MatrixD gW;  // gradient rows aligned with `rows`
  VectorD gb;
  MatrixD gV;
  VectorD ga;
  MatrixD dh;
  MatrixD scores;  // B × C (kExact)
  std::vector<double> s, lw, g;
};

SoftmaxClassifier::SoftmaxClassifier(const SoftmaxConfig& config, NoInit) : config_(config), rng_(config.seed) {
  validate_config(config_);
  const int C = config_.n_classes;
  feature_dim_ = config_.n_hidden > 0 ? config_.n_hidden : config_.n_inputs;
  margin_ = std::isnan(config_.ranking_margin) ? std::log(static_cast<double>(C - 1)) : config_.ranking_margin;
  W_ = MatrixD::Zero(C, feature_dim_);
  vW_ = MatrixD::Zero(C, feature_dim_);
  if (config_.bias) {
    b_ = VectorD::Zero(C);
    vb_ = VectorD::Zero(C);
  }
  if (config_.n_hidden > 0) {
    V_ = MatrixD::Zero(config_.n_hidden, config_.n_inputs);
    vV_ = MatrixD::Zero(config_.n_hidden, config_.n_inputs);
    a_ = VectorD::Zero(config_.n_hidden);
    va_ = VectorD::Zero(config_.n_hidden);
  }
  last_.assign(static_cast<std::size_t>(C), 0);
  counts_.assign(static_cast<std::size_t>(C), 0);
  slot_of_class_.assign(static_cast<std::size_t>(C), -1);
  rebuild_samplers();
}

SoftmaxClassifier::SoftmaxClassifier(const SoftmaxConfig& config) : SoftmaxClassifier(config, NoInit{}) {
  double* w = W_.data();
  for (Eigen::Index i = 0; i < W_.size(); ++i) w[i] = config_.init_sd * rng_.normal();
  if (config_.n_hidden > 0) {
    const double sd = 1.0 / std::sqrt(static_cast<double>(config_.n_inputs));
    double* v = V_.data();
    for (Eigen::Index i = 0; i < V_.size(); ++i) v[i] = sd * rng_.normal();
  }
  reset_bounds();
}

void SoftmaxClassifier::check_batch(const MatrixD& x, const std::vector<int>& labels) const {
  require(x.rows() >= 1, "softmax: empty batch");
  require(x.cols() == config_.n_inputs, "softmax: x must have n_inputs columns");
  require(static_cast<std::size_t>(x.rows()) == labels.size(), "softmax: need one label per row of x");
  require(x.allFinite(), "softmax: x has a non-finite entry");
  for (int c : labels) require(c >= 0 && c < config_.n_classes, "softmax: class label out of range");
}

void SoftmaxClassifier::features(const MatrixD& x, MatrixD& h) const {
  if (config_.n_hidden == 0) {
    h = x;
    return;
  }
  h.resize(x.rows(), V_.rows());
  multiply<double>(x, V_, Transpose::kYes, h);
  h.rowwise() += a_.transpose();
  h = h.array().tanh().matrix();
}

double SoftmaxClassifier::pending_factor(std::int64_t k) const {
  const double mu = config_.momentum;
  if (k <= 0 || mu == 0.0) return 0.0;
  // μ + μ² + … + μ^k = μ (1 − μ^k)/(1 − μ), with 1 − μ^k = −expm1(k log μ) (no cancellation).
  return mu * -std::expm1(static_cast<double>(k) * std::log(mu)) / (1.0 - mu);
}

double SoftmaxClassifier::decay_factor(std::int64_t k) const {
  const double mu = config_.momentum;
  if (k <= 0) return 1.0;
  if (mu == 0.0) return 0.0;
  return std::exp(static_cast<double>(k) * std::log(mu));
}

void SoftmaxClassifier::catch_up_row(int r) {
  const auto ri = static_cast<std::size_t>(r);
  const std::int64_t k = step_ - last_[ri];
  if (k <= 0) return;
  const double grow = pending_factor(k);
  const double decay = decay_factor(k);
  W_.row(r) += grow * vW_.row(r);
  vW_.row(r) *= decay;
  if (config_.bias) {
    b_[r] += grow * vb_[r];
    vb_[r] *= decay;
  }
  last_[ri] = step_;
}

void SoftmaxClassifier::effective_rows(int first, int count, MatrixD& w, VectorD& b) const {
  w = W_.middleRows(first, count);
  if (config_.bias) b = b_.segment(first, count);
  for (int i = 0; i < count; ++i) {
    const int r = first + i;
    const double grow = pending_factor(step_ - last_[static_cast<std::size_t>(r)]);
    if (grow == 0.0) continue;
    w.row(i) += grow * vW_.row(r);
    if (config_.bias) b[i] += grow * vb_[r];
  }
}

void SoftmaxClassifier::reset_bounds() {
  auto max_abs = [](const auto& m) { return m.size() == 0 ? 0.0 : m.cwiseAbs().maxCoeff(); };
  velocity_bound_ = std::max({max_abs(vW_), max_abs(vb_), max_abs(vV_), max_abs(va_)});
  const double mu = config_.momentum;
  param_bound_ = std::max({max_abs(W_), max_abs(b_), max_abs(V_), max_abs(a_)}) + velocity_bound_ * mu / (1.0 - mu);
}

bool SoftmaxClassifier::all_rows_current() const {
  return std::all_of(last_.begin(), last_.end(), [&](std::int64_t t) { return t == step_; });
}

void SoftmaxClassifier::assign_slots(const std::vector<int>& labels, const SoftmaxSample& sample,
                                     std::vector<int>& slot_of_class, Work& w) const {
  w.rows.clear();
  if (!sampled(config_.method)) {
    w.rows.resize(static_cast<std::size_t>(config_.n_classes));
    std::iota(w.rows.begin(), w.rows.end(), 0);
    return;
  }
  w.entry_slot.resize(labels.size() + sample.negatives.size());
  auto slot = [&](int c) {
    int& s = slot_of_class[static_cast<std::size_t>(c)];
    if (s < 0) {
      s = static_cast<int>(w.rows.size());
      w.rows.push_back(c);
    }
    return s;
  };
  for (std::size_t n = 0; n < labels.size(); ++n) {
    const auto begin = static_cast<std::size_t>(sample.offsets[n]);
    const auto end = static_cast<std::size_t>(sample.offsets[n + 1]);
    const std::size_t e0 = begin + n;
    w.entry_slot[e0] = slot(labels[n]);
    for (std::size_t k = begin; k < end; ++k) w.entry_slot[k + n + 1] = slot(sample.negatives[k]);
  }
  for (int r : w.rows) slot_of_class[static_cast<std::size_t>(r)] = -1;
}

double SoftmaxClassifier::compute(const MatrixD& x, const std::vector<int>& labels, const SoftmaxSample& sample,
                                  Work& w, bool want_gradient, bool stored_rows_current) const {
  const Eigen::Index B = x.rows();
  const double inv_b = 1.0 / static_cast<double>(B);
  const bool hidden = config_.n_hidden > 0;
  const bool bias = config_.bias;
  features(x, w.h);
  double total = 0.0;

  if (!sampled(config_.method)) {
    MatrixD w_eff;
    VectorD b_eff;
    const MatrixD* Wp = &W_;
    const VectorD* bp = &b_;
    if (!stored_rows_current) {
      effective_rows(0, config_.n_classes, w_eff, b_eff);
      Wp = &w_eff;
      bp = &b_eff;
    }
    MatrixD& p = w.scores;  // B × C scores, then probabilities
    p.resize(w.h.rows(), Wp->rows());
    multiply<double>(w.h, *Wp, Transpose::kYes, p);
    if (bias) p.rowwise() += bp->transpose();
    for (Eigen::Index n = 0; n < B; ++n) {
      const double s_c = p(n, labels[static_cast<std::size_t>(n)]);
      const double mx = p.row(n).maxCoeff();
      p.row(n) = (p.row(n).array() - mx).exp().matrix();
      const double sum = p.row(n).sum();
      total += s_c - (mx + std::log(sum));
      p.row(n) /= sum;
    }
    if (want_gradient) {
      // γ = δ − p, scaled by 1/B.
      MatrixD& gamma = p;
      gamma *= -inv_b;
      for (Eigen::Index n = 0; n < B; ++n) gamma(n, labels[static_cast<std::size_t>(n)]) += inv_b;
      w.gW.resize(gamma.cols(), w.h.cols());
      gemm<double>(gamma, Transpose::kYes, w.h, Transpose::kNo, w.gW);
      if (bias) w.gb = gamma.colwise().sum().transpose();
      if (hidden) {
        w.dh.resize(gamma.rows(), Wp->cols());
        multiply<double>(gamma, *Wp, Transpose::kNo, w.dh);
      }
    }
  } else {
    if (want_gradient) {
      w.gW.setZero(static_cast<Eigen::Index>(w.rows.size()), feature_dim_);
      if (bias) w.gb.setZero(static_cast<Eigen::Index>(w.rows.size()));
      if (hidden) w.dh.setZero(B, feature_dim_);
    }
    for (Eigen::Index n = 0; n < B; ++n) {
      const auto nu = static_cast<std::size_t>(n);
      const auto begin = static_cast<std::size_t>(sample.offsets[nu]);
      const std::size_t m = static_cast<std::size_t>(sample.offsets[nu + 1]) - begin;
      const std::size_t e0 = begin + nu;
      w.s.resize(m + 1);
      w.lw.resize(m + 1);
      w.g.resize(m + 1);
      const auto h = w.h.row(n);
      for (std::size_t j = 0; j <= m; ++j) {
        const int slot = w.entry_slot[e0 + j];
        w.s[j] = w.Wg.row(slot).dot(h) + (bias ? w.bg[slot] : 0.0);
      }
      for (std::size_t j = 0; j < m; ++j) w.lw[j] = sample.log_weights[begin + j];
      double g_c = 0.0;
      total += sampled_terms(config_.method, margin_, w.s[0], sample.true_log_weights[nu], w.s.data() + 1, w.lw.data(),
                             m, g_c, w.g.data() + 1);
      w.g[0] = g_c;
      if (!want_gradient) continue;
      for (std::size_t j = 0; j <= m; ++j) {
        const int slot = w.entry_slot[e0 + j];
        const double gamma = w.g[j] * inv_b;
        if (gamma == 0.0) continue;
        w.gW.row(slot) += gamma * h;
        if (bias) w.gb[slot] += gamma;
        if (hidden) w.dh.row(n) += gamma * w.Wg.row(slot);
      }
    }
  }

  if (want_gradient && hidden) {
    // h = tanh(V x + a): dL/d(pre) = dh ⊙ (1 − h²).
    const MatrixD dpre = (w.dh.array() * (1.0 - w.h.array().square())).matrix();
    w.gV.resize(dpre.cols(), x.cols());
    gemm<double>(dpre, Transpose::kYes, x, Transpose::kNo, w.gV);
    w.ga = dpre.colwise().sum().transpose();
  }
  return total * inv_b;
}

double SoftmaxClassifier::objective(const MatrixD& x, const std::vector<int>& labels, const SoftmaxSample& sample,
                                    SoftmaxParams* gradient) const {
  check_batch(x, labels);
  const std::size_t B = labels.size();
  if (sampled(config_.method)) {
    require(sample.offsets.size() == B + 1 && sample.offsets[0] == 0, "softmax: sample does not match the batch");
    for (std::size_t n = 0; n < B; ++n)
      require(sample.offsets[n + 1] >= sample.offsets[n], "softmax: sample offsets must be non-decreasing");
    const auto total = static_cast<std::size_t>(sample.offsets[B]);
    require(sample.negatives.size() == total && sample.log_weights.size() == total &&
                sample.true_log_weights.size() == B,
            "softmax: sample sizes are inconsistent");
    for (int d : sample.negatives) require(d >= 0 && d < config_.n_classes, "softmax: sampled class out of range");
  }
  Work w;
  std::vector<int> slot_map;
  if (sampled(config_.method)) slot_map.assign(static_cast<std::size_t>(config_.n_classes), -1);
  assign_slots(labels, sample, slot_map, w);
  if (sampled(config_.method)) {
    const auto R = static_cast<Eigen::Index>(w.rows.size());
    w.Wg.resize(R, feature_dim_);
    if (config_.bias) w.bg.resize(R);
    MatrixD row;
    VectorD brow;
    for (Eigen::Index i = 0; i < R; ++i) {
      effective_rows(w.rows[static_cast<std::size_t>(i)], 1, row, brow);
      w.Wg.row(i) = row.row(0);
      if (config_.bias) w.bg[i] = brow[0];
    }
  }
  const double value = compute(x, labels, sample, w, gradient != nullptr, all_rows_current());
  if (gradient != nullptr) {
    gradient->W = MatrixD::Zero(config_.n_classes, feature_dim_);
    gradient->b = config_.bias ? VectorD(VectorD::Zero(config_.n_classes)) : VectorD();
    for (std::size_t i = 0; i < w.rows.size(); ++i) {
      const auto slot = static_cast<Eigen::Index>(i);
      gradient->W.row(w.rows[i]) = w.gW.row(slot);
      if (config_.bias) gradient->b[w.rows[i]] = w.gb[slot];
    }
    if (config_.n_hidden > 0) {
      gradient->V = w.gV;
      gradient->a = w.ga;
    } else {
      gradient->V = MatrixD();
      gradient->a = VectorD();
    }
  }
  return value;
}

double SoftmaxClassifier::train_batch(const MatrixD& x, const std::vector<int>& labels) {
  check_batch(x, labels);
  const SoftmaxSample sample = draw_sample(labels);
  Work w;
  // The exact method's C × F gradient and B × C scores reuse the previous update's buffers: allocating them afresh
  // costs page faults on every update, more than the arithmetic at C = 10⁵.
  struct LendScratch {
    Work& work;
    SoftmaxClassifier& model;
    LendScratch(Work& w_, SoftmaxClassifier& m) : work(w_), model(m) {
      work.gW.swap(model.scratch_gradient_.matrix);
      work.scores.swap(model.scratch_scores_.matrix);
    }
    ~LendScratch() {
      work.gW.swap(model.scratch_gradient_.matrix);
      work.scores.swap(model.scratch_scores_.matrix);
    }
    LendScratch(const LendScratch&) = delete;
    LendScratch& operator=(const LendScratch&) = delete;
  } lend(w, *this);
  assign_slots(labels, sample, slot_of_class_, w);
  // Bring the touched rows up to date (the closed form of the momentum steps they missed), then gather them.
  for (int r : w.rows) catch_up_row(r);
  const bool is_sampled = sampled(config_.method);
  if (is_sampled) {
    const auto R = static_cast<Eigen::Index>(w.rows.size());
    w.Wg.resize(R, feature_dim_);
    if (config_.bias) w.bg.resize(R);
    for (Eigen::Index i = 0; i < R; ++i) {
      const int r = w.rows[static_cast<std::size_t>(i)];
      w.Wg.row(i) = W_.row(r);
      if (config_.bias) w.bg[i] = b_[r];
    }
  }
  const double value = compute(x, labels, sample, w, true, true);
  double g_max = 0.0;
  bool finite = std::isfinite(value);
  auto scan = [&](const auto& m) {
    const double* p = m.data();
    for (Eigen::Index i = 0; i < m.size(); ++i) {
      const double a = std::abs(p[i]);
      finite = finite && a <= std::numeric_limits<double>::max();
      g_max = std::max(g_max, a);
    }
  };
  scan(w.gW);
  if (config_.bias) scan(w.gb);
  if (config_.n_hidden > 0) {
    scan(w.gV);
    scan(w.ga);
  }
  if (!finite) throw Error(ErrorCode::kNumeric, "softmax: the gradient is not finite (learning rate too large?)");

  const double lr = config_.learning_rate;
  const double mu = config_.momentum;
  // Running bounds on |θ| and |v| (every entry, pending lazy momentum included) refuse an update that could
  // overflow before anything is written; they are recomputed from the parameters when they get loose.
  double v_bound = mu * velocity_bound_ + lr * g_max;
  if (!(param_bound_ + v_bound < kParameterLimit)) {
    reset_bounds();
    v_bound = mu * velocity_bound_ + lr * g_max;
    if (!(param_bound_ + v_bound < kParameterLimit))
      throw Error(ErrorCode::kNumeric, "softmax: the update would take parameters beyond 1e300 (diverging?)");
  }
  velocity_bound_ = v_bound;
  param_bound_ += v_bound;
  const std::int64_t next = step_ + 1;
  auto update_row = [&](int r, const double* g, double gb) {
    double* v = vW_.row(r).data();
    double* wr = W_.row(r).data();
    for (int j = 0; j < feature_dim_; ++j) {
      v[j] = mu * v[j] + lr * (g != nullptr ? g[j] : 0.0);
      wr[j] += v[j];
    }
    if (config_.bias) {
      vb_[r] = mu * vb_[r] + lr * gb;
      b_[r] += vb_[r];
    }
    last_[static_cast<std::size_t>(r)] = next;
  };
  if (config_.dense_updates && is_sampled) {
    // Reference mode: every row takes its momentum step now (rows are always current in this mode).
    std::vector<int> slot(static_cast<std::size_t>(config_.n_classes), -1);
    for (std::size_t i = 0; i < w.rows.size(); ++i) slot[static_cast<std::size_t>(w.rows[i])] = static_cast<int>(i);
    for (int r = 0; r < config_.n_classes; ++r) {
      const int s = slot[static_cast<std::size_t>(r)];
      if (s >= 0) {
        update_row(r, w.gW.row(s).data(), config_.bias ? w.gb[s] : 0.0);
      } else {
        catch_up_row(r);
        update_row(r, nullptr, 0.0);
      }
    }
  } else {
    for (std::size_t i = 0; i < w.rows.size(); ++i) {
      const auto s = static_cast<Eigen::Index>(i);
      update_row(w.rows[i], w.gW.row(s).data(), config_.bias ? w.gb[s] : 0.0);
    }
  }
  if (config_.n_hidden > 0) {
    vV_ = mu * vV_ + lr * w.gV;
    V_ += vV_;
    va_ = mu * va_ + lr * w.ga;
    a_ += va_;
  }
  step_ = next;
  rows_touched_ = static_cast<int>(w.rows.size());
  return value;
}

template <class Visitor>
void SoftmaxClassifier::visit_scores(const MatrixD& x, Visitor&& visit) const {
  MatrixD h;
  features(x, h);
  const Eigen::Index N = x.rows();
  const Eigen::Index C = config_.n_classes;
  MatrixD w_block;
  VectorD b_block;
  MatrixD s;
  for (Eigen::Index c0 = 0; c0 < C; c0 += kClassBlock) {
    const Eigen::Index nc = std::min(kClassBlock, C - c0);
    effective_rows(static_cast<int>(c0), static_cast<int>(nc), w_block, b_block);
    for (Eigen::Index r0 = 0; r0 < N; r0 += kRowChunk) {
      const Eigen::Index nr = std::min(kRowChunk, N - r0);
      s.resize(nr, w_block.rows());
      multiply<double>(h.middleRows(r0, nr), w_block, Transpose::kYes, s);
      if (config_.bias) s.rowwise() += b_block.transpose();
      visit(r0, nr, c0, s);
    }
  }
}

MatrixD SoftmaxClassifier::log_prob(const MatrixD& x) const {
  require(x.cols() == config_.n_inputs, "softmax: x must have n_inputs columns");
  require(x.allFinite(), "softmax: x has a non-finite entry");
  MatrixD out(x.rows(), config_.n_classes);
  visit_scores(x, [&](Eigen::Index r0, Eigen::Index nr, Eigen::Index c0, const MatrixD& s) {
    out.block(r0, c0, nr, s.cols()) = s;
  });
  for (Eigen::Index n = 0; n < out.rows(); ++n) {
    const double mx = out.row(n).maxCoeff();
    const double lse = mx + std::log((out.row(n).array() - mx).exp().sum());
    out.row(n).array() -= lse;
  }
  return out;
}

VectorD SoftmaxClassifier::log_prob(const MatrixD& x, const std::vector<int>& labels) const {
  check_batch(x, labels);
  const Eigen::Index N = x.rows();
  VectorD mx = VectorD::Constant(N, -std::numeric_limits<double>::infinity());
  VectorD sum = VectorD::Zero(N);
  VectorD s_label(N);
  visit_scores(x, [&](Eigen::Index r0, Eigen::Index nr, Eigen::Index c0, const MatrixD& s) {
    for (Eigen::Index i = 0; i < nr; ++i) {
      const Eigen::Index n = r0 + i;
      const Eigen::Index c = labels[static_cast<std::size_t>(n)] - c0;
      if (c >= 0 && c < s.cols()) s_label[n] = s(i, c);
      const double bm = s.row(i).maxCoeff();
      if (bm > mx[n]) {
        sum[n] = sum[n] * std::exp(mx[n] - bm);
        mx[n] = bm;
      }
      sum[n] += (s.row(i).array() - mx[n]).exp().sum();
    }
  });
  return s_label - (mx.array() + sum.array().log()).matrix();
}

MatrixD SoftmaxClassifier::probabilities(const MatrixD& x) const { return log_prob(x).array().exp().matrix(); }

double SoftmaxClassifier::mean_log_likelihood(const MatrixD& x, const std::vector<int>& labels) const {
  return log_prob(x, labels).mean();
}

double SoftmaxClassifier::error_rate(const MatrixD& x, const std::vector<int>& labels) const {
  require(static_cast<std::int64_t>(labels.size()) == x.rows(), "softmax: one label per row of x needed");
  return zeta::error_rate(predict(x), labels);
}

std::vector<int> SoftmaxClassifier::predict(const MatrixD& x) const {
  require(x.cols() == config_.n_inputs, "softmax: x must have n_inputs columns");
  require(x.allFinite(), "softmax: x has a non-finite entry");
  const auto N = static_cast<std::size_t>(x.rows());
  std::vector<int> best(N, 0);
  std::vector<double> best_score(N, -std::numeric_limits<double>::infinity());
  visit_scores(x, [&](Eigen::Index r0, Eigen::Index nr, Eigen::Index c0, const MatrixD& s) {
    for (Eigen::Index i = 0; i < nr; ++i) {
      Eigen::Index arg;
      const double v = s.row(i).maxCoeff(&arg);
      const auto n = static_cast<std::size_t>(r0 + i);
      if (v > best_score[n]) {
        best_score[n] = v;
        best[n] = static_cast<int>(c0 + arg);
      }
    }
  });
  return best;
}

SoftmaxParams SoftmaxClassifier::parameters() const {
  SoftmaxParams p;
  effective_rows(0, config_.n_classes, p.W, p.b);
  if (!config_.bias) p.b = VectorD();
  p.V = V_;
  p.a = a_;
  return p;
}

void SoftmaxClassifier::set_parameters(const SoftmaxParams& p) {
  const Eigen::Index C = config_.n_classes;
  require(p.W.rows() == C && p.W.cols() == feature_dim_, "softmax: W must be n_classes x feature_dim");
  require(config_.bias ? p.b.size() == C : p.b.size() == 0,
          "softmax: b must have n_classes entries (empty without bias)");
  if (config_.n_hidden > 0) {
    require(p.V.rows() == config_.n_hidden && p.V.cols() == config_.n_inputs, "softmax: V must be n_hidden x n_inputs");
    require(p.a.size() == config_.n_hidden, "softmax: a must have n_hidden entries");
  } else {
    require(p.V.size() == 0 && p.a.size() == 0, "softmax: V and a must be empty without a hidden layer");
  }
  require(p.W.allFinite() && p.b.allFinite() && p.V.allFinite() && p.a.allFinite(),
          "softmax: parameters must be finite");
  W_ = p.W;
  vW_.setZero();
  if (config_.bias) {
    b_ = p.b;
    vb_.setZero();
  }
  if (config_.n_hidden > 0) {
    V_ = p.V;
    a_ = p.a;
    vV_.setZero();
    va_.setZero();
  }
  std::fill(last_.begin(), last_.end(), step_);
  reset_bounds();
}

}  // namespace zeta
