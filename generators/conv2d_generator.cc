// The conv2d generator: shapes arrive as generator parameters (compile-time constants), the
// schedule comes from the target's schedule family.
#include "generators/buffer_shape.h"
#include "generators/conv2d.h"
#include "generators/schedule_family.h"
#include "schedules/arm/conv2d.h"
#include "schedules/gpu/conv2d.h"
#include "schedules/hvx/conv2d.h"
#include "schedules/x86/conv2d.h"

namespace cortado {

class Conv2dGenerator : public Halide::Generator<Conv2dGenerator> {
  public:
    GeneratorParam<int> batch{"batch", 1}, in_channels{"in_channels", 1}, in_h{"in_h", 1},
        in_w{"in_w", 1}, out_channels{"out_channels", 1}, out_h{"out_h", 1}, out_w{"out_w", 1},
        kernel_h{"kernel_h", 1}, kernel_w{"kernel_w", 1}, stride_h{"stride_h", 1},
        stride_w{"stride_w", 1}, pad_h{"pad_h", 0}, pad_w{"pad_w", 0},
        dilation_h{"dilation_h", 1}, dilation_w{"dilation_w", 1}, group{"group", 1};
    GeneratorParam<bool> relu{"relu", false};
    GeneratorParam<float> relu_slope{"relu_slope", 0.0f};
    // GPU schedule knobs (schedules/gpu/conv2d.h); tuning sets them per layer.
    // 0: chosen from the shape; gpu_stage_channels 0: register variant, N: shared-memory staging
    // in chunks of N input channels.
    GeneratorParam<int> gpu_rows{"gpu_rows", 0}, gpu_channels{"gpu_channels", 0},
        gpu_threads_x{"gpu_threads_x", 0}, gpu_threads_c{"gpu_threads_c", 0}, gpu_split_k{"gpu_split_k", 0},
        gpu_cols{"gpu_cols", 0}, gpu_target_threads{"gpu_target_threads", 65536},
        gpu_threads_y{"gpu_threads_y", 0}, gpu_stage_channels{"gpu_stage_channels", 0};
    // Registers per thread the schedule may plan for: the target's registers_per_thread.
    GeneratorParam<int> gpu_registers{"gpu_registers", 64};

    Input<Buffer<float, 4>> input{"input"};
    Input<Buffer<float, 4>> weights{"weights"};
    Input<Buffer<float, 1>> bias{"bias"};
    Output<Buffer<float, 4>> output{"output"};

    void generate() {
        const Conv2dShape s{batch,    in_channels, in_h,       in_w,       out_channels,
                            out_h,    out_w,       kernel_h,   kernel_w,   stride_h,
                            stride_w, pad_h,       pad_w,      dilation_h, dilation_w,
                            group,    relu,        relu_slope};
        Conv2d conv(input, weights, bias, s);
        output = conv.output;
        require_dense_shape(input, {s.in_w, s.in_h, s.in_channels, s.batch});
        require_dense_shape(weights, {s.kernel_w, s.kernel_h, s.in_channels / s.group, s.out_channels});
        require_dense_shape(bias, {s.out_channels});
        require_dense_shape(output, {s.out_w, s.out_h, s.out_channels, s.batch});
        switch (schedule_family_for(get_target())) {
            case ScheduleFamily::X86: schedules::x86::schedule_conv2d(conv, s, get_target()); break;
            case ScheduleFamily::ARM: schedules::arm::schedule_conv2d(conv, s, get_target()); break;
            case ScheduleFamily::HVX: schedules::hvx::schedule_conv2d(conv, s, get_target()); break;
            case ScheduleFamily::GPU: {
                // Named, not positional: a reordered struct must not swap knobs silently.
                schedules::gpu::Conv2dKnobs knobs;
                knobs.rows = gpu_rows;
                knobs.cols = gpu_cols;
                knobs.channels = gpu_channels;
                knobs.threads_x = gpu_threads_x;
                knobs.threads_c = gpu_threads_c;
                knobs.split_k = gpu_split_k;
                knobs.target_threads = gpu_target_threads;
                knobs.threads_y = gpu_threads_y;
                knobs.stage_channels = gpu_stage_channels;
                knobs.registers = gpu_registers;
                schedules::gpu::schedule_conv2d(conv, s, get_target(), knobs);
                break;
            }
        }
    }
};

}  // namespace cortado

HALIDE_REGISTER_GENERATOR(cortado::Conv2dGenerator, cortado_conv2d)
