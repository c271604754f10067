// libFuzzer target: loading models from untrusted bytes (what zeta_rbm_from_bytes / zeta_rbm_load,
// zeta_ebp_from_bytes / zeta_ebp_load, zeta_softmax_from_bytes / zeta_softmax_load, the DARN loaders and the
// chains files of zeta prune --start-chains call).
// Properties checked on every input, for each of the loaders:
//   - the only failure is zeta::Error with code kFormat (anything else is a bug: the C API would report it as
//     another status, ZETA_ERR_INTERNAL, or crash);
//   - an accepted input is a consistent model whose serialization gives back the same bytes.
// Build and short run: run_fuzz.sh (a CTest); seed corpus: corpus/ (make_corpus.py).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "zeta/base/error.hpp"
#include "zeta/base/model_file.hpp"
#include "zeta/darn/trainer.hpp"
#include "zeta/ebp/ebp.hpp"
#include "zeta/rbm/model.hpp"
#include "zeta/softmax/classifier.hpp"

namespace {

void same_bytes(const zeta::Bytes& again, const std::uint8_t* data, std::size_t size, const char* what) {
  if (again.size() != size || std::memcmp(again.data(), data, size) != 0) {
    std::fprintf(stderr, "accepted %s bytes do not serialize back to themselves\n", what);
    std::abort();
  }
}

// Runs load(), which must either succeed and round-trip or throw Error(kFormat).
template <class Load>
void check(const char* what, Load&& load) {
  try {
    load();
  } catch (const zeta::Error& e) {
    if (e.code() != zeta::ErrorCode::kFormat) {
      std::fprintf(stderr, "loading %s failed with code %d, not kFormat: %s\n", what, static_cast<int>(e.code()),
                   e.what());
      std::abort();
    }
  }
}

void check_all(const std::uint8_t* data, std::size_t size) {
  check("an RBM", [&] {
    const zeta::Rbm rbm = zeta::deserialize_rbm(data, size);
    rbm.validate();  // throws (and so aborts the fuzzer) if an accepted model is inconsistent
    same_bytes(zeta::serialize_rbm(rbm), data, size, "RBM");
  });
  check("an EBP net", [&] {
    const zeta::Ebp net = zeta::Ebp::deserialize(data, size);
    same_bytes(net.serialize(), data, size, "EBP");
  });
  check("a softmax classifier", [&] {
    const zeta::SoftmaxClassifier model = zeta::SoftmaxClassifier::deserialize(data, size);
    same_bytes(model.serialize(), data, size, "softmax");
  });
  check("chains", [&] {
    const zeta::MatrixD chains = zeta::deserialize_chains(data, size);
    same_bytes(zeta::serialize_chains(chains), data, size, "chains");
  });
  check("a DARN", [&] {
    const std::unique_ptr<zeta::DarnNetwork> network = zeta::deserialize_darn(data, size);
    same_bytes(zeta::serialize_darn(*network), data, size, "DARN");
  });
}

}  // namespace

// Most mutations of a whole file only hit the checksums, so inputs starting with 'P' (RBM), 'E' (EBP), 'S'
// (softmax), 'D' (DARN) or 'C' (chains) are taken as a bare payload of that kind and given a valid container first: that way the fuzzer
// also explores the payload parsers.
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  zeta::ObjectKind kind = zeta::ObjectKind::kRbm;
  const bool payload = size > 0 &&
                       (data[0] == 'P' || data[0] == 'E' || data[0] == 'S' || data[0] == 'D' || data[0] == 'C');
  if (payload) {
    if (data[0] == 'C') kind = zeta::ObjectKind::kChains;
    if (data[0] == 'E') kind = zeta::ObjectKind::kEbp;
    if (data[0] == 'S') kind = zeta::ObjectKind::kSoftmax;
    if (data[0] == 'D') kind = zeta::ObjectKind::kDarn;
    const zeta::Bytes wrapped = zeta::wrap_payload(kind, zeta::Bytes(data + 1, data + size));
    check_all(wrapped.data(), wrapped.size());
  } else {
    check_all(data, size);
  }
  return 0;
}
