// The fused convolution and MAX pooling's generator (generators/conv2d_pool.h): its descriptor
// arrives as one generator parameter. The tensors are NCHW; the weights are in Caffe's order.
#include "generators/buffer_shape.h"
#include "generators/conv2d_pool.h"
#include "generators/schedule_registry.h"

namespace cortado {

class Conv2dPoolGenerator : public Halide::Generator<Conv2dPoolGenerator> {
  public:
    GeneratorParam<std::string> descriptor{ops::kDescriptorParam, ""};

    Input<Buffer<float, 4>> input{"input"};
    Input<Buffer<float, 4>> weights{"weights"};
    Input<Buffer<float, 1>> bias{"bias"};
    Output<Buffer<float, 4>> output{"output"};

    void generate() {
        const auto op = read_descriptor<ops::Conv2dPoolOp>(descriptor);
        const ops::Conv2dPoolShape &s = op.shape;
        const ops::Conv2dShape &c = s.conv;
        if (op.choice.variant == ops::kUnfusedConvPool)
            throw Halide::CompileError("variant unfused runs as the convolution's and the pooling's own kernels");
        if (op.choice.layout_in.blocked() || op.choice.layout_out.blocked() || op.choice.epilogue.sum)
            throw Halide::CompileError(op.choice.variant + " reads and writes NCHW only, without a residual sum");
        if (!ops::fusable_max_pooling(ops::pooling_of(s)))
            throw Halide::CompileError("a pooling window lies outside the convolution's output or has more than " +
                                       std::to_string(ops::kMostPoolTaps) + " taps a side");
        // The GPU's threads keep their windows' convolution outputs in registers (masked taps).
        Conv2dPool fused(input, weights, bias, s, op.choice.epilogue, get_target().has_gpu_feature());
        output = fused.output;
        require_activation_shape(input, {c.in_w, c.in_h, c.in_channels, c.batch}, c.batch, op.choice.batch_strided);
        require_dense_shape(weights, {c.kernel_w, c.kernel_h, c.in_channels / c.group, c.out_channels});
        require_dense_shape(bias, {c.out_channels});
        require_activation_shape(output, {s.pool_out_w, s.pool_out_h, c.out_channels, c.batch}, c.batch,
                                 op.choice.batch_strided);
        apply_schedule(fused, op, get_target());
    }
};

}  // namespace cortado

HALIDE_REGISTER_GENERATOR(cortado::Conv2dPoolGenerator, cortado_conv2d_pool)
