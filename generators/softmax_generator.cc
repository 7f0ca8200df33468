#include "generators/buffer_shape.h"
#include "generators/schedule_registry.h"
#include "generators/softmax.h"

namespace cortado {

class SoftmaxGenerator : public Halide::Generator<SoftmaxGenerator> {
  public:
    GeneratorParam<std::string> descriptor{ops::kDescriptorParam, ""};

    Input<Buffer<float, 3>> input{"input"};
    Output<Buffer<float, 3>> output{"output"};

    void generate() {
        const auto op = read_descriptor<ops::SoftmaxOp>(descriptor);
        const SoftmaxShape &s = op.shape;
        // Variants without the max_lanes (sum_lanes) knob keep one running maximum (sum).
        const auto lanes = [&](const char *knob) { return op.choice.knobs.has(knob) ? op.choice.knobs.get(knob) : 1; };
        Softmax softmax(input, s, lanes("max_lanes"), lanes("sum_lanes"));
        output = softmax.output;
        require_dense_shape(input, {s.inner, s.channels, s.outer});
        require_dense_shape(output, {s.inner, s.channels, s.outer});
        apply_schedule(softmax, op, get_target());
    }
};

}  // namespace cortado

HALIDE_REGISTER_GENERATOR(cortado::SoftmaxGenerator, cortado_softmax)
