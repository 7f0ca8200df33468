// Float building blocks that give IEEE's result for NaN and infinite operands.
//
// Halide compiles float math as if no NaN or infinity can occur (LLVM's no-NaNs/no-infs flags),
// unless the target asks for strict_float. Its simplifier and LLVM are then free to turn a select
// into a hardware max (which drops a NaN operand), x * 0 into 0, a > b into !(a <= b), and pow
// or exp into approximations that are right for finite operands only; which of these happen
// differs between ISAs and LLVM versions. So every op states its result for non-finite operands
// explicitly, with is_nan/is_inf/is_finite tests, which Halide always evaluates strictly, and
// strict_float() where a product or a comparison must keep IEEE's meaning.
#pragma once

#include <limits>

#include "Halide.h"

namespace cortado {

// max(a, b) that is NaN when either is. A hardware max drops a NaN operand, and a fast-math
// a > b may hold when b is NaN (NEON compiled it as !(b >= a)); a strict a > b is false then.
inline Halide::Expr max_keeping_nan(Halide::Expr a, Halide::Expr b) {
    return Halide::select(Halide::strict_float(a > b) || Halide::is_nan(a), a, b);
}

// v * constant, NaN for an infinite v even when the constant is 0 (which fast math folds to 0).
inline Halide::Expr times_constant(Halide::Expr v, float constant) { return Halide::strict_float(v * constant); }

}  // namespace cortado
