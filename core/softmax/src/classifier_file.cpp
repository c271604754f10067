// The softmax classifier's serialised form and model files (classifier.hpp): configuration, generator, class
// counts, parameters and momentum, read back with every size and value checked before use.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "zeta/base/error.hpp"
#include "zeta/base/model_file.hpp"
#include "zeta/softmax/classifier.hpp"

#include "softmax_detail.hpp"

namespace zeta {

using softmax_detail::validate_config;

namespace {

constexpr std::uint32_t kSoftmaxLayout = 1;

}  // namespace

Bytes SoftmaxClassifier::serialize() const {
  ByteWriter out;
  out.u32(kSoftmaxLayout);
  out.i32(config_.n_inputs);
  out.i32(config_.n_classes);
  out.i32(config_.n_hidden);
  out.u8(config_.bias ? 1 : 0);
  out.i32(static_cast<std::int32_t>(config_.method));
  out.i32(config_.n_negatives);
  out.f64(config_.learning_rate);
  out.f64(config_.momentum);
  out.f64(config_.proposal_power);
  out.f64(config_.ranking_margin);
  out.f64(config_.frequency_smoothing);
  out.f64(config_.init_sd);
  out.u8(config_.dense_updates ? 1 : 0);
  out.u64(config_.seed);
  out.i64(step_);
  std::uint64_t state[4];
  rng_.get_state(state);
  for (std::uint64_t s : state) out.u64(s);
  for (std::int64_t n : counts_) out.i64(n);
  auto write = [&](const auto& m) { out.f64s(m.data(), static_cast<std::size_t>(m.size())); };
  write(W_);
  write(b_);
  write(V_);
  write(a_);
  write(vW_);
  write(vb_);
  write(vV_);
  write(va_);
  for (std::int64_t t : last_) out.i64(t);
  return wrap_payload(ObjectKind::kSoftmax, out.take());
}

SoftmaxClassifier SoftmaxClassifier::deserialize(const std::uint8_t* data, std::size_t size) {
  const Bytes payload = unwrap_payload(data, size, ObjectKind::kSoftmax);
  ByteReader in(payload.data(), payload.size());
  auto bad = [](const std::string& what) { return Error(ErrorCode::kFormat, "softmax: " + what); };
  if (in.u32() != kSoftmaxLayout) throw bad("unsupported payload layout");
  SoftmaxConfig c;
  c.n_inputs = in.i32();
  c.n_classes = in.i32();
  c.n_hidden = in.i32();
  const std::uint8_t bias = in.u8();
  const std::int32_t method = in.i32();
  if (bias > 1) throw bad("bad bias flag");
  if (method < 0 || method > static_cast<std::int32_t>(SoftmaxMethod::kBlackOut)) throw bad("unknown method");
  c.bias = bias == 1;
  c.method = static_cast<SoftmaxMethod>(method);
  c.n_negatives = in.i32();
  c.learning_rate = in.f64();
  c.momentum = in.f64();
  c.proposal_power = in.f64();
  c.ranking_margin = in.f64();
  c.frequency_smoothing = in.f64();
  c.init_sd = in.f64();
  const std::uint8_t dense = in.u8();
  if (dense > 1) throw bad("bad dense_updates flag");
  c.dense_updates = dense == 1;
  c.seed = in.u64();
  try {
    validate_config(c);
  } catch (const Error& e) {
    throw bad(std::string("invalid configuration: ") + e.what());
  }
  // Check the sizes against the bytes left before allocating anything.
  const auto C = static_cast<std::uint64_t>(c.n_classes);
  const auto D = static_cast<std::uint64_t>(c.n_inputs);
  const auto H = static_cast<std::uint64_t>(c.n_hidden);
  const std::uint64_t F = H > 0 ? H : D;
  // step, generator state, counts, parameters and velocities, row update counts (all 8-byte words).
  const double approx_words = 1.0 + 4.0 + 2.0 * static_cast<double>(C) +
                              2.0 * (static_cast<double>(C) * static_cast<double>(F) +
                                     (c.bias ? static_cast<double>(C) : 0.0) +
                                     static_cast<double>(H) * static_cast<double>(D) + static_cast<double>(H));
  if (approx_words > static_cast<double>(in.remaining()) / 8.0 + 1.0) throw bad("payload is too short for its shape");
  const std::uint64_t words = 1 + 4 + 2 * C + 2 * (C * F + (c.bias ? C : 0) + H * D + H);
  if (in.remaining() != words * 8) throw bad("payload size does not match the shape");

  // A configuration can pass validation and still give no sampling distribution (e.g. f^proposal_power
  // underflowing for every class): that is malformed data too.
  auto no_samplers = [&](const Error& e) {
    return bad(std::string("class counts give no valid sampling distribution: ") + e.what());
  };
  auto make = [&]() {
    try {
      return SoftmaxClassifier(c, NoInit{});
    } catch (const Error& e) {
      if (e.code() == ErrorCode::kArgument) throw no_samplers(e);
      throw;
    }
  };
  SoftmaxClassifier model = make();
  model.step_ = in.i64();
  if (model.step_ < 0) throw bad("negative update count");
  std::uint64_t state[4];
  for (auto& s : state) s = in.u64();
  model.rng_.set_state(state);
  std::vector<std::int64_t> counts(static_cast<std::size_t>(C));
  for (auto& n : counts) {
    n = in.i64();
    if (n < 0) throw bad("negative class count");
  }
  model.counts_ = std::move(counts);
  try {
    model.rebuild_samplers();
  } catch (const Error& e) {  // counts, smoothing and proposal power that no sampler accepts
    if (e.code() == ErrorCode::kArgument) throw no_samplers(e);
    throw;
  }
  auto read = [&](auto& m) {
    in.f64s(m.data(), static_cast<std::size_t>(m.size()));
    if (!m.allFinite()) throw bad("non-finite parameter");
  };
  read(model.W_);
  read(model.b_);
  read(model.V_);
  read(model.a_);
  read(model.vW_);
  read(model.vb_);
  read(model.vV_);
  read(model.va_);
  for (auto& t : model.last_) {
    t = in.i64();
    if (t < 0 || t > model.step_) throw bad("row update count out of range");
  }
  in.expect_end();
  model.reset_bounds();
  return model;
}

void SoftmaxClassifier::save(const std::string& path) const { write_file_atomic(path, serialize()); }

SoftmaxClassifier SoftmaxClassifier::load(const std::string& path) {
  return load_model_file(path, [](const Bytes& bytes) { return SoftmaxClassifier::deserialize(bytes); });
}

}  // namespace zeta
