#include "generators/buffer_shape.h"
#include "generators/pad.h"
#include "generators/schedule_registry.h"

namespace cortado {

class PadGenerator : public Halide::Generator<PadGenerator> {
  public:
    GeneratorParam<std::string> descriptor{ops::kDescriptorParam, ""};

    Input<Buffer<float, 4>> input{"input"};
    Output<Buffer<float, 4>> output{"output"};

    void generate() {
        const auto op = read_descriptor<ops::PadOp>(descriptor);
        const PadShape &s = op.shape;
        Pad pad(input, s);
        output = pad.output;
        require_dense_shape(input, {s.in_w, s.in_h, s.channels, s.batch});
        require_dense_shape(output, {s.out_w(), s.out_h(), s.channels, s.batch});
        apply_schedule(pad, op, get_target());
    }
};

}  // namespace cortado

HALIDE_REGISTER_GENERATOR(cortado::PadGenerator, cortado_pad)
