// Float building blocks that give IEEE's result for NaN and infinite operands.
//
// Halide compiles float math as if no NaN or infinity can occur (LLVM's no-NaNs/no-infs flags),
// unless the target asks for strict_float. Its simplifier and LLVM are then free to turn a select
// into a hardware max (which drops a NaN operand), x * 0 into 0, a > b into !(a <= b), and pow
// or exp into approximations that are right for finite operands only; which of these happen
// differs between ISAs (one LRN kept a NaN on AVX2 and gave 0 on AVX-512). So every op states its
// result for non-finite operands explicitly, with is_nan/is_inf/is_finite tests, which Halide
// always evaluates strictly, and strict_float() where a product or a comparison must keep IEEE's
// meaning.
#pragma once

#include <limits>

#include "Halide.h"

namespace cortado {

// NaN passes through (Caffe's max(x, 0) keeps it too) and -inf maps to 0 without a slope, not to
// -inf * 0 = NaN. Without the is_nan test, select(v < 0, v * slope, v) may become a hardware
// max, which drops a NaN operand.
inline Halide::Expr leaky_relu(Halide::Expr v, float slope) {
    using Halide::select;
    if (slope == 0.0f) return select(Halide::is_nan(v), v, Halide::max(v, 0.0f));
    return select(Halide::is_nan(v), v, select(v < 0.0f, v * slope, v));
}

// max(a, b) that is NaN when either is. A hardware max drops a NaN operand, and a fast-math
// a > b may hold when b is NaN (NEON compiled it as !(b >= a)); a strict a > b is false then.
inline Halide::Expr max_keeping_nan(Halide::Expr a, Halide::Expr b) {
    return Halide::select(Halide::strict_float(a > b) || Halide::is_nan(a), a, b);
}

// v * constant, NaN for an infinite v even when the constant is 0 (which fast math folds to 0).
inline Halide::Expr times_constant(Halide::Expr v, float constant) {
    return Halide::strict_float(v * constant);
}

// IEEE's pow(+inf, exponent): 0, 1 or +inf by the sign of the exponent.
inline float power_of_infinity(float exponent) {
    return exponent < 0 ? 0.0f : exponent == 0 ? 1.0f : std::numeric_limits<float>::infinity();
}

}  // namespace cortado
