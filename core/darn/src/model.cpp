// The DARN model (model.hpp): its structure and parameter blocks, log p(x, h) and log q(h | x), exact likelihoods
// by enumerating the hidden configurations, importance-sampled ones, and ancestral sampling. The batch arithmetic
// is in network_math.hpp and layer_math.hpp.
#include "zeta/darn/model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "network_math.hpp"
#include "zeta/base/detail/gemm.hpp"
#include "zeta/base/error.hpp"

namespace zeta {

using darn_detail::NetworkMirror;

namespace {

constexpr std::uint32_t kDarnLayout = 1;
// Hidden configurations scored together by exact enumeration, and importance draws by sampling (fixed, so
// results do not depend on anything but the seed).
constexpr Eigen::Index kConfigChunk = 1024;
constexpr Eigen::Index kSampleBlock = 4096;

// The prefix of a conditional's blocks: the index names the layer it generates, omitted for the lowest.
std::string decoder_prefix(int l) { return l == 0 ? "decoder" : "decoder" + std::to_string(l); }
std::string encoder_prefix(int k) { return k == 1 ? "encoder" : "encoder" + std::to_string(k); }

std::uint64_t checked_product(std::uint64_t a, std::uint64_t b) {
  if (a != 0 && b > std::numeric_limits<std::uint64_t>::max() / a) return std::numeric_limits<std::uint64_t>::max();
  return a * b;
}

// The hidden layers of configurations first … first + count − 1 into h (its matrices reused when their shapes
// fit): bit b of the index is unit b of the hidden units taken in order h⁽¹⁾, h⁽²⁾, ….
void configurations(const DarnStructure& s, std::int64_t first, Eigen::Index count, std::vector<MatrixD>& h) {
  h.resize(static_cast<std::size_t>(s.n_stochastic()));
  int bit = 0;
  for (int k = 1; k <= s.n_stochastic(); ++k) {
    const int n = s.sizes[static_cast<std::size_t>(k)];
    MatrixD& m = h[static_cast<std::size_t>(k - 1)];
    m.resize(count, n);
    for (Eigen::Index c = 0; c < count; ++c) {
      const std::uint64_t index = static_cast<std::uint64_t>(first + c);
      for (int j = 0; j < n; ++j) m(c, j) = static_cast<double>((index >> (bit + j)) & 1u);
    }
    bit += n;
  }
}

// The conditionals a structure has: decoders l = 0 … L−1, then the prior, then encoders k = 1 … L.
struct LayerShape {
  int n_in;
  int n_out;
  bool hidden;
  bool autoregressive;
};
std::vector<LayerShape> layer_shapes(const DarnStructure& s) {
  const int L = s.n_stochastic();
  const bool det = s.deterministic > 0;
  auto size = [&](int k) { return s.sizes[static_cast<std::size_t>(k)]; };
  std::vector<LayerShape> out;
  for (int l = 0; l < L; ++l) out.push_back({size(l + 1), size(l), det, l >= 1 || s.autoregressive_visible});
  out.push_back({0, size(L), false, true});
  for (int k = 1; k <= L; ++k) out.push_back({size(k - 1), size(k), det, s.autoregressive_encoder});
  return out;
}

void check_rows(const Darn& m, const MatrixD& x, const char* what) {
  require(x.rows() > 0, std::string(what) + ": no rows");
  require(x.cols() == m.n_visible(), std::string(what) + ": x has " + std::to_string(x.cols()) +
                                         " columns, the model " + std::to_string(m.n_visible()) + " visible units");
  require(is_binary(x), std::string(what) + ": x must hold only 0 and 1");
}

bool report(const ProgressCallback& progress, const char* stage, std::int64_t done, std::int64_t total, double value) {
  if (!progress) return true;
  Progress p;
  p.stage = stage;
  p.done = done;
  p.total = total;
  p.value = value;
  return progress(p);
}

}  // namespace

int DarnStructure::hidden_bits() const {
  int bits = 0;
  for (std::size_t k = 1; k < sizes.size(); ++k) bits += sizes[k];
  return bits;
}

void Darn::validate_structure(const DarnStructure& s, ErrorCode code) {
  const auto n = static_cast<int>(s.sizes.size());
  require(n >= 2 && n <= kDarnMaxLayers,
          "DARN needs 2 to " + std::to_string(kDarnMaxLayers) + " layer sizes (x and at least one hidden layer), got " +
              std::to_string(n),
          code);
  for (int k = 0; k < n; ++k) {
    require(s.sizes[static_cast<std::size_t>(k)] >= 1,
            "DARN layer " + std::to_string(k) + " must have at least one unit", code);
  }
  require(s.deterministic >= 0, "DARN deterministic units must be >= 0", code);
  // Every weight matrix must be addressable: n_out × n_in below 2^40 entries.
  std::uint64_t total = 0;
  const std::uint64_t det = static_cast<std::uint64_t>(s.deterministic);
  for (int k = 0; k + 1 < n; ++k) {
    const auto lo = static_cast<std::uint64_t>(s.sizes[static_cast<std::size_t>(k)]);
    const auto hi = static_cast<std::uint64_t>(s.sizes[static_cast<std::size_t>(k + 1)]);
    const std::uint64_t per = det ? checked_product(lo + hi, det) : checked_product(lo, hi);
    total += 2 * per + checked_product(std::max(lo, hi), std::max(lo, hi));
    require(total < (std::uint64_t{1} << 40), "DARN is too large", code);
  }
}

Darn::Darn(const DarnStructure& structure) : structure_(structure) {
  validate_structure(structure_);
  allocate();
}

Darn::Darn(const DarnStructure& structure, Rng& rng) : Darn(structure) {
  // W and U uniform on ±1/√fan-in, in block order; everything else stays 0.
  for_each_block(*this, [&](const DarnBlockInfo& info, auto& storage) {
    const bool weight = info.name.size() > 7 && info.name.compare(info.name.size() - 7, 7, ".weight") == 0 &&
                        !info.strictly_lower;
    if (!weight || info.cols == 0) return;
    const double bound = 1.0 / std::sqrt(static_cast<double>(info.cols));
    double* p = storage.data();
    for (Eigen::Index i = 0; i < storage.size(); ++i) p[i] = bound * (2.0 * rng.uniform() - 1.0);
  });
}

void Darn::allocate() {
  const int L = structure_.n_stochastic();
  const int det = structure_.deterministic;
  std::vector<StochasticLayer> layers;
  for (const LayerShape& shape : layer_shapes(structure_)) {
    StochasticLayer layer;
    if (shape.hidden) {
      layer.hidden_weight = MatrixD::Zero(det, shape.n_in);
      layer.hidden_bias = VectorD::Zero(det);
    }
    layer.weight = MatrixD::Zero(shape.n_out, shape.hidden ? det : shape.n_in);
    layer.bias = VectorD::Zero(shape.n_out);
    if (shape.autoregressive) layer.autoregressive = MatrixD::Zero(shape.n_out, shape.n_out);
    layers.push_back(std::move(layer));
  }
  decoders_.assign(layers.begin(), layers.begin() + L);
  prior_ = layers[static_cast<std::size_t>(L)];
  encoders_.assign(layers.begin() + L + 1, layers.end());
}

template <class Self, class Visit>
void Darn::for_each_block(Self& self, Visit&& visit) {
  auto layer_blocks = [&](const std::string& prefix, auto& layer, bool is_prior) {
    auto info = [&](const std::string& suffix, Eigen::Index rows, Eigen::Index cols, bool lower) {
      return DarnBlockInfo{prefix + "." + suffix, static_cast<std::int64_t>(rows), static_cast<std::int64_t>(cols),
                           lower};
    };
    visit(info("bias", layer.bias.size(), 1, false), layer.bias);
    if (is_prior) {
      visit(info("weight", layer.autoregressive.rows(), layer.autoregressive.cols(), true), layer.autoregressive);
      return;
    }
    visit(info("weight", layer.weight.rows(), layer.weight.cols(), false), layer.weight);
    if (layer.hidden_bias.size() > 0) {
      visit(info("hidden.bias", layer.hidden_bias.size(), 1, false), layer.hidden_bias);
      visit(info("hidden.weight", layer.hidden_weight.rows(), layer.hidden_weight.cols(), false), layer.hidden_weight);
    }
    if (layer.autoregressive.size() > 0) {
      visit(info("autoregressive", layer.autoregressive.rows(), layer.autoregressive.cols(), true),
            layer.autoregressive);
    }
  };
  const int L = self.structure_.n_stochastic();
  layer_blocks("prior", self.prior_, true);
  for (int l = L - 1; l >= 0; --l) layer_blocks(decoder_prefix(l), self.decoders_[static_cast<std::size_t>(l)], false);
  for (int k = 1; k <= L; ++k) layer_blocks(encoder_prefix(k), self.encoders_[static_cast<std::size_t>(k - 1)], false);
}

std::vector<DarnBlockInfo> Darn::blocks() const {
  std::vector<DarnBlockInfo> out;
  for_each_block(*this, [&](const DarnBlockInfo& info, const auto&) { out.push_back(info); });
  return out;
}

std::int64_t Darn::parameter_count() const {
  std::int64_t n = 0;
  for_each_block(*this, [&](const DarnBlockInfo& info, const auto&) { n += info.rows * info.cols; });
  return n;
}

std::vector<std::pair<const double*, std::int64_t>> Darn::parameter_spans() const {
  std::vector<std::pair<const double*, std::int64_t>> out;
  for_each_block(*this, [&](const DarnBlockInfo&, const auto& m) {
    out.emplace_back(m.data(), static_cast<std::int64_t>(m.size()));
  });
  return out;
}

std::vector<std::pair<double*, std::int64_t>> Darn::mutable_parameter_spans() {
  std::vector<std::pair<double*, std::int64_t>> out;
  for_each_block(*this, [&](const DarnBlockInfo&, auto& m) {
    out.emplace_back(m.data(), static_cast<std::int64_t>(m.size()));
  });
  return out;
}

void Darn::get_block(const std::string& name, double* out, std::int64_t n) const {
  bool found = false;
  for_each_block(*this, [&](const DarnBlockInfo& info, const auto& m) {
    if (info.name != name) return;
    found = true;
    require(n == info.rows * info.cols, "block '" + name + "' has " + std::to_string(info.rows * info.cols) +
                                            " entries, got room for " + std::to_string(n));
    std::copy(m.data(), m.data() + m.size(), out);
  });
  require(found, "unknown DARN parameter block '" + name + "'");
}

void Darn::set_block(const std::string& name, const double* values, std::int64_t n) {
  bool found = false;
  for_each_block(*this, [&](const DarnBlockInfo& info, auto& m) {
    if (info.name != name) return;
    found = true;
    require(n == info.rows * info.cols,
            "block '" + name + "' has " + std::to_string(info.rows * info.cols) + " entries, got " + std::to_string(n));
    for (std::int64_t i = 0; i < n; ++i) {
      require(std::isfinite(values[i]), "block '" + name + "': entry " + std::to_string(i) + " is not finite");
    }
    if (info.strictly_lower) {
      for (std::int64_t j = 0; j < info.rows; ++j) {
        for (std::int64_t i = j; i < info.cols; ++i) {
          require(values[j * info.cols + i] == 0.0, "block '" + name + "' is strictly lower triangular: entry (" +
                                                        std::to_string(j) + ", " + std::to_string(i) + ") must be 0");
        }
      }
    }
    std::copy(values, values + n, m.data());
  });
  require(found, "unknown DARN parameter block '" + name + "'");
}

void Darn::validate(ErrorCode code) const {
  validate_structure(structure_, code);
  for_each_block(*this, [&](const DarnBlockInfo& info, const auto& m) {
    require(m.allFinite(), "DARN block '" + info.name + "' holds non-finite values", code);
    if (!info.strictly_lower) return;
    for (std::int64_t j = 0; j < info.rows; ++j) {
      for (std::int64_t i = j; i < info.cols; ++i) {
        require(m.data()[j * info.cols + i] == 0.0, "DARN block '" + info.name + "' is not strictly lower triangular",
                code);
      }
    }
  });
}

VectorD Darn::log_joint(const MatrixD& x, const std::vector<MatrixD>& h) const {
  NetworkMirror<double> net;
  net.sync(*this);
  return darn_detail::log_joint(net, x, h);
}

VectorD Darn::log_encoder(const MatrixD& x, const std::vector<MatrixD>& h) const {
  NetworkMirror<double> net;
  net.sync(*this);
  return darn_detail::log_encoder(net, x, h);
}

std::vector<MatrixD> Darn::sample_encoder(const MatrixD& x, Rng& rng) const {
  NetworkMirror<double> net;
  net.sync(*this);
  return darn_detail::sample_encoder(net, x, rng);
}

VectorD Darn::log_prob_exact(const MatrixD& x, const ProgressCallback& progress) const {
  check_rows(*this, x, "exact log p(x)");
  const int bits = structure_.hidden_bits();
  if (bits > kDarnMaxExactHiddenBits) {
    throw Error(ErrorCode::kUnsupported, "exact log p(x) enumerates 2^" + std::to_string(bits) +
                                             " hidden configurations; at most 2^" +
                                             std::to_string(kDarnMaxExactHiddenBits) + " are supported");
  }
  NetworkMirror<double> net;
  net.sync(*this);
  const std::int64_t total = std::int64_t{1} << bits;
  const Eigen::Index rows = x.rows();
  std::vector<LogSumExp> sums(static_cast<std::size_t>(rows));
  const auto& bottom = net.decoders[0];
  // Kept from chunk to chunk (all chunks but a last one have one shape): fresh ones page-faulted megabytes in.
  std::vector<MatrixD> h;
  darn_detail::NetworkPass<double> pass;
  MatrixD zeros;
  MatrixD scores;
  // With autoregression on x, a(x, h) = a(h) + A·x, whose second term depends on the row only.
  const MatrixD ar = bottom.ar ? product<double>(x, Transpose::kNo, bottom.autoregressive_t, Transpose::kNo)
                               : MatrixD();
  Eigen::ArrayXd a(n_visible());
  for (std::int64_t first = 0; first < total; first += kConfigChunk) {
    const Eigen::Index count = static_cast<Eigen::Index>(std::min<std::int64_t>(kConfigChunk, total - first));
    configurations(structure_, first, count, h);
    // log p(h) of the layers above x (one value per configuration); then log p(x | h⁽¹⁾) for every row.
    // Scoring the whole joint with x = 0 gives every layer's pass; the x term is redone below per row.
    zeros.setZero(count, n_visible());
    const VectorD joint = darn_detail::log_joint(net, zeros, h, &pass);  // fills pass before it is read below
    const VectorD upper = joint - darn_detail::bernoulli_log_prob(pass.decoders[0].a, zeros);
    const MatrixD& base = pass.decoders[0].a;  // x = 0, so no autoregressive term: the base pre-activations
    if (!bottom.ar) {
      // log p(x | h) = x·a(h) − Σ_k softplus(a_k(h)): one product for every (row, configuration) pair.
      VectorD softplus_sums(count);
      for (Eigen::Index c = 0; c < count; ++c) softplus_sums[c] = softplus_array(base.row(c).array()).sum();
      scores.resize(rows, count);
      multiply<double>(x, base, Transpose::kYes, scores);
      for (Eigen::Index r = 0; r < rows; ++r) {
        for (Eigen::Index c = 0; c < count; ++c) {
          sums[static_cast<std::size_t>(r)].add(scores(r, c) - softplus_sums[c] + upper[c]);
        }
      }
    } else {
      for (Eigen::Index r = 0; r < rows; ++r) {
        for (Eigen::Index c = 0; c < count; ++c) {
          a = (base.row(c) + ar.row(r)).transpose().array();
          const double lp = (x.row(r).transpose().array() * a).sum() - softplus_array(a).sum();
          sums[static_cast<std::size_t>(r)].add(lp + upper[c]);
        }
      }
    }
    if (!report(progress, "exact log p(x)", first + count, total, std::numeric_limits<double>::quiet_NaN())) {
      throw Error(ErrorCode::kCancelled, "exact log p(x) cancelled");
    }
  }
  VectorD out(rows);
  for (Eigen::Index r = 0; r < rows; ++r) out[r] = sums[static_cast<std::size_t>(r)].value();
  return out;
}

namespace {

// Per-row log weights log p(x, h) − log q(h | x) for `samples` draws each, visited block by block: visit(row,
// log weights of some of its draws). The rows' draws follow each other in blocks of kSampleBlock, so every
// block but the last has one shape and reuses the buffers (a short last block per row reallocated them twice per
// row), and few draws per row (the bound's 10) still fill a block instead of running 10-row products.
template <class S, class Visit>
void importance_draws(const Darn& m, const MatrixD& x, std::int64_t samples, Rng& rng, Visit&& visit,
                      const ProgressCallback& progress, const char* stage) {
  NetworkMirror<S> net;
  net.sync(m);
  const Mat<S> xs = x.cast<S>();
  const std::int64_t total = static_cast<std::int64_t>(x.rows()) * samples;
  Mat<S> rep;
  std::vector<Mat<S>> h;
  darn_detail::NetworkPass<S> pass;
  for (std::int64_t first = 0; first < total; first += kSampleBlock) {
    const Eigen::Index count = static_cast<Eigen::Index>(std::min<std::int64_t>(kSampleBlock, total - first));
    // Calls f(data row, first draw in the block, draws) for each data row the block holds draws of.
    const auto for_each_row = [&](const auto& f) {
      for (Eigen::Index i = 0; i < count;) {
        const std::int64_t row = (first + i) / samples;
        const auto end = static_cast<Eigen::Index>(std::min<std::int64_t>(count, (row + 1) * samples - first));
        f(static_cast<Eigen::Index>(row), i, end - i);
        i = end;
      }
    };
    rep.resize(count, xs.cols());
    for_each_row(
        [&](Eigen::Index row, Eigen::Index i, Eigen::Index n) { rep.middleRows(i, n) = xs.row(row).replicate(n, 1); });
    darn_detail::sample_encoder(net, rep, rng, h, &pass);
    const VectorD log_w = darn_detail::log_joint(net, rep, h, &pass) - darn_detail::log_encoder(net, rep, h, &pass);
    for_each_row([&](Eigen::Index row, Eigen::Index i, Eigen::Index n) { visit(row, log_w.segment(i, n)); });
    if (!report(progress, stage, first + count, total, std::numeric_limits<double>::quiet_NaN())) {
      throw Error(ErrorCode::kCancelled, std::string(stage) + " cancelled");
    }
  }
}

}  // namespace

void Darn::log_prob_importance(const MatrixD& x, std::int64_t samples, Rng& rng, VectorD& log_prob, VectorD& std_err,
                               const ProgressCallback& progress, bool single_precision) const {
  check_rows(*this, x, "importance-sampled log p(x)");
  require(samples >= 2, "importance sampling needs at least 2 samples per row");
  const Eigen::Index rows = x.rows();
  std::vector<LogSumExp> w(static_cast<std::size_t>(rows)), w2(static_cast<std::size_t>(rows));
  auto visit = [&](Eigen::Index r, const auto& log_w) {
    for (Eigen::Index s = 0; s < log_w.size(); ++s) {
      w[static_cast<std::size_t>(r)].add(log_w[s]);
      w2[static_cast<std::size_t>(r)].add(2.0 * log_w[s]);
    }
  };
  if (single_precision) {
    importance_draws<float>(*this, x, samples, rng, visit, progress, "importance sampling");
  } else {
    importance_draws<double>(*this, x, samples, rng, visit, progress, "importance sampling");
  }
  const double n = static_cast<double>(samples);
  log_prob.resize(rows);
  std_err.resize(rows);
  for (Eigen::Index r = 0; r < rows; ++r) {
    const double log_mean = w[static_cast<std::size_t>(r)].value() - std::log(n);
    const double log_mean_sq = w2[static_cast<std::size_t>(r)].value() - std::log(n);
    // Var(w)/mean² = (E w² / (E w)² − 1) · n/(n − 1); its square root over √n is the delta-method error.
    const double ratio = std::max(0.0, std::exp(log_mean_sq - 2.0 * log_mean) - 1.0) * n / (n - 1.0);
    log_prob[r] = log_mean;
    std_err[r] = std::sqrt(ratio / n);
  }
}

VectorD Darn::description_length(const MatrixD& x, std::int64_t samples, Rng& rng, bool single_precision) const {
  check_rows(*this, x, "description length");
  require(samples >= 1, "description length needs at least 1 sample per row");
  VectorD total = VectorD::Zero(x.rows());
  auto visit = [&](Eigen::Index r, const auto& log_w) { total[r] -= log_w.sum(); };
  if (single_precision) {
    importance_draws<float>(*this, x, samples, rng, visit, nullptr, "description length");
  } else {
    importance_draws<double>(*this, x, samples, rng, visit, nullptr, "description length");
  }
  return total / static_cast<double>(samples);
}

VectorD Darn::description_length_exact(const MatrixD& x) const {
  check_rows(*this, x, "exact description length");
  const int bits = structure_.hidden_bits();
  if (bits > kDarnMaxExactHiddenBits) {
    throw Error(ErrorCode::kUnsupported, "the exact description length enumerates 2^" + std::to_string(bits) +
                                             " hidden configurations; at most 2^" +
                                             std::to_string(kDarnMaxExactHiddenBits) + " are supported");
  }
  NetworkMirror<double> net;
  net.sync(*this);
  const std::int64_t total = std::int64_t{1} << bits;
  VectorD out = VectorD::Zero(x.rows());
  std::vector<MatrixD> h;
  for (std::int64_t first = 0; first < total; first += kConfigChunk) {
    const Eigen::Index count = static_cast<Eigen::Index>(std::min<std::int64_t>(kConfigChunk, total - first));
    configurations(structure_, first, count, h);
    for (Eigen::Index r = 0; r < x.rows(); ++r) {
      const MatrixD rep = x.row(r).replicate(count, 1);
      const VectorD log_q = darn_detail::log_encoder(net, rep, h);
      const VectorD log_p = darn_detail::log_joint(net, rep, h);
      out[r] += (log_q.array().exp() * (log_q - log_p).array()).sum();
    }
  }
  return out;
}

MatrixD Darn::sample(std::int64_t n, Rng& rng, bool single_precision) const {
  require(n >= 1, "sample: n must be positive");
  if (single_precision) {
    NetworkMirror<float> net;
    net.sync(*this);
    return darn_detail::sample_network(net, static_cast<Eigen::Index>(n), rng).cast<double>();
  }
  NetworkMirror<double> net;
  net.sync(*this);
  return darn_detail::sample_network(net, static_cast<Eigen::Index>(n), rng);
}

void Darn::serialize_into(ByteWriter& w) const {
  validate(ErrorCode::kArgument);
  w.u32(kDarnLayout);
  w.i32(static_cast<std::int32_t>(structure_.sizes.size()));
  for (int s : structure_.sizes) w.i32(s);
  w.i32(structure_.deterministic);
  w.u8(structure_.autoregressive_visible ? 1 : 0);
  w.u8(structure_.autoregressive_encoder ? 1 : 0);
  for_each_block(*this,
                 [&](const DarnBlockInfo&, const auto& m) { w.f64s(m.data(), static_cast<std::size_t>(m.size())); });
}

Darn Darn::deserialize_from(ByteReader& r) {
  const std::uint32_t layout = r.u32();
  if (layout != kDarnLayout) throw Error(ErrorCode::kFormat, "unsupported DARN layout " + std::to_string(layout));
  const std::int32_t n = r.i32();
  if (n < 2 || n > kDarnMaxLayers) throw Error(ErrorCode::kFormat, "DARN layer count out of range");
  Darn m;
  m.structure_.sizes.resize(static_cast<std::size_t>(n));
  for (auto& s : m.structure_.sizes) s = r.i32();
  m.structure_.deterministic = r.i32();
  const std::uint8_t ar_visible = r.u8();
  const std::uint8_t ar_encoder = r.u8();
  if (ar_visible > 1 || ar_encoder > 1) throw Error(ErrorCode::kFormat, "DARN flags must be 0 or 1");
  m.structure_.autoregressive_visible = ar_visible == 1;
  m.structure_.autoregressive_encoder = ar_encoder == 1;
  validate_structure(m.structure_, ErrorCode::kFormat);
  // Count the parameters the structure declares before allocating them: a corrupt size cannot ask for more
  // memory than the data holds.
  std::uint64_t doubles = 0;
  const auto det = static_cast<std::uint64_t>(m.structure_.deterministic);
  for (const LayerShape& shape : layer_shapes(m.structure_)) {
    const auto n_in = static_cast<std::uint64_t>(shape.n_in);
    const auto n_out = static_cast<std::uint64_t>(shape.n_out);
    doubles += n_out + checked_product(n_out, shape.hidden ? det : n_in);
    if (shape.hidden) doubles += det + checked_product(det, n_in);
    if (shape.autoregressive) doubles += checked_product(n_out, n_out);
  }
  if (doubles > r.remaining() / 8) throw Error(ErrorCode::kFormat, "DARN data is truncated");
  m.allocate();
  for_each_block(m, [&](const DarnBlockInfo&, auto& storage) {
    r.f64s(storage.data(), static_cast<std::size_t>(storage.size()));
  });
  m.validate(ErrorCode::kFormat);
  return m;
}

}  // namespace zeta
