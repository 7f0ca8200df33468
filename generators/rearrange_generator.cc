#include "generators/buffer_shape.h"
#include "generators/rearrange.h"
#include "generators/schedule_registry.h"

namespace cortado {

class RearrangeGenerator : public Halide::Generator<RearrangeGenerator> {
  public:
    GeneratorParam<std::string> descriptor{ops::kDescriptorParam, ""};
    Input<Buffer<float, 1>> input{"input"};
    Output<Buffer<float, ops::kRearrangeAxes>> output{"output"};

    void generate() {
        const auto op = read_descriptor<ops::RearrangeOp>(descriptor);
        const RearrangeShape &s = op.shape;
        if (s.extents.size() != size_t(ops::kRearrangeAxes) || s.strides.size() != size_t(ops::kRearrangeAxes))
            throw Halide::CompileError("rearrange: extents and strides need 6 values each");
        Rearrange rearrange(input, s);
        output = rearrange.output;
        require_dense_shape(input, {s.input_count});
        require_dense_shape(output, s.extents);
        apply_schedule(rearrange, op, get_target());
    }
};

}  // namespace cortado

HALIDE_REGISTER_GENERATOR(cortado::RearrangeGenerator, cortado_rearrange)
