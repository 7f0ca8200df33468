// Helpers shared by the Hexagon HVX schedules. The network runs on the ARM host and each kernel
// offloads its loops to the DSP (`hexagon()`); HVX vectors are 128 bytes, 32 floats, and fp32
// vector arithmetic needs HVX v68 or later (Halide refuses float vectors on older HVX).
// Compile-verified only: no Hexagon device or simulator is available to run them.
#pragma once

#include "Halide.h"

namespace cortado::schedules::hvx {

constexpr int kFloatLanes = 32;

// Vectorise `x` across one HVX vector when the loop is at least that long; shorter loops stay
// scalar on the DSP, where ShiftInwards would read outside the buffer.
inline void vectorize_if_long(Halide::Stage stage, Halide::VarOrRVar x, int extent) {
    if (extent >= kFloatLanes) stage.vectorize(x, kFloatLanes, Halide::TailStrategy::ShiftInwards);
}

}  // namespace cortado::schedules::hvx
