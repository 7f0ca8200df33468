#include "generators/buffer_shape.h"
#include "generators/pooling.h"
#include "generators/schedule_registry.h"

namespace cortado {

class PoolingGenerator : public Halide::Generator<PoolingGenerator> {
  public:
    GeneratorParam<std::string> descriptor{ops::kDescriptorParam, ""};

    Input<Buffer<float, 4>> input{"input"};
    Output<Buffer<float, 4>> output{"output"};

    void generate() {
        const auto op = read_descriptor<ops::PoolingOp>(descriptor);
        const PoolingShape &s = op.shape;
        const auto &forms = variant_bindings<MaxPoolingFormRule>();
        const auto form = forms.find(op.choice.variant);
        const int in_block = op.choice.layout_in.channel_block, out_block = op.choice.layout_out.channel_block;
        for (int block : {in_block, out_block})
            if (block > 0 && s.channels % block != 0)
                throw Halide::CompileError(std::to_string(s.channels) + " channels are not whole blocks of " +
                                           std::to_string(block));
        Pooling pool(input, s, form != forms.end() ? form->second(s, get_target()) : MaxPoolingForm::Window, in_block,
                     out_block);
        output = pool.output;
        require_activation_shape(input, ops::layout_extents(op.choice.layout_in, {s.in_w, s.in_h, s.channels, s.batch}, 2),
                                 s.batch, op.choice.batch_strided);
        require_activation_shape(output,
                                 ops::layout_extents(op.choice.layout_out, {s.out_w, s.out_h, s.channels, s.batch}, 2),
                                 s.batch, op.choice.batch_strided);
        apply_schedule(pool, op, get_target());
    }
};

}  // namespace cortado

HALIDE_REGISTER_GENERATOR(cortado::PoolingGenerator, cortado_pooling)
