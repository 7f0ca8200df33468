// Generators for the element-wise ops (one family: flat views, same schedule shape).
#include <sstream>

#include "generators/buffer_shape.h"
#include "generators/elementwise.h"
#include "generators/schedule_family.h"
#include "schedules/gpu/elementwise.h"
#include "schedules/cpu/elementwise.h"
#include "schedules/hvx/memory_bound.h"

namespace cortado {

class ReluGenerator : public Halide::Generator<ReluGenerator> {
  public:
    GeneratorParam<int> count{"count", 1};
    GeneratorParam<float> slope{"slope", 0.0f};
    Input<Buffer<float, 1>> input{"input"};
    Output<Buffer<float, 1>> output{"output"};

    void generate() {
        Relu relu(input, slope);
        output = relu.output;
        require_dense_shape(input, {count});
        require_dense_shape(output, {count});
        switch (schedule_family_for(get_target())) {
            case ScheduleFamily::X86:
            case ScheduleFamily::ARM: schedules::cpu::schedule_flat(relu.output, relu.i, count, get_target()); break;
            case ScheduleFamily::HVX: schedules::hvx::schedule_flat(relu.output, relu.i, count, get_target()); break;
            case ScheduleFamily::GPU: schedules::gpu::schedule_flat(relu.output, relu.i, count, get_target()); break;
        }
    }
};

class EltwiseGenerator : public Halide::Generator<EltwiseGenerator> {
  public:
    GeneratorParam<int> count{"count", 1};
    GeneratorParam<int> operation{"operation", 0};  // EltwiseOp
    GeneratorParam<std::string> coeff{"coeff", ""};  // comma-separated, one per input; empty = 1
    Input<Buffer<float, 1>[]> inputs{"inputs"};
    Output<Buffer<float, 1>> output{"output"};

    void generate() {
        std::vector<float> coefficients;
        std::stringstream list(coeff.value());
        for (std::string item; std::getline(list, item, ',');) coefficients.push_back(std::stof(item));
        if (coefficients.empty()) coefficients.assign(inputs.size(), 1.0f);
        if (coefficients.size() != inputs.size())
            throw Halide::CompileError("eltwise: coeff has the wrong number of values");
        std::vector<Halide::Func> funcs;
        for (size_t k = 0; k < inputs.size(); k++) {
            require_dense_shape(inputs[k], {count});
            funcs.push_back(inputs[k]);
        }
        Eltwise eltwise(funcs, static_cast<EltwiseOp>(int(operation)), coefficients);
        output = eltwise.output;
        require_dense_shape(output, {count});
        switch (schedule_family_for(get_target())) {
            case ScheduleFamily::X86:
            case ScheduleFamily::ARM: schedules::cpu::schedule_flat(eltwise.output, eltwise.i, count, get_target()); break;
            case ScheduleFamily::HVX: schedules::hvx::schedule_flat(eltwise.output, eltwise.i, count, get_target()); break;
            case ScheduleFamily::GPU: schedules::gpu::schedule_flat(eltwise.output, eltwise.i, count, get_target()); break;
        }
    }
};

class ChannelAffineGenerator : public Halide::Generator<ChannelAffineGenerator> {
  public:
    GeneratorParam<int> inner{"inner", 1}, channels{"channels", 1}, outer{"outer", 1};
    Input<Buffer<float, 3>> input{"input"};
    Input<Buffer<float, 1>> scale{"scale"};
    Input<Buffer<float, 1>> shift{"shift"};
    Output<Buffer<float, 3>> output{"output"};

    void generate() {
        ChannelAffine affine(input, scale, shift);
        output = affine.output;
        require_dense_shape(input, {inner, channels, outer});
        require_dense_shape(scale, {channels});
        require_dense_shape(shift, {channels});
        require_dense_shape(output, {inner, channels, outer});
        switch (schedule_family_for(get_target())) {
            case ScheduleFamily::X86:
            case ScheduleFamily::ARM: schedules::cpu::schedule_channel_affine(affine, inner, channels, outer, get_target()); break;
            case ScheduleFamily::HVX: schedules::hvx::schedule_channel_affine(affine, inner, channels, outer, get_target()); break;
            case ScheduleFamily::GPU: schedules::gpu::schedule_channel_affine(affine, inner, channels, outer, get_target()); break;
        }
    }
};

}  // namespace cortado

HALIDE_REGISTER_GENERATOR(cortado::ReluGenerator, cortado_relu)
HALIDE_REGISTER_GENERATOR(cortado::EltwiseGenerator, cortado_eltwise)
HALIDE_REGISTER_GENERATOR(cortado::ChannelAffineGenerator, cortado_channel_affine)
