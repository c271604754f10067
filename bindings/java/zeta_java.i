/*
 * Java typemaps of zeta.i (package zeta). The generated classes ZetaNative and ZetaNativeJNI are the raw layer
 * and stay package-private: they pass bare arrays to C, and only the public classes (Rbm, Options, Trainer,
 * ...) know how long each array must be.
 */

%pragma(java) moduleclassmodifiers="final class"
%pragma(java) jniclassclassmodifiers="final class"
/* Proper Java enums (Status.ERR_FORMAT, Status.swigToEnum). */
%include <enums.swg>
/* Enumerators and #define constants as Java literals read from zeta.h (no JNI call to initialise them). */
%javaconst(1);

/* The native library is loaded by NativeLoader, not by the generated class (which would need
 * -Djava.library.path); touching the JNI class goes through it first. */
%pragma(java) jniclasscode=%{
  static {
    NativeLoader.load();
  }
%}

/* ---- status -> exception --------------------------------------------------------------------------------
 * The status is checked in Java right after the native call returns, on the same thread, so
 * zeta_last_error() still holds the message. */
%typemap(jni) zeta_status "jint"
%typemap(jtype) zeta_status "int"
%typemap(jstype) zeta_status "void"
%typemap(out) zeta_status %{ $result = (jint)$1; %}
%typemap(javaout) zeta_status { ZetaException.check($jnicall); }

/* ---- 64-bit seeds: long, not BigInteger (values >= 2^63 are passed as negative longs, bit for bit) ------- */
%apply int64_t { uint64_t };

/* ---- numeric pointers -> Java arrays ---------------------------------------------------------------------
 * Get/Release<Type>ArrayElements, not the Critical variants: a progress callback may call back into the JVM
 * during the call. Inputs are released with JNI_ABORT (no copy back). */
%define ZETA_JAVA_ARRAY(CTYPE, JNITYPE, JNIARRAY, JTYPE, JNIFN)
%typemap(jni) const CTYPE *, CTYPE * "JNIARRAY"
%typemap(jtype) const CTYPE *, CTYPE * "JTYPE[]"
%typemap(jstype) const CTYPE *, CTYPE * "JTYPE[]"
%typemap(javain) const CTYPE *, CTYPE * "$javainput"
%typemap(in) const CTYPE *, CTYPE * {
  $1 = 0;
  if ($input) {
    $1 = (CTYPE *)jenv->Get##JNIFN##ArrayElements($input, 0);
    if (!$1) return $null; /* OutOfMemoryError is pending */
  }
}
%typemap(freearg) const CTYPE * {
  if ($input) jenv->Release##JNIFN##ArrayElements($input, (JNITYPE *)$1, JNI_ABORT);
}
%typemap(argout) CTYPE * {
  if ($input) jenv->Release##JNIFN##ArrayElements($input, (JNITYPE *)$1, 0);
}
/* Without these, SWIG would fall back from const T * to the T * typemap and release the array twice. */
%typemap(argout) const CTYPE * ""
%typemap(freearg) CTYPE * ""
%enddef

ZETA_JAVA_ARRAY(double, jdouble, jdoubleArray, double, Double)
ZETA_JAVA_ARRAY(float, jfloat, jfloatArray, float, Float)
ZETA_JAVA_ARRAY(int8_t, jbyte, jbyteArray, byte, Byte)
ZETA_JAVA_ARRAY(uint8_t, jbyte, jbyteArray, byte, Byte)
ZETA_JAVA_ARRAY(int16_t, jshort, jshortArray, short, Short)
ZETA_JAVA_ARRAY(uint16_t, jshort, jshortArray, short, Short)
ZETA_JAVA_ARRAY(int32_t, jint, jintArray, int, Int)
ZETA_JAVA_ARRAY(uint32_t, jint, jintArray, int, Int)
ZETA_JAVA_ARRAY(int64_t, jlong, jlongArray, long, Long)
ZETA_JAVA_ARRAY(uint64_t, jlong, jlongArray, long, Long)

/* ---- opaque handles ---------------------------------------------------------------------------------------
 * Every other pointer in zeta.h is an opaque handle (zeta_rbm, zeta_options, zeta_trainer and whatever comes
 * next). The raw layer passes them as long; the public classes own them. The director class keeps SWIG's
 * proxy typemaps (copied before they are overridden). */
%apply SWIGTYPE * { ZetaProgressCallback * };
%typemap(jstype) SWIGTYPE * "long"
%typemap(javain) SWIGTYPE * "$javainput"
%typemap(javaout) SWIGTYPE * { return $jnicall; }

/* T **out: a long[1] that receives the new handle (written only on success, as the C API promises). */
%typemap(jni) SWIGTYPE ** "jlongArray"
%typemap(jtype) SWIGTYPE ** "long[]"
%typemap(jstype) SWIGTYPE ** "long[]"
%typemap(javain) SWIGTYPE ** "$javainput"
%typemap(in) SWIGTYPE ** ($*1_ltype temp = 0) {
  if (!$input || jenv->GetArrayLength($input) < 1) {
    SWIG_JavaThrowException(jenv, SWIG_JavaIllegalArgumentException, "a handle output needs a long[1]");
    return $null;
  }
  $1 = &temp;
}
%typemap(argout) SWIGTYPE ** {
  if (temp$argnum) {
    jlong handle = (jlong)(intptr_t)temp$argnum;
    jenv->SetLongArrayRegion($input, 0, 1, &handle);
  }
}

/* const char **out: a String[1] that receives the C string (copied; written only when the call set it). A null
 * array passes NULL, which the C API accepts for optional outputs. More specific than SWIGTYPE ** above, so a
 * string output never arrives as a raw pointer. */
%typemap(jni) const char ** "jobjectArray"
%typemap(jtype) const char ** "String[]"
%typemap(jstype) const char ** "String[]"
%typemap(javain) const char ** "$javainput"
%typemap(in) const char ** (const char *temp = 0) {
  if ($input && jenv->GetArrayLength($input) < 1) {
    SWIG_JavaThrowException(jenv, SWIG_JavaIllegalArgumentException, "a string output needs a String[1]");
    return $null;
  }
  $1 = $input ? ($1_ltype)&temp : 0;
}
%typemap(argout) const char ** {
  if ($input && temp$argnum) {
    jstring text = jenv->NewStringUTF(temp$argnum);
    if (!text) return $null; /* OutOfMemoryError is pending */
    jenv->SetObjectArrayElement($input, 0, text);
    jenv->DeleteLocalRef(text);
  }
}

/* ---- progress callback: a ZetaProgressCallback director (or null) ---------------------------------------- */
%typemap(jni) (zeta_progress_fn progress, void *user_data) "jlong"
%typemap(jtype) (zeta_progress_fn progress, void *user_data) "long"
%typemap(jstype) (zeta_progress_fn progress, void *user_data) "ZetaProgressCallback"
%typemap(javain) (zeta_progress_fn progress, void *user_data) "ZetaProgressCallback.getCPtr($javainput)"
%typemap(javaclassmodifiers) ZetaProgressCallback "abstract class"
