#include <sstream>

#include "generators/buffer_shape.h"
#include "generators/concat.h"
#include "generators/schedule_family.h"
#include "schedules/gpu/concat.h"
#include "schedules/cpu/concat.h"
#include "schedules/hvx/memory_bound.h"

namespace cortado {

class ConcatGenerator : public Halide::Generator<ConcatGenerator> {
  public:
    GeneratorParam<int> inner{"inner", 1}, outer{"outer", 1};
    GeneratorParam<std::string> channels{"channels", "1"};  // comma-separated, one per input

    Input<Buffer<float, 3>[]> inputs{"inputs"};
    Output<Buffer<float, 3>> output{"output"};

    void generate() {
        ConcatShape s{inner, outer, {}};
        std::stringstream list(channels.value());
        for (std::string item; std::getline(list, item, ',');) s.channels.push_back(std::stoi(item));
        if (s.channels.size() != inputs.size())
            throw Halide::CompileError("concat: channels lists " + std::to_string(s.channels.size()) +
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
        switch (schedule_family_for(get_target())) {
            case ScheduleFamily::X86:
            case ScheduleFamily::ARM: schedules::cpu::schedule_concat(concat, s, get_target()); break;
            case ScheduleFamily::HVX: schedules::hvx::schedule_concat(concat, s, get_target()); break;
            case ScheduleFamily::GPU: schedules::gpu::schedule_concat(concat, s, get_target()); break;
        }
    }
};

}  // namespace cortado

HALIDE_REGISTER_GENERATOR(cortado::ConcatGenerator, cortado_concat)
