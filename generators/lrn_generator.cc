#include "generators/buffer_shape.h"
#include "generators/lrn.h"
#include "generators/schedule_registry.h"

namespace cortado {

class LRNGenerator : public Halide::Generator<LRNGenerator> {
  public:
    GeneratorParam<std::string> descriptor{ops::kDescriptorParam, ""};

    Input<Buffer<float, 4>> input{"input"};
    Output<Buffer<float, 4>> output{"output"};

    void generate() {
        const auto op = read_descriptor<ops::LRNOp>(descriptor);
        const LRNShape &s = op.shape;
        LRN lrn(input, s);
        output = lrn.output;
        require_activation_shape(input, {s.w, s.h, s.channels, s.batch}, s.batch, op.choice.batch_strided);
        require_activation_shape(output, {s.w, s.h, s.channels, s.batch}, s.batch, op.choice.batch_strided);
        apply_schedule(lrn, op, get_target());
    }
};

}  // namespace cortado

HALIDE_REGISTER_GENERATOR(cortado::LRNGenerator, cortado_lrn)
