// DARN model files (trainer.hpp): the model followed by its trainer's settings and state (step count, generator,
// optimiser moments, REINFORCE baseline, weight noise), written so that training resumes exactly and read back
// with every value checked.
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "zeta/base/error.hpp"
#include "zeta/base/model_file.hpp"
#include "zeta/darn/trainer.hpp"

namespace zeta {

namespace {

constexpr std::uint32_t kTrainerLayout = 1;

}  // namespace

void DarnTrainer::serialize_into(ByteWriter& w) const {
  w.u32(kTrainerLayout);
  w.f64(config_.learning_rate);
  w.f64(config_.rmsprop_decay);
  w.f64(config_.momentum);
  w.i32(static_cast<std::int32_t>(config_.estimator));
  w.f64(config_.sparsity);
  w.f64(config_.sparsity_weight);
  w.u8(config_.single_precision ? 1 : 0);
  w.u64(config_.seed);
  w.u8(config_.weight_noise ? 1 : 0);
  w.f64(config_.weight_noise_init);
  w.i64(config_.weight_noise_examples);
  w.i64(steps_);
  std::uint64_t state[4];
  rng_.get_state(state);
  for (auto s : state) w.u64(s);
  for (const VectorD* v : {&mean_square_, &mean_, &step_, &baseline_weight_, &baseline_state_}) {
    w.f64s(v->data(), static_cast<std::size_t>(v->size()));
  }
  w.f64(baseline_bias_);
  w.f64(signal_mean_);
  w.f64(signal_variance_);
  w.u8(signal_started_ ? 1 : 0);
  if (config_.weight_noise) {
    for (const VectorD* v : {&log_sigma_, &noise_mean_square_, &noise_mean_, &noise_step_}) {
      w.f64s(v->data(), static_cast<std::size_t>(v->size()));
    }
  }
}

DarnTrainerConfig DarnTrainer::read_settings(ByteReader& r) {
  const std::uint32_t layout = r.u32();
  if (layout != kTrainerLayout) throw Error(ErrorCode::kFormat, "unsupported DARN trainer layout");
  DarnTrainerConfig c;
  c.learning_rate = r.f64();
  c.rmsprop_decay = r.f64();
  c.momentum = r.f64();
  c.estimator = static_cast<DarnEstimator>(r.i32());
  c.sparsity = r.f64();
  c.sparsity_weight = r.f64();
  const std::uint8_t single = r.u8();
  if (single > 1) throw Error(ErrorCode::kFormat, "DARN precision flag must be 0 or 1");
  c.single_precision = single == 1;
  c.seed = r.u64();
  const std::uint8_t noise = r.u8();
  if (noise > 1) throw Error(ErrorCode::kFormat, "DARN weight-noise flag must be 0 or 1");
  c.weight_noise = noise == 1;
  c.weight_noise_init = r.f64();
  c.weight_noise_examples = r.i64();
  validate(c, ErrorCode::kFormat);
  return c;
}

void DarnTrainer::restore_state(ByteReader& r) {
  const std::int64_t steps = r.i64();
  if (steps < 0) throw Error(ErrorCode::kFormat, "DARN step count is negative");
  std::uint64_t state[4];
  for (auto& s : state) s = r.u64();
  const std::uint64_t doubles = 3 * static_cast<std::uint64_t>(mean_square_.size()) +
                                static_cast<std::uint64_t>(baseline_weight_.size()) +
                                static_cast<std::uint64_t>(baseline_state_.size()) + 3 +
                                4 * static_cast<std::uint64_t>(log_sigma_.size());
  if (doubles > r.remaining() / 8) throw Error(ErrorCode::kFormat, "DARN trainer state is truncated");
  VectorD ms(mean_square_.size()), mn(mean_.size()), st(step_.size()), bw(baseline_weight_.size()),
      bs(baseline_state_.size());
  for (VectorD* v : {&ms, &mn, &st, &bw, &bs}) {
    r.f64s(v->data(), static_cast<std::size_t>(v->size()));
    if (!v->allFinite()) throw Error(ErrorCode::kFormat, "DARN trainer state holds non-finite values");
  }
  const double bias = r.f64();
  const double smean = r.f64();
  const double svar = r.f64();
  const std::uint8_t started = r.u8();
  if (!std::isfinite(bias) || !std::isfinite(smean) || !std::isfinite(svar) || svar < 0.0 || started > 1) {
    throw Error(ErrorCode::kFormat, "DARN trainer state is malformed");
  }
  if ((ms.array() < 0.0).any()) throw Error(ErrorCode::kFormat, "DARN optimiser state is malformed");
  VectorD ls(log_sigma_.size()), nms(log_sigma_.size()), nmn(log_sigma_.size()), nst(log_sigma_.size());
  for (VectorD* v : {&ls, &nms, &nmn, &nst}) {
    r.f64s(v->data(), static_cast<std::size_t>(v->size()));
    if (!v->allFinite()) throw Error(ErrorCode::kFormat, "DARN weight-noise state holds non-finite values");
  }
  if ((nms.array() < 0.0).any()) throw Error(ErrorCode::kFormat, "DARN weight-noise optimiser state is malformed");
  steps_ = steps;
  rng_.set_state(state);
  mean_square_ = std::move(ms);
  mean_ = std::move(mn);
  step_ = std::move(st);
  baseline_weight_ = std::move(bw);
  baseline_state_ = std::move(bs);
  baseline_bias_ = bias;
  signal_mean_ = smean;
  signal_variance_ = svar;
  signal_started_ = started == 1;
  log_sigma_ = std::move(ls);
  noise_mean_square_ = std::move(nms);
  noise_mean_ = std::move(nmn);
  noise_step_ = std::move(nst);
}

Bytes serialize_darn(const DarnNetwork& network) {
  ByteWriter w;
  network.model.serialize_into(w);
  network.trainer.serialize_into(w);
  return wrap_payload(ObjectKind::kDarn, w.take());
}

std::unique_ptr<DarnNetwork> deserialize_darn(const std::uint8_t* data, std::size_t size) {
  const Bytes payload = unwrap_payload(data, size, ObjectKind::kDarn);
  ByteReader r(payload.data(), payload.size());
  Darn model = Darn::deserialize_from(r);
  const DarnTrainerConfig training = DarnTrainer::read_settings(r);
  auto network = std::make_unique<DarnNetwork>(std::move(model), training);
  network->trainer.restore_state(r);
  r.expect_end();
  return network;
}

void save_darn(const DarnNetwork& network, const std::string& path) {
  write_file_atomic(path, serialize_darn(network));
}

std::unique_ptr<DarnNetwork> load_darn(const std::string& path) {
  return load_model_file(path, [](const Bytes& bytes) { return deserialize_darn(bytes.data(), bytes.size()); });
}

}  // namespace zeta
