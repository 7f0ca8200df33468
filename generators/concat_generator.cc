#include "generators/buffer_shape.h"
#include "generators/concat.h"
#include "generators/variant_schedules.h"
#include "schedules/cpu/concat.h"
#include "schedules/gpu/concat.h"
#include "schedules/hvx/memory_bound.h"

namespace cortado {

namespace {

const VariantSchedules<Concat, ops::ConcatOp> concat_schedules = {
    {"cpu_direct", [](Concat &a, const ops::ConcatOp &op,
                      const Halide::Target &t) { schedules::cpu::schedule_concat(a, op.shape, t); }},
    {"gpu_direct", [](Concat &a, const ops::ConcatOp &op,
                      const Halide::Target &t) { schedules::gpu::schedule_concat(a, op.shape, t); }},
    {"hvx_direct", [](Concat &a, const ops::ConcatOp &op,
                      const Halide::Target &t) { schedules::hvx::schedule_concat(a, op.shape, t); }},
};

}  // namespace

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
            require_dense_shape(inputs[i], {s.inner, s.channels[i], s.outer});
            funcs.push_back(inputs[i]);
            total += s.channels[i];
        }
        Concat concat(funcs, s);
        output = concat.output;
        require_dense_shape(output, {s.inner, total, s.outer});
        apply_variant(concat_schedules, concat, op, get_target());
    }
};

}  // namespace cortado

HALIDE_REGISTER_GENERATOR(cortado::ConcatGenerator, cortado_concat)
