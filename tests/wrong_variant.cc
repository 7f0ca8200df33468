// A deliberately wrong variant, registered only in the test binaries that link this file (the
// tuner's tests and the CLI the tests call for a failing check; never in cortado itself): the
// CPU register tile whose output comes out half as large again. It lets a test show a candidate
// failing its check, and `run --check` failing.
#include "generators/schedule_registry.h"
#include "schedules/cpu/conv2d_register_tile.h"
#include "schedules/families.h"
#include "tests/wrong_variant.h"

namespace cortado::testing {
namespace {

[[maybe_unused]] const bool registered = [] {
    for (const char *family : {"cpu", "x86", "arm"}) {
        const schedules::VariantSpec<Conv2dShape> *tile =
            schedules::families().at(family).op<Conv2dShape>().find("cpu_register_tile");
        if (!tile) continue;
        schedules::VariantSpec<Conv2dShape> wrong = *tile;
        wrong.name = kWrongVariant;
        schedules::register_variant(family, std::move(wrong));
    }
    return true;
}();

const BindSchedule<Conv2d, ops::Conv2dOp> wrong_binding{
    kWrongVariant, [](Conv2d &a, const ops::Conv2dOp &op, const Halide::Target &t) {
        a.output(a.x, a.y, a.c, a.n) = a.output(a.x, a.y, a.c, a.n) * 1.5f;
        schedules::cpu::schedule_conv2d_register_tile(a, op.shape, t, op.choice.knobs.get("channel_block"),
                                                      op.choice.knobs.get("vectors_x"));
    }};

}  // namespace
}  // namespace cortado::testing
