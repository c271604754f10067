// Binary restricted Boltzmann machine: E(v,h) = −vᵀWh − bᵀv − cᵀh, v ∈ {0,1}^n_v, h ∈ {0,1}^n_h.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "zeta/base/model_file.hpp"
#include "zeta/base/numerics.hpp"

namespace zeta {

// Two families of tempered distributions q_β are in use.
// kInteraction (Desjardins et al. 2011, §4): q_β(v,h) ∝ exp[β(vᵀWh + cᵀh) + bᵀv]; the visible bias is not tempered, so at β = 0
//   the visibles keep the data's base rates and swaps stay frequent early in training.
// kFullEnergy: q_β ∝ exp[−β E(v,h)]; at β = 0 every unit is uniform.
enum class Tempering { kInteraction = 0, kFullEnergy = 1 };

class Rbm {
 public:
  Rbm() = default;
  Rbm(int n_visible, int n_hidden);

  int n_visible() const { return static_cast<int>(b_.size()); }
  int n_hidden() const { return static_cast<int>(c_.size()); }

  const MatrixD& W() const { return W_; }  // n_visible × n_hidden
  const VectorD& b() const { return b_; }  // visible biases
  const VectorD& c() const { return c_; }  // hidden biases
  // Identifies the values of W, b and c: every change of them (set_params, an edit, remove_hidden, init_*) gives
  // the model a revision no model in the process had before, and a copy keeps its original's. A trainer or
  // pruner borrowing the model compares it with the revision it last saw, so a change made anywhere else makes
  // it resync its chains and restart its log Z tracker at its next step.
  std::uint64_t revision() const { return revision_; }

  // Replaces W, b and c (n_visible × n_hidden, n_visible and n_hidden entries; the sizes may change). Checked by
  // validate(), not here.
  void set_params(MatrixD W, VectorD b, VectorD c);

  // W, b and c writable in place, for changes that touch parts of them. The model takes a new revision when the
  // edit ends (commit(), or the end of the edit's life), so whoever borrows the model sees every write made
  // before then; a write through the references after that goes unseen. `rbm.edit().W(0, 0) = 1.0;` sets one
  // weight.
  class Edit {
   public:
    MatrixD& W;
    VectorD& b;
    VectorD& c;
    Edit(const Edit&) = delete;
    Edit& operator=(const Edit&) = delete;
    ~Edit() { commit(); }
    // Ends the edit (once; later calls do nothing) and returns the model's revision.
    std::uint64_t commit();

   private:
    friend class Rbm;
    explicit Edit(Rbm& rbm) : W(rbm.W_), b(rbm.b_), c(rbm.c_), rbm_(rbm) {}
    Rbm& rbm_;
    bool open_ = true;
  };
  Edit edit() { return Edit(*this); }

  // Visible marginals of the training data, kept for AIS's base-rate model; empty until set from data.
  const VectorD& base_rates() const { return base_rates_; }
  void set_base_rates(VectorD base_rates) { base_rates_ = std::move(base_rates); }

  // Hinton's practical guide: W ~ N(0, weight_sd²), c = 0, b_k = log(p_k/(1−p_k)) with p_k the data mean
  // clamped to [eps, 1−eps]. Also stores the (clamped) marginals as base_rates.
  void init_from_data(const MatrixD& data, Rng& rng, double weight_sd = 0.01, double eps = 1e-3);
  // W ~ N(0, weight_sd²), b ~ N(0, bias_sd²), c ~ N(0, bias_sd²): random models for tests and benchmarks.
  void init_random(Rng& rng, double weight_sd, double bias_sd = 0.0);

  // Energy of one joint configuration.
  double energy(const VectorD& v, const VectorD& h) const;
  // F(v) = −bᵀv − Σ_j softplus(c_j + W_jᵀv), one value per row of v.
  VectorD free_energy(const MatrixD& v) const;
  // log q̃_β(v) = β_b bᵀv + Σ_j softplus(β(c_j + W_jᵀv)), with β_b = 1 (kInteraction) or β (kFullEnergy).
  VectorD log_unnormalized(const MatrixD& v, double beta, Tempering mode) const;
  // Exact log Z of q_β at β = 0 for either family.
  double log_z_at_beta_zero(Tempering mode) const;

  // p(h_j = 1 | v) and p(v_k = 1 | h), one row per input row.
  MatrixD hidden_probs(const MatrixD& v) const;
  MatrixD visible_probs(const MatrixD& h) const;

  // Mean log-likelihood of the rows of v: −mean F(v) − log Z (sum in double).
  double mean_log_likelihood(const MatrixD& v, double log_z) const;

  // Deletes hidden unit k (0 ≤ k < n_hidden, n_hidden ≥ 2): W loses column k and c entry k, the later units
  // move down by one. The new model's partition function is Z · p(h_k = 0) of the old one.
  void remove_hidden(int k);

  // Checks W, b and c are finite and shaped consistently; throws Error otherwise.
  void validate() const;

 private:
  void changed();  // a new revision

  MatrixD W_;
  VectorD b_;
  VectorD c_;
  VectorD base_rates_;
  std::uint64_t revision_ = 0;
};

// Visible base rates p_k of a binary data set, clamped to [eps, 1−eps].
VectorD data_marginals(const MatrixD& data, double eps = 1e-3);

// Model files (the container of zeta/base/model_file.hpp, kind kRbm).
Bytes serialize_rbm(const Rbm& rbm);
Rbm deserialize_rbm(const std::uint8_t* data, std::size_t size);
void save_rbm(const Rbm& rbm, const std::string& path);
Rbm load_rbm(const std::string& path);

// Chains files: the states of persistent chains, rows of 0/1 visible values (a PCD trainer's, for a pruner to go
// on from: zeta train --chains-out, zeta prune --start-chains). The same container, kind kChains: rows and
// columns, then the values one bit each, row by row, the last byte's unused bits zero.
Bytes serialize_chains(const MatrixD& chains);
MatrixD deserialize_chains(const std::uint8_t* data, std::size_t size);
void save_chains(const MatrixD& chains, const std::string& path);
MatrixD load_chains(const std::string& path);

}  // namespace zeta
