// libFuzzer target: loading an RBM from untrusted bytes (what zeta_rbm_from_bytes and zeta_rbm_load call).
// Properties checked on every input:
//   - the only failure is zeta::Error with code kFormat (anything else is a bug: the C API would report it as
//     ZETA_ERR_INTERNAL, or crash);
//   - an accepted input is a finite, consistently shaped model whose serialization gives back the same bytes.
// Build and short run: run_fuzz.sh (a CTest); seed corpus: corpus/ (make_corpus.py).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "zeta/error.hpp"
#include "zeta/io.hpp"
#include "zeta/rbm.hpp"

namespace {

// Most mutations of a whole file only hit the checksums, so inputs starting with 'P' are taken as a bare
// payload and given a valid container first: that way the fuzzer also explores the payload parser.
void check(const std::uint8_t* data, std::size_t size) {
  zeta::Rbm rbm;
  try {
    rbm = zeta::deserialize_rbm(data, size);
  } catch (const zeta::Error& e) {
    if (e.code() != zeta::ErrorCode::kFormat) {
      std::fprintf(stderr, "loading failed with code %d, not kFormat: %s\n", static_cast<int>(e.code()), e.what());
      std::abort();
    }
    return;
  }
  rbm.validate();  // throws (and so aborts the fuzzer) if an accepted model is inconsistent
  const zeta::Bytes again = zeta::serialize_rbm(rbm);
  if (again.size() != size || std::memcmp(again.data(), data, size) != 0) {
    std::fprintf(stderr, "accepted bytes do not serialize back to themselves\n");
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 0 && data[0] == 'P') {
    const zeta::Bytes wrapped = zeta::wrap_payload(zeta::ObjectKind::kRbm, zeta::Bytes(data + 1, data + size));
    check(wrapped.data(), wrapped.size());
  } else {
    check(data, size);
  }
  return 0;
}
