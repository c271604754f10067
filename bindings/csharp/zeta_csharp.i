/*
 * C# typemaps of zeta.i (namespace Zeta, P/Invoke into libzeta_csharp.so). The generated classes ZetaNative and
 * ZetaNativePINVOKE are the raw layer and stay internal: they pass bare arrays to C, and only the public classes
 * (Rbm, Options, Trainer, ...) know how long each array must be.
 */

%pragma(csharp) moduleclassmodifiers="internal class"
%pragma(csharp) imclassclassmodifiers="internal class"
/* Enumerators and #define constants as C# literals read from zeta.h (no P/Invoke to initialise them). */
%csconst(1);

/* ---- status -> exception --------------------------------------------------------------------------------
 * The status is checked in C# right after the P/Invoke returns, on the same thread, so zeta_last_error()
 * still holds the message. Throwing on the managed side needs no pending-exception hand-over; the typemap
 * keeps canthrow=1 and $excode anyway, so that SWIG's own checks (e.g. a null string) still surface. */
%typemap(ctype) zeta_status "int"
%typemap(imtype) zeta_status "int"
%typemap(cstype) zeta_status "void"
%typemap(out, canthrow=1) zeta_status %{ $result = (int)$1; %}
%typemap(csout, excode=SWIGEXCODE) zeta_status {
    int status = $imcall;$excode
    ZetaException.Check(status);
  }

/* ---- numeric pointers -> C# arrays -----------------------------------------------------------------------
 * Blittable arrays are pinned by the marshaller for the call (no copy); [In, Out] on outputs documents the
 * direction and keeps the writes visible should a runtime copy instead. */
%define ZETA_CSHARP_ARRAY(CTYPE, CSTYPE)
%typemap(ctype) const CTYPE * "const CTYPE *"
%typemap(ctype) CTYPE * "CTYPE *"
%typemap(imtype) const CTYPE * "CSTYPE[]"
%typemap(imtype, inattributes="[global::System.Runtime.InteropServices.In, global::System.Runtime.InteropServices.Out]") CTYPE * "CSTYPE[]"
%typemap(cstype) const CTYPE *, CTYPE * "CSTYPE[]"
%typemap(csin) const CTYPE *, CTYPE * "$csinput"
%typemap(in) const CTYPE *, CTYPE * %{ $1 = ($1_ltype)$input; %}
%typemap(argout) const CTYPE *, CTYPE * ""
%typemap(freearg) const CTYPE *, CTYPE * ""
%enddef

ZETA_CSHARP_ARRAY(double, double)
ZETA_CSHARP_ARRAY(float, float)
ZETA_CSHARP_ARRAY(int8_t, sbyte)
ZETA_CSHARP_ARRAY(uint8_t, byte)
ZETA_CSHARP_ARRAY(int16_t, short)
ZETA_CSHARP_ARRAY(uint16_t, ushort)
ZETA_CSHARP_ARRAY(int32_t, int)
ZETA_CSHARP_ARRAY(uint32_t, uint)
ZETA_CSHARP_ARRAY(int64_t, long)
ZETA_CSHARP_ARRAY(uint64_t, ulong)

/* ---- opaque handles ---------------------------------------------------------------------------------------
 * Every other pointer in zeta.h is an opaque handle (zeta_rbm, zeta_options, zeta_trainer and whatever comes
 * next). The raw layer passes them as IntPtr; the public classes own them. The director class keeps SWIG's
 * proxy typemaps (copied before they are overridden). */
%apply SWIGTYPE * { ZetaProgressCallback * };
%typemap(ctype) SWIGTYPE * "void *"
%typemap(imtype) SWIGTYPE * "global::System.IntPtr"
%typemap(cstype) SWIGTYPE * "global::System.IntPtr"
%typemap(csin) SWIGTYPE * "$csinput"
%typemap(in) SWIGTYPE * %{ $1 = ($1_ltype)$input; %}
%typemap(out) SWIGTYPE * %{ $result = (void *)$1; %}
%typemap(csout, excode=SWIGEXCODE) SWIGTYPE * {
    global::System.IntPtr ret = $imcall;$excode
    return ret;
  }

/* T **out: receives the new handle (written only on success, as the C API promises). */
%typemap(ctype) SWIGTYPE ** "void **"
%typemap(imtype) SWIGTYPE ** "out global::System.IntPtr"
%typemap(cstype) SWIGTYPE ** "out global::System.IntPtr"
%typemap(csin) SWIGTYPE ** "out $csinput"
%typemap(in) SWIGTYPE ** %{ $1 = ($1_ltype)$input; %}

/* ---- progress callback: a ZetaProgressCallback director (or null) ---------------------------------------- */
%typemap(ctype) (zeta_progress_fn progress, void *user_data) "void *"
%typemap(imtype) (zeta_progress_fn progress, void *user_data) "global::System.Runtime.InteropServices.HandleRef"
%typemap(cstype) (zeta_progress_fn progress, void *user_data) "ZetaProgressCallback"
%typemap(csin) (zeta_progress_fn progress, void *user_data) "ZetaProgressCallback.getCPtr($csinput)"
%typemap(csclassmodifiers) ZetaProgressCallback "internal abstract class"
