// Pad: each plane of the input placed at (left, top) in a larger plane, the border filled as
// ops/pad.h's mode says (ONNX's Pad, and the asymmetric padding of ONNX convolutions).
// Buffers: input (x, y, c, n), output (x, y, c, n).
#pragma once

#include "Halide.h"
#include "ops/pad.h"

namespace cortado {

using ops::PadShape;

struct Pad {
    Halide::Var x{"x"}, y{"y"}, c{"c"}, n{"n"};
    Halide::Func output{"pad"};

    Pad(Halide::Func input, const PadShape &s) {
        using namespace Halide;
        const Region plane = {{0, s.in_w}, {0, s.in_h}, {0, s.channels}, {0, s.batch}};
        Func bordered = s.mode == "reflect" ? BoundaryConditions::mirror_interior(input, plane)
                        : s.mode == "edge"  ? BoundaryConditions::repeat_edge(input, plane)
                        : s.mode == "wrap"  ? BoundaryConditions::repeat_image(input, plane)
                                            : BoundaryConditions::constant_exterior(input, s.value, plane);
        output(x, y, c, n) = bordered(x - s.left, y - s.top, c, n);
    }
};

}  // namespace cortado
