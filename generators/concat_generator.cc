#include "generators/buffer_shape.h"
#include "generators/concat.h"
#include "generators/schedule_registry.h"

namespace cortado {

class ConcatGenerator : public Halide::Generator<ConcatGenerator> {
  public:
    GeneratorParam<std::string> descriptor{ops::kDescriptorParam, ""};

    Input<Buffer<float, 3>[]> inputs { "inputs" };
    Output<Buffer<float, 3>> output{"output"};

    void generate() {
        const auto op = read_descriptor<ops::ConcatOp>(descriptor);
        const ConcatShape &s = op.shape;
        if (s.inputs() != static_cast<int>(inputs.size()))
            throw Halide::CompileError("concat: channels lists " + std::to_string(s.inputs()) +
                                       " inputs, inputs.size is " + std::to_string(inputs.size()));
        std::vector<Halide::Func> funcs;
        int total = 0;
        for (size_t i = 0; i < inputs.size(); i++) {
            require_activation_shape(inputs[i], {s.inner, s.channels[i], s.outer}, s.outer, op.choice.batch_strided);
            funcs.push_back(inputs[i]);
            total += s.channels[i];
        }
        Concat concat(funcs, s);
        output = concat.output;
        require_activation_shape(output, {s.inner, total, s.outer}, s.outer, op.choice.batch_strided);
        apply_schedule(concat, op, get_target());
    }
};

}  // namespace cortado

HALIDE_REGISTER_GENERATOR(cortado::ConcatGenerator, cortado_concat)
