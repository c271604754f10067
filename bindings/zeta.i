/*
 * The one SWIG interface of zeta's Java and C# bindings (swig -c++ -java / -csharp).
 *
 * It reads capi/zeta.h as it is (%include, no copied declarations) and produces the raw layer: one
 * internal class with every zeta_* function. The public, idiomatic classes (Rbm, Options, Trainer, ...)
 * live in java/src and csharp/src and call that layer; they own the length checks, which only they can
 * do, because the C API takes bare pointers.
 *
 * Every typemap below is keyed on a type (or on the progress callback's argument pair), never on a
 * function name, so functions added to zeta.h later (zeta_ebp_*, zeta_softmax_*, ...) are wrapped with
 * the same conventions without touching this file:
 *   zeta_status result      -> void; a non-OK status throws (per-language typemaps)
 *   const T * (T numeric)   -> T[] input array
 *   T *       (T numeric)   -> T[] output array (scalar outputs are arrays of length 1)
 *   handle *  (any struct)  -> the raw pointer as long (Java) / IntPtr (C#)
 *   handle ** (any struct)  -> long[1] (Java) / out IntPtr (C#)
 *   const char ** (a string output) -> String[1] (Java) / out IntPtr (C#)
 *   (zeta_progress_fn progress, void *user_data) -> a ZetaProgressCallback director object (or null)
 *   uint64_t                -> long (Java) / ulong (C#); int64_t -> long
 */
%module(directors="1") ZetaNative

/* stdint.i must see the platform's int64_t (long on LP64, where CMake passes -DSWIGWORDSIZE64), or SWIG casts
 * int64_t pointers to long long * in the calls; 64-bit scalars then keep 64-bit managed types. */
%include <stdint.i>
%apply long long { int64_t };
%apply unsigned long long { uint64_t };

/* Per-language typemaps: arrays, handles, status -> exception. */
#if defined(SWIGJAVA)
%include "java/zeta_java.i"
#elif defined(SWIGCSHARP)
%include "csharp/zeta_csharp.i"
#else
#error "zeta.i: only Java and C# are supported"
#endif

%{
#include <cstdint>
#include "zeta.h"
%}

/* ---- progress callbacks ------------------------------------------------------------------------------
 * A C function pointer cannot point into a JVM or CLR, so every (zeta_progress_fn progress, void *user_data) pair becomes one
 * director object: the C trampoline below receives it as user_data and calls its virtual method, which the
 * managed subclass overrides. The managed adapters catch their listener's exceptions themselves (an
 * exception must not unwind through libzeta); the catch here is the last line of defence. */
%feature("director") ZetaProgressCallback;
%inline %{
class ZetaProgressCallback {
 public:
  virtual ~ZetaProgressCallback() {}
  /* Return 0 to continue, non-zero to cancel (the C API's convention). */
  virtual int call(const char *stage, int64_t done, int64_t total, double value) = 0;
};
%}

%{
static int zeta_swig_progress(const zeta_progress *progress, void *user_data) {
  try {
    return static_cast<ZetaProgressCallback *>(user_data)->call(progress->stage, progress->done,
                                                               progress->total, progress->value);
  } catch (...) {
    return 1; /* cancel: the managed side reports what went wrong */
  }
}
%}

%typemap(in) (zeta_progress_fn progress, void *user_data) {
  ZetaProgressCallback *callback = (ZetaProgressCallback *)(intptr_t)$input;
  $1 = callback ? zeta_swig_progress : 0;
  $2 = callback;
}

/* The callback's struct and typedef only exist on the C side of the trampoline. */
%ignore zeta_progress;

/* Status names for the managed exceptions: zeta_status becomes the public enum Status (OK, ERR_ARGUMENT,
 * ...); its values come from the header, never from a copy. */
%rename(Status) zeta_status;
%rename("%(strip:[ZETA_])s", %$isenumitem) "";

%include "zeta.h"
