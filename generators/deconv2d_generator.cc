#include "generators/buffer_shape.h"
#include "generators/deconv2d.h"
#include "generators/schedule_registry.h"

namespace cortado {

class Deconv2dGenerator : public Halide::Generator<Deconv2dGenerator> {
  public:
    GeneratorParam<std::string> descriptor{ops::kDescriptorParam, ""};
    Input<Buffer<float, 4>> input{"input"};
    Input<Buffer<float, 4>> weights{"weights"};
    Input<Buffer<float, 1>> bias{"bias"};
    Output<Buffer<float, 4>> output{"output"};

    void generate() {
        const auto op = read_descriptor<ops::Deconv2dOp>(descriptor);
        const Deconv2dShape &s = op.shape;
        if (s.group < 1 || s.in_channels % s.group || s.out_channels % s.group)
            throw Halide::CompileError("deconv2d: channels are not a multiple of the group");
        Deconv2d deconv(input, weights, bias, s);
        output = deconv.output;
        require_activation_shape(input, {s.in_w, s.in_h, s.in_channels, s.batch}, s.batch, op.choice.batch_strided);
        require_dense_shape(weights, {s.kernel_w, s.kernel_h, s.out_channels / s.group, s.in_channels});
        require_dense_shape(bias, {s.out_channels});
        require_activation_shape(output, {s.out_w, s.out_h, s.out_channels, s.batch}, s.batch, op.choice.batch_strided);
        apply_schedule(deconv, op, get_target());
    }
};

}  // namespace cortado

HALIDE_REGISTER_GENERATOR(cortado::Deconv2dGenerator, cortado_deconv2d)
